"""TP015's GPU evidence (`triton-faq bench`): memcheck's report on the overrun, with and without the cache."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from snippets.debugging import compute_sanitizer as entry
from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = Path(entry.__file__)


def find_sanitizer():
    found = shutil.which("compute-sanitizer")
    if found is None and Path("/usr/local/cuda/bin/compute-sanitizer").is_file():
        found = "/usr/local/cuda/bin/compute-sanitizer"
    if found is None:  # the bench must fail, saying why
        raise RuntimeError("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")
    return found


def sanitize(mode="--overrun", **env):
    """compute-sanitizer --tool memcheck python <the reader's file> <mode>: its whole output."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("PYTORCH_NO_CUDA_MEMORY_CACHING", "TRITON_INTERPRET")}
    result = subprocess.run([find_sanitizer(), "--tool", "memcheck", sys.executable, str(SNIPPET), mode],
                            capture_output=True, text=True, timeout=540, env={**environ, **env})
    return result.stdout + result.stderr


def overrun_line() -> int:
    lines = SNIPPET.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# OVERRUN:" in line and "tl.load" in line)


def first_line(pattern, report):
    """The first line of `report` matching `pattern`, without memcheck's "=========" prefix or our path."""
    line = next((line for line in report.splitlines() if re.search(pattern, line)), "")
    line = line.removeprefix("=========").strip().replace(str(ROOT) + os.sep, "")
    return f"`` {line} ``" if line else ""  # __global__ must not become bold


@gpu_evidence("sanitizer-summary")
def observe_sanitizer_summary():
    """memcheck's report on the overrun, with the caching allocator and without it."""
    find_sanitizer()
    where = f"{SNIPPET.name}:{overrun_line()}"
    rows = []
    for no_caching in (False, True):
        report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1") if no_caching else sanitize()
        rows.append([no_caching, "overrun kernel finished" in report, first_line(r"ERROR SUMMARY", report),
                     first_line(r"Invalid __global__ read", report), first_line(r"at sum_without_mask\+0x", report),
                     first_line(r"^=+\s+Address ", report), first_line(r"nearest allocation", report),
                     where in report])
    return table(
        [label("PYTORCH_NO_CUDA_MEMORY_CACHING=1", "PYTORCH_NO_CUDA_MEMORY_CACHING=1"),
         label("the script finished", "脚本跑完了"), label("summary line", "汇总行"),
         label("first invalid read", "第一条非法读取"), label("first line naming the kernel", "第一行点名内核的输出"),
         label("first address line", "第一行地址说明"),
         label("first line about the nearest allocation", "第一行关于最近分配的说明"),
         label(f"names {where} (the tl.load)", f"点出了 {where}（那行 tl.load）")],
        rows,
    )
