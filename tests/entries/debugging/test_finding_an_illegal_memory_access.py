"""TP023's claims, one test each: snippets/debugging/finding_an_illegal_memory_access.py.

The buggy program always runs in a child process: the bad read kills the interpreter's process,
and on a GPU it leaves the CUDA context unusable.
"""

import functools
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import triton_checked
from snippets.debugging import finding_an_illegal_memory_access as entry
from triton_faq import backend
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, checked_error, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[3]
SNIPPET = Path(entry.__file__)

# The child program (it runs the reader's `workflow()`, prints the traceback, the line and the error,
# then tries a few more CUDA calls) is the one the GPU evidence runs.
from evidence.debugging.finding_an_illegal_memory_access import CHILD, CLEAN  # noqa: E402


def run_child(*prefix: str, **env: str) -> subprocess.CompletedProcess:
    """The child in a fresh process on this run's backend, optionally under a tool (`prefix`)."""
    environ = {k: v for k, v in os.environ.items() if k not in CLEAN}
    if backend.BACKEND == "interpreter":
        environ["TRITON_INTERPRET"] = "1"
    environ.update(PYTHONPATH=str(ROOT), **env)
    command = [*prefix, sys.executable, *(["-X", "faulthandler"] if not prefix else []), "-c", CHILD]
    return subprocess.run(command, env=environ, cwd=ROOT, capture_output=True, text=True, timeout=540)


def line_of(marker: str) -> int:
    """The line number of the line of the reader's file that ends with `marker`."""
    lines = SNIPPET.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.endswith(marker))


BAD_READ = "# <- the bad read"
LAUNCH = "# <- the launch"
SYNC = "# <- the first call that waits for the GPU"


# ---------------------------------------------------------------- on every backend
def test_fix_rejects_the_bad_index_on_the_host():
    table = fresh_randn(entry.N_ROWS, entry.D)
    idx = torch.tensor([3, 1, entry.BAD_INDEX, 7], device=DEVICE)
    with pytest.raises(IndexError, match="index 17179869184 is out of range for a table of 1000 rows"):
        entry.embed_checked(table, idx)


@pytest.mark.parametrize("d", [64, 100])
def test_fix_gathers_the_right_rows(d):
    table = fresh_randn(entry.N_ROWS, d)
    idx = torch.randint(0, entry.N_ROWS, (37,), device=DEVICE)
    out = entry.embed_checked(table, idx)
    assert_matches_float64(out, table.double()[idx])


def test_the_kernel_writes_every_output_element():
    table, idx = fresh_randn(entry.N_ROWS, 100), torch.tensor([999, 0, 500], device=DEVICE)
    out = poisoned(3, 100)
    entry.gather_rows[(3,)](table, idx, out, 100, BLOCK=128)
    assert_matches_float64(out, table.double()[idx])


# ---------------------------------------------------------------- on the interpreter
def workflow_checked() -> str:
    """The same program under triton_checked.checked() on the interpreter: a report, not a crash."""
    table = torch.randn(entry.N_ROWS, entry.D, device=DEVICE)
    idx = torch.tensor([3, 1, entry.BAD_INDEX, 7], device=DEVICE)
    report = checked_error(lambda: entry.embed(table, idx), triton_checked.OutOfBounds)  # before the bad read
    return f"{report}\n  launched from {triton_checked.launched_from(report)}"


@pytest.mark.interpreter
def test_checked_names_kernel_line_argument_offset_size_program_and_launch():
    report = workflow_checked()
    assert report.startswith("out-of-bounds load in kernel gather_rows at ")
    assert "x = tl.load(table_ptr + row * D + cols, mask=mask)  # <- the bad read" in report
    first = entry.BAD_INDEX * entry.D
    assert f"argument table_ptr: element offset {first} (64 lanes out of bounds, offsets {first}..{first + 63})" in report
    n = entry.N_ROWS * entry.D
    assert f"the tensor has {n} elements, valid offsets 0..{n - 1}" in report
    assert "program (2, 0, 0)" in report  # the program of the bad index
    assert "launched from " in report and "in embed" in report and "# <- the launch" in report


@pytest.mark.interpreter
def test_interpreter_the_bad_read_kills_the_process_at_the_kernel_line():
    child = run_child()  # python -X faulthandler -c CHILD
    assert child.returncode == -signal.SIGSEGV
    assert "launch returned" not in child.stdout  # it died inside the launch
    assert "Fatal Python error: Segmentation fault" in child.stderr
    assert f'finding_an_illegal_memory_access.py", line {line_of(BAD_READ)} in gather_rows' in child.stderr


# ---------------------------------------------------------------- on the GPU
@functools.lru_cache(maxsize=None)
def cuda_child(how: str) -> subprocess.CompletedProcess:
    """One child run per way of running it, shared by the tests below."""
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


@pytest.mark.gpu
def test_gpu_the_launch_returns_without_an_error():
    child = cuda_child("plain")
    assert child.returncode == 3, child.stderr  # the child's `except` ran
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


@pytest.mark.gpu
def test_gpu_launch_blocking_points_at_the_launch_line():
    child = cuda_child("blocking")
    assert "launch returned" not in child.stdout.splitlines()
    assert after("failed at line ", child.stdout).startswith(f"{line_of(LAUNCH)}: gather_rows[(len(idx),)]")
    assert after("error: ", child.stdout) == f"RuntimeError: Triton Error [CUDA]: {ILLEGAL}"


@pytest.mark.gpu
def test_gpu_compute_sanitizer_names_the_kernel_and_the_line_of_the_bad_read():
    report = cuda_child("sanitizer").stdout + cuda_child("sanitizer").stderr
    assert re.search(r"Invalid __global__ read of size \d+ bytes", report)
    assert [int(n) for n in SANITIZER_FRAME.findall(report)][:1] == [line_of(BAD_READ)]


PROBES = ["torch.cuda.synchronize()", 'torch.zeros(4, device="cuda")', 'torch.ones(4).to("cuda")',
          "embed(...) with a valid index"]


@pytest.mark.gpu
@pytest.mark.parametrize("probe", PROBES)
def test_gpu_every_later_cuda_call_fails_with_the_same_error(probe):
    outcome = after(f"after the error: {probe}: ", cuda_child("plain").stdout)
    assert outcome.endswith(ILLEGAL), outcome


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def workflow_output() -> str:
    child = cuda_child("plain")  # raised by `.item()`: "CUDA error: ..." plus torch's note
    return child.stdout + child.stderr


def workflow_output_with_launch_blocking() -> str:
    child = cuda_child("blocking")  # raised by the launch: "Triton Error [CUDA]: ..."
    return child.stdout + child.stderr
