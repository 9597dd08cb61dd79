"""TP023's GPU evidence (`triton-faq bench`): where the illegal memory access surfaces, and what breaks after it."""

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(__file__).resolve().parents[2]

# The child: runs the reader's `workflow()`, prints the traceback an uncaught error would print,
# the line it failed at and the error, then tries a few more CUDA calls.
CHILD = r'''
import os, sys, traceback
import torch
from snippets.debugging import finding_an_illegal_memory_access as entry

probes = {}
if entry.DEVICE == "cuda":
    spare_table = torch.zeros(2, entry.D, device="cuda")  # allocated before the bad launch
    spare_idx = torch.zeros(1, dtype=torch.int64, device="cuda")
    probes = {
        "torch.cuda.synchronize()": torch.cuda.synchronize,
        'torch.zeros(4, device="cuda")': lambda: torch.zeros(4, device="cuda"),
        'torch.ones(4).to("cuda")': lambda: torch.ones(4).to("cuda"),
        "embed(...) with a valid index": lambda: entry.embed(spare_table, spare_idx),
    }
try:
    entry.workflow()
except Exception as error:
    traceback.print_exc()  # the traceback an uncaught error would print
    here = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == entry.__file__]
    print(f"failed at line {here[-1].lineno}: {here[-1].line}")
    print(f"error: {type(error).__name__}: {str(error).splitlines()[0]}")
    for name, call in probes.items():
        try:
            call()
            print(f"after the error: {name}: ok")
        except Exception as later:
            print(f"after the error: {name}: {type(later).__name__}: {str(later).splitlines()[0]}")
    sys.stdout.flush()
    os._exit(3)  # skip interpreter teardown: the CUDA context is unusable now
'''
CLEAN = ("CUDA_LAUNCH_BLOCKING", "PYTORCH_NO_CUDA_MEMORY_CACHING", "TRITON_DEBUG", "TRITON_INTERPRET")


def find_sanitizer() -> str:
    found = shutil.which("compute-sanitizer")
    if found is None and Path("/usr/local/cuda/bin/compute-sanitizer").is_file():
        found = "/usr/local/cuda/bin/compute-sanitizer"
    if found is None:  # the bench must fail, saying why
        raise RuntimeError("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")
    return found


@functools.lru_cache(maxsize=None)
def cuda_child(how: str) -> subprocess.CompletedProcess:
    """The child on the GPU: plain, with CUDA_LAUNCH_BLOCKING=1, or under compute-sanitizer."""
    environ = {k: v for k, v in os.environ.items() if k not in CLEAN}
    environ["PYTHONPATH"] = str(ROOT)
    prefix = []
    if how == "blocking":
        environ["CUDA_LAUNCH_BLOCKING"] = "1"
    elif how == "sanitizer":
        prefix = [find_sanitizer(), "--tool", "memcheck"]
        environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
    command = [*prefix, sys.executable, *(["-X", "faulthandler"] if not prefix else []), "-c", CHILD]
    return subprocess.run(command, env=environ, cwd=ROOT, capture_output=True, text=True, timeout=540)


def after(prefix: str, text: str) -> str:
    """What follows `prefix` on the first line of `text` that starts with it, or ""."""
    return next((line.removeprefix(prefix) for line in text.splitlines() if line.startswith(prefix)), "")


def code(text: str) -> str:
    """`text` as inline code for a table cell, without this repository's path."""
    text = text.removeprefix("=========").strip().replace(str(ROOT) + os.sep, "")
    return f"`` {text} ``" if text else ""


ASYNC_NOTE = ("CUDA kernel errors might be asynchronously reported at some other API call, "
              "so the stacktrace below might be incorrect.")
SANITIZER_FRAME = re.compile(r"at gather_rows\+0x[0-9a-f]+ in \S*finding_an_illegal_memory_access\.py:(\d+)")
PROBES = ["torch.cuda.synchronize()", 'torch.zeros(4, device="cuda")', 'torch.ones(4).to("cuda")',
          "embed(...) with a valid index"]


@gpu_evidence("where-it-surfaces")
def observe_where_it_surfaces():
    """How the buggy program ends on the GPU: plain, with CUDA_LAUNCH_BLOCKING=1, under compute-sanitizer."""
    find_sanitizer()
    rows = []
    for how, shown in [("plain", "`python`"), ("blocking", "`CUDA_LAUNCH_BLOCKING=1 python`"),
                       ("sanitizer", "`PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer python`")]:
        child = cuda_child(how)
        report = child.stdout + child.stderr
        kernel_line = next((line for line in report.splitlines() if SANITIZER_FRAME.search(line)), "")
        rows.append([shown, child.returncode, "launch returned" in child.stdout.splitlines(),
                     code(after("failed at line ", child.stdout)), code(after("error: ", child.stdout)),
                     ASYNC_NOTE in report, code(kernel_line)])
    return table(
        [label("run as", "运行方式"), label("return code", "返回码"),
         label("printed \"launch returned\"", "打印了 \"launch returned\""),
         label("failed at line", "出错的行"), label("error (first line)", "错误（第一行）"),
         label("torch's \"might be asynchronously reported\" note", "torch 的“可能异步报告”提示"),
         label("sanitizer line naming the kernel", "sanitizer 点名 kernel 的那一行")],
        rows,
    )


@gpu_evidence("after-the-error")
def observe_after_the_error():
    """What later CUDA calls in the same process do once the illegal memory access was raised."""
    stdout = cuda_child("plain").stdout
    rows = [[f"`{probe}`", code(after(f"after the error: {probe}: ", stdout))] for probe in PROBES]
    return table([label("later call", "之后的调用"), label("outcome", "结果")], rows)
