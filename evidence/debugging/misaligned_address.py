"""TP062's GPU evidence (`triton-faq bench`): the broken promise on the H200, with and without
CUDA_LAUNCH_BLOCKING, the fix, and what compute-sanitizer's memcheck reports."""

import os
import re
from pathlib import Path

from snippets.debugging import misaligned_address as entry
from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(__file__).resolve().parents[2]


def sanitizer():
    for path in ("compute-sanitizer", "/usr/local/cuda/bin/compute-sanitizer"):
        if os.path.sep not in path:
            from shutil import which

            path = which(path) or ""
        if path and Path(path).is_file():
            return path
    raise RuntimeError("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")


def memcheck_line(pattern, output):
    line = next((line for line in output.splitlines() if re.search(pattern, line)), "")
    line = re.sub(r"0x[0-9a-f]{3,}([0-9a-f]{3})\b", r"0x…\1", line.removeprefix("=========").strip())  # the low digits stay
    return f"`` {line} ``" if line else ""  # __global__ must not become bold


@gpu_evidence("misaligned-runs")
def observe_runs():
    """Each copy of 4096 floats from x[start:] in a new process: how it ended and the error it printed."""
    rows = []
    for kernel, start, blocking in (("copy_window_pitfall", 3, True), ("copy_window_pitfall", 3, False),
                                    ("copy_window_pitfall", 16, False), ("copy_window_fixed", 3, False),
                                    ("copy_window_fixed", 16, False)):
        code, error, output = entry.in_new_process(kernel, start, blocking=blocking)
        rows.append([kernel, start, blocking, code, "equal: True" in output, f"`` {error} ``" if code else ""])
    return table([label("kernel", "kernel"), label("start", "start"), label("CUDA_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=1"),
                  label("exit code", "退出码"), label("copy right", "拷贝正确"), label("error line", "报错行")], rows)


@gpu_evidence("misaligned-memcheck")
def observe_memcheck():
    """compute-sanitizer --tool memcheck on the pitfall with start = 3: the lines that say what and where."""
    code, _, output = entry.in_new_process("copy_window_pitfall", 3, prefix=(sanitizer(), "--tool", "memcheck"))
    line = next(i for i, text in enumerate(entry.reproducer().splitlines(), 1) if "tl.load(x_ptr + src" in text)
    return table([label("exit code", "退出码"), label("first invalid access", "第一条非法访问"),
                  label("where", "位置"), label("why", "原因"),
                  label(f"names reproducer.py:{line} (the tl.load)", f"点出了 reproducer.py:{line}（那行 tl.load）")],
                 [[code, memcheck_line(r"Invalid __global__ read", output), memcheck_line(r"^=+\s+at copy_window", output),
                   memcheck_line(r"is misaligned", output), f"reproducer.py:{line}" in output]])
