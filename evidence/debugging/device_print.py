"""TP013's GPU evidence (`triton-faq bench`): what device_print writes on the GPU, and what it costs."""

import json
import os
import subprocess
import sys
from pathlib import Path

from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(__file__).resolve().parents[2]


def run_child(code):
    """Run `code` after `import torch` and the reader's file as `entry`, with x on the GPU.

    device_print on CUDA writes through the device printf buffer to the process's stdout (file
    descriptor 1), so the kernels run in a child process whose output is read back.
    """
    program = ("import sys, torch\nfrom snippets.debugging import device_print as entry\n"
               "x = torch.zeros(1, device='cuda')\n" + code + "\ntorch.cuda.synchronize()\nsys.stdout.flush()\n")
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                            cwd=ROOT, env={**environ, "PYTHONPATH": str(ROOT)})
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    return result


# Every case runs in one child process, one launch each, with the user's defaults unless the code
# names a setting. The marker lines are written to file descriptor 1 after the GPU has synchronised and C's
# stdio buffers (where the device printf lands) have been flushed, so each case's lines stay apart.
CASES_CHILD = """
import ctypes, json, os, sys, torch
from snippets.debugging import device_print as entry
libc = ctypes.CDLL(None)
x = torch.arange(4096, dtype=torch.float32, device="cuda")
out = torch.full((4096,), float("nan"), device="cuda")
torch.cuda.synchronize()
for name, code in json.loads(sys.argv[1]):
    sys.stdout.flush(); libc.fflush(None)
    os.write(1, ("@@case " + name + "\\n").encode())
    exec(code)
    torch.cuda.synchronize()
    sys.stdout.flush(); libc.fflush(None)
os.write(1, b"@@end\\n")
"""

NUM_WARPS = (1, 2, None, 8)  # None: the launch names no num_warps (Triton's default, 4)
LAUNCHES = {  # what each launch prints: (kernel, the launch's arguments without num_warps)
    "print_offsets, 2 programs of 8": "entry.print_offsets[(2,)](x, 16, BLOCK_SIZE=8{kw})",
    "print_offsets, 2 programs of 32": "entry.print_offsets[(2,)](x, 64, BLOCK_SIZE=32{kw})",
    "print_offsets, 2 programs of 1024": "entry.print_offsets[(2,)](x, 2048, BLOCK_SIZE=1024{kw})",
    "print_offsets_pid0, 2 programs of 32": "entry.print_offsets_pid0[(2,)](x, 64, BLOCK_SIZE=32{kw})",
    "print_sum, 2 programs of 32": "entry.print_sum[(2,)](x, BLOCK=32{kw})",
    "scale, 8 programs of 8": "entry.scale[(8,)](x, out, 64, BLOCK=8{kw})",
    "print_scalars, 1 program": "entry.print_scalars[(1,)](x, 6, BLOCK=8{kw})",
}


def case_name(launch, num_warps):
    return f"{launch} | num_warps={'default' if num_warps is None else num_warps}"


def printed_lines():
    """{case_name(launch, num_warps): the stdout lines of that launch}, every launch x NUM_WARPS."""
    cases = [[case_name(launch, w), code.format(kw="" if w is None else f", num_warps={w}")]
             for launch, code in LAUNCHES.items() for w in NUM_WARPS]
    stdout = run_child_args(CASES_CHILD, json.dumps(cases)).stdout
    lines, current = {}, None
    for line in stdout.splitlines():
        if line.startswith("@@case "):
            current = line[len("@@case "):]
            lines[current] = []
        elif line == "@@end":
            current = None
        elif current is not None:
            lines[current].append(line)
    missing = [name for name, _ in cases if name not in lines]
    if missing:
        raise RuntimeError(f"no output section for {missing}: {stdout[-2000:]}")
    return lines


def run_child_args(program, *args):
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, timeout=600,
                            cwd=ROOT, env={**environ, "PYTHONPATH": str(ROOT)})
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    return result


@gpu_evidence("device-print-output")
def observe_device_print_output():
    """The first lines printed for 2 programs x 32 offsets with the defaults, and how many in all."""
    lines = printed_lines()[case_name("print_offsets, 2 programs of 32", None)]
    return table(
        [label("line", "行"),
         label(f"stdout: the first 8 of {len(lines)} lines", f"stdout：共 {len(lines)} 行中的前 8 行")],
        [[i, f"`{line}`"] for i, line in enumerate(lines[:8], 1)],
        lines_in_all=len(lines),
    )


@gpu_evidence("device-print-lines")
def observe_device_print_lines():
    """Lines (and distinct lines) each launch prints, per num_warps."""
    lines = printed_lines()
    return table(
        [label("launch", "启动"), *(label(f"num_warps={w}" if w else "num_warps=4 (default)",
                                          f"num_warps={w}" if w else "num_warps=4（默认）") for w in NUM_WARPS)],
        [[f"`{launch}`", *(f"{len(lines[case_name(launch, w)])} / {len(set(lines[case_name(launch, w)]))}"
                           for w in NUM_WARPS)] for launch in LAUNCHES],
    )


@gpu_evidence("device-print-timing")
def observe_device_print_timing():
    """Median wall time of launch + synchronize with and without a print of 8192 values, from the child."""
    stderr = run_child("sys.stderr.write(f'with-print {entry.seconds_per_launch(True)}\\n'"
                       " f'without-print {entry.seconds_per_launch(False)}\\n')").stderr
    timings = dict(line.split() for line in stderr.splitlines() if line.startswith(("with-print", "without-print")))
    with_print, without_print = float(timings["with-print"]), float(timings["without-print"])
    return table(
        [label("PRINT", "PRINT"), label("median ms per launch + synchronize (20 launches)",
                                        "每次启动加同步的中位数 毫秒（20 次启动）"),
         label("times the kernel without the print", "是不打印版本的倍数")],
        [[True, with_print * 1e3, with_print / without_print], [False, without_print * 1e3, 1.0]],
    )
