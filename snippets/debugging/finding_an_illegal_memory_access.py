"""TP023: "CUDA error: an illegal memory access was encountered": which kernel, which line?

Run it: ``python snippets/debugging/finding_an_illegal_memory_access.py``
(on a machine without a GPU it runs through Triton's interpreter).

``python snippets/debugging/finding_an_illegal_memory_access.py --workflow`` runs the buggy
program once and reports where it failed. The tests always run it in a child process: the
bad read kills the interpreter's process, and on a GPU it leaves the CUDA context unusable.
"""

import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import traceback
from pathlib import Path

import torch

from triton_faq import backend
from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[2]


# --8<-- [start:kernel]
@triton.jit
def gather_rows(table_ptr, idx_ptr, out_ptr, D, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    row = tl.load(idx_ptr + i)  # trusts the index: no check against the table's size
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(table_ptr + row * D + cols, mask=mask)  # <- the bad read
    tl.store(out_ptr + i * D + cols, x, mask=mask)


def embed(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """out[i] = table[idx[i]] for a contiguous 2-D table and 1-D int64 indices."""
    n_rows, d = table.shape
    out = torch.empty(len(idx), d, device=table.device)
    gather_rows[(len(idx),)](table, idx, out, d, BLOCK=triton.next_power_of_2(d))  # <- the launch
    return out
# --8<-- [end:kernel]


# --8<-- [start:workflow]
N_ROWS, D = 1000, 64
BAD_INDEX = 2**34  # a corrupted index: row 17179869184 of a 1000-row table


def workflow():
    table = torch.randn(N_ROWS, D, device=DEVICE)
    idx = torch.tensor([3, 1, BAD_INDEX, 7], device=DEVICE)
    out = embed(table, idx)
    print("launch returned", flush=True)
    scale = 1 / D  # plain Python: nothing here touches the GPU
    total = out.sum().item() * scale  # <- the first call that waits for the GPU
    print("total:", total, flush=True)
# --8<-- [end:workflow]


# --8<-- [start:checked]
import triton_faq
from triton_faq.checking import launched_from


def workflow_checked() -> str:
    """The same program under triton_faq.checked() on the interpreter: a report, not a crash."""
    table = torch.randn(N_ROWS, D, device=DEVICE)
    idx = torch.tensor([3, 1, BAD_INDEX, 7], device=DEVICE)
    try:
        with triton_faq.checked():
            embed(table, idx)
    except triton_faq.OutOfBounds as report:  # raised before the bad read
        return f"{report}\n  launched from {launched_from(report)}"
    raise AssertionError("the bad read was not reported")
# --8<-- [end:checked]


# --8<-- [start:fix]
def check_indices(idx: torch.Tensor, n_rows: int) -> None:
    """Raise on the host, at the caller's line, before a bad index reaches the kernel."""
    bad = (idx < 0) | (idx >= n_rows)
    if bad.any():  # one synchronising call: cheap next to a lost CUDA context
        raise IndexError(f"index {int(idx[bad][0])} is out of range for a table of {n_rows} rows")


def embed_checked(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    check_indices(idx, table.shape[0])
    return embed(table, idx)
# --8<-- [end:fix]


# --8<-- [start:child]
def after_the_error() -> dict:
    """CUDA calls to try once the error has been raised: every one should fail too."""
    spare_table = torch.zeros(2, D, device=DEVICE)  # allocated before the bad launch
    spare_idx = torch.zeros(1, dtype=torch.int64, device=DEVICE)
    return {
        "torch.cuda.synchronize()": torch.cuda.synchronize,
        'torch.zeros(4, device="cuda")': lambda: torch.zeros(4, device="cuda"),
        'torch.ones(4).to("cuda")': lambda: torch.ones(4).to("cuda"),
        "embed(...) with a valid index": lambda: embed(spare_table, spare_idx),
    }


def run_workflow():
    """Run `workflow` and report how it ended: the line it failed at, the error, what still works."""
    probes = after_the_error() if DEVICE == "cuda" else {}
    try:
        workflow()
    except Exception as error:
        traceback.print_exc()  # the traceback an uncaught error would print
        here = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
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


CLEAN = ("CUDA_LAUNCH_BLOCKING", "PYTORCH_NO_CUDA_MEMORY_CACHING", "TRITON_DEBUG")


def run_child(*prefix: str, **env: str) -> subprocess.CompletedProcess:
    """`python <this file> --workflow` in a fresh process, optionally under a tool (`prefix`)."""
    environ = {k: v for k, v in os.environ.items() if k not in CLEAN}
    environ.update(TRITON_FAQ_BACKEND=backend.BACKEND, PYTHONPATH=str(ROOT), **env)
    command = [*prefix, sys.executable, *(["-X", "faulthandler"] if not prefix else []), __file__, "--workflow"]
    return subprocess.run(command, env=environ, cwd=ROOT, capture_output=True, text=True, timeout=540)
# --8<-- [end:child]


def line_of(marker: str) -> int:
    """The line number of the line of this file that ends with `marker`."""
    lines = Path(__file__).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.endswith(marker))


BAD_READ = "# <- the bad read"
LAUNCH = "# <- the launch"
SYNC = "# <- the first call that waits for the GPU"


# ---------------------------------------------------------------- on every backend
# --8<-- [start:test-fix]
def test_fix_rejects_the_bad_index_on_the_host():
    table = fresh_randn(N_ROWS, D)
    idx = torch.tensor([3, 1, BAD_INDEX, 7], device=DEVICE)
    with pytest.raises(IndexError, match="index 17179869184 is out of range for a table of 1000 rows"):
        embed_checked(table, idx)


@pytest.mark.parametrize("d", [64, 100])
def test_fix_gathers_the_right_rows(d):
    table = fresh_randn(N_ROWS, d)
    idx = torch.randint(0, N_ROWS, (37,), device=DEVICE)
    out = embed_checked(table, idx)
    assert_matches_float64(out, table.double()[idx])


def test_the_kernel_writes_every_output_element():
    table, idx = fresh_randn(N_ROWS, 100), torch.tensor([999, 0, 500], device=DEVICE)
    out = poisoned(3, 100)
    gather_rows[(3,)](table, idx, out, 100, BLOCK=128)
    assert_matches_float64(out, table.double()[idx])
# --8<-- [end:test-fix]


# ---------------------------------------------------------------- on the interpreter
# --8<-- [start:test-checked]
@pytest.mark.interpreter
def test_checked_names_kernel_line_argument_offset_size_program_and_launch():
    report = workflow_checked()
    assert report.startswith("out-of-bounds load in kernel gather_rows at ")
    assert "x = tl.load(table_ptr + row * D + cols, mask=mask)  # <- the bad read" in report
    first = BAD_INDEX * D
    assert f"argument table_ptr: element offset {first} (64 lanes out of bounds, offsets {first}..{first + 63})" in report
    assert f"the tensor has {N_ROWS * D} elements, valid offsets 0..{N_ROWS * D - 1}" in report
    assert "program (2, 0, 0)" in report  # the program of the bad index
    assert "launched from " in report and "in embed" in report and "# <- the launch" in report
# --8<-- [end:test-checked]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
def test_interpreter_the_bad_read_kills_the_process_at_the_kernel_line():
    child = run_child()  # python -X faulthandler <this file> --workflow
    assert child.returncode == -signal.SIGSEGV
    assert "launch returned" not in child.stdout  # it died inside the launch
    assert "Fatal Python error: Segmentation fault" in child.stderr
    assert f'finding_an_illegal_memory_access.py", line {line_of(BAD_READ)} in gather_rows' in child.stderr
# --8<-- [end:test-interpreter]


# ---------------------------------------------------------------- on the GPU
@functools.lru_cache(maxsize=None)
def cuda_child(how: str) -> subprocess.CompletedProcess:
    """One child run per way of running it, shared by the tests and the evidence below."""
    if how == "plain":
        return run_child()
    if how == "blocking":
        return run_child(CUDA_LAUNCH_BLOCKING="1")
    return run_child(find_sanitizer(), "--tool", "memcheck", PYTORCH_NO_CUDA_MEMORY_CACHING="1")


def find_sanitizer() -> str:
    found = shutil.which("compute-sanitizer")
    if found is None and Path("/usr/local/cuda/bin/compute-sanitizer").is_file():
        found = "/usr/local/cuda/bin/compute-sanitizer"
    if found is None:
        pytest.skip("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")
    return found


def after(prefix: str, text: str) -> str:
    """What follows `prefix` on the first line of `text` that starts with it, or ""."""
    return next((line.removeprefix(prefix) for line in text.splitlines() if line.startswith(prefix)), "")


ILLEGAL = "an illegal memory access was encountered"
ASYNC_NOTE = ("CUDA kernel errors might be asynchronously reported at some other API call, "
              "so the stacktrace below might be incorrect.")
SANITIZER_FRAME = re.compile(r"at gather_rows\+0x[0-9a-f]+ in \S*finding_an_illegal_memory_access\.py:(\d+)")


# --8<-- [start:test-gpu-plain]
@pytest.mark.gpu
def test_gpu_the_launch_returns_without_an_error():
    child = cuda_child("plain")
    assert child.returncode == 3, child.stderr  # our `except` ran
    assert child.stdout.splitlines()[0] == "launch returned"


@pytest.mark.gpu
def test_gpu_the_traceback_points_at_the_first_synchronising_line():
    child = cuda_child("plain")
    assert after("failed at line ", child.stdout).startswith(f"{line_of(SYNC)}: total = out.sum().item()")
    assert f'finding_an_illegal_memory_access.py", line {line_of(SYNC)}, in workflow' in child.stderr


@pytest.mark.gpu
def test_gpu_the_error_is_torchs_cuda_error():
    child = cuda_child("plain")
    assert after("error: ", child.stdout).endswith(f"CUDA error: {ILLEGAL}")


@pytest.mark.gpu
def test_gpu_torch_warns_that_the_stacktrace_might_be_incorrect():
    child = cuda_child("plain")
    assert ASYNC_NOTE in child.stderr
    assert "For debugging consider passing CUDA_LAUNCH_BLOCKING=1" in child.stderr
# --8<-- [end:test-gpu-plain]


# --8<-- [start:test-gpu-blocking]
@pytest.mark.gpu
def test_gpu_launch_blocking_points_at_the_launch_line():
    child = cuda_child("blocking")
    assert "launch returned" not in child.stdout.splitlines()
    assert after("failed at line ", child.stdout).startswith(f"{line_of(LAUNCH)}: gather_rows[(len(idx),)]")
    assert after("error: ", child.stdout) == f"RuntimeError: Triton Error [CUDA]: {ILLEGAL}"
# --8<-- [end:test-gpu-blocking]


# --8<-- [start:test-gpu-sanitizer]
@pytest.mark.gpu
def test_gpu_compute_sanitizer_names_the_kernel_and_the_line_of_the_bad_read():
    report = cuda_child("sanitizer").stdout + cuda_child("sanitizer").stderr
    assert re.search(r"Invalid __global__ read of size \d+ bytes", report)
    assert [int(n) for n in SANITIZER_FRAME.findall(report)][:1] == [line_of(BAD_READ)]
# --8<-- [end:test-gpu-sanitizer]


# --8<-- [start:test-gpu-after]
PROBES = ["torch.cuda.synchronize()", 'torch.zeros(4, device="cuda")', 'torch.ones(4).to("cuda")',
          "embed(...) with a valid index"]


@pytest.mark.gpu
@pytest.mark.parametrize("probe", PROBES)
def test_gpu_every_later_cuda_call_fails_with_the_same_error(probe):
    outcome = after(f"after the error: {probe}: ", cuda_child("plain").stdout)
    assert outcome.endswith(ILLEGAL), outcome
# --8<-- [end:test-gpu-after]


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def workflow_output() -> str:
    child = cuda_child("plain")  # raised by `.item()`: "CUDA error: ..." plus torch's note
    return child.stdout + child.stderr


def workflow_output_with_launch_blocking() -> str:
    child = cuda_child("blocking")  # raised by the launch: "Triton Error [CUDA]: ..."
    return child.stdout + child.stderr


def code(text: str) -> str:
    """`text` as inline code for a table cell, without this repository's path."""
    text = text.removeprefix("=========").strip().replace(str(ROOT) + os.sep, "")
    return f"`` {text} ``" if text else ""


@gpu_evidence("where-it-surfaces")
def observe_where_it_surfaces():
    """How the buggy program ends on the GPU: plain, with CUDA_LAUNCH_BLOCKING=1, under compute-sanitizer."""
    try:
        find_sanitizer()
    except pytest.skip.Exception as missing:  # a test skips; the bench must fail, saying why
        raise RuntimeError(str(missing)) from None
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


def main():
    if "--workflow" in sys.argv:
        run_workflow()
        return
    print(describe())
    table_, idx = fresh_randn(N_ROWS, D), torch.tensor([3, 1, BAD_INDEX, 7], device=DEVICE)
    try:
        embed_checked(table_, idx)
    except IndexError as error:
        print("embed_checked refuses the bad index:", error)
    good = torch.tensor([3, 1, 7], device=DEVICE)
    print("embed_checked on valid indices matches table[idx]:",
          torch.equal(embed_checked(table_, good).cpu(), table_[good].cpu()))
    print("the buggy program in a child process (python -X faulthandler ... --workflow):")
    child = run_child()
    print("  return code:", child.returncode)
    print("  stdout:", child.stdout.splitlines())
    print("  stderr:", *[line for line in child.stderr.splitlines()
                         if "Fatal" in line or "gather_rows" in line or "failed" in line], sep="\n    ")


if __name__ == "__main__":
    main()
