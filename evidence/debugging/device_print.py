"""TP013's GPU evidence (`triton-faq bench`): what device_print writes on the GPU, and what it costs."""

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


@gpu_evidence("device-print-output")
def observe_device_print_output():
    """The first lines the child prints for 2 programs x 32 offsets (num_warps=1), and how many in all."""
    lines = run_child("entry.print_offsets[(2,)](x, 64, BLOCK_SIZE=32, num_warps=1)").stdout.splitlines()
    return table(
        [label("line", "行"),
         label(f"stdout: the first 8 of {len(lines)} lines", f"stdout：共 {len(lines)} 行中的前 8 行")],
        [[i, f"`{line}`"] for i, line in enumerate(lines[:8], 1)],
        lines_in_all=len(lines),
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
