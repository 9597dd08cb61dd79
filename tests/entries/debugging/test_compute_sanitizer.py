"""TP015's claims, one test each: snippets/debugging/compute_sanitizer.py."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import triton_checked
from snippets.debugging import compute_sanitizer as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

SNIPPET = Path(entry.__file__)


# ---------------------------------------------------------------- on every backend
def test_wrong_stride_silently_sums_every_other_row_of_the_buffer():
    buffer = entry.preallocated_buffer()
    out = poisoned(entry.ROWS)
    entry.row_sums_wrong_stride(buffer[:entry.ROWS], out)
    assert out.cpu().tolist() == buffer[::2].sum(dim=1).cpu().tolist()  # buffer rows 0, 2, ..., 14


def test_fix_row_stride_from_the_tensor_matches_float64():
    x = fresh_randn(2 * entry.ROWS * entry.COLS).reshape(2 * entry.ROWS, entry.COLS)[:entry.ROWS]
    out = poisoned(entry.ROWS)
    entry.row_sums_right_stride(x, out)
    assert_matches_float64(out, x.double().sum(dim=1))


@pytest.mark.parametrize("n", [1, 1000, 2048])
def test_masked_sum_matches_float64(n):
    x = fresh_randn(n).abs()  # positive, so the relative error of the sum stays small
    out = poisoned(1)
    entry.sum_with_mask[(1,)](x, out, n, BLOCK=entry.BLOCK)
    assert_matches_float64(out, x.double().sum().reshape(1))


# ---------------------------------------------------------------- on the interpreter
@pytest.mark.interpreter
def test_checked_reports_the_wrong_stride_where_it_leaves_the_view():
    x = entry.rows_of_a_buffer()
    with pytest.raises(triton_checked.OutOfBounds) as raised:
        with triton_checked.checked():
            entry.row_sums_wrong_stride(x, poisoned(entry.ROWS))
    report = str(raised.value)
    assert "out-of-bounds load in kernel row_sums at " in report
    assert "argument x_ptr: element offset 32 (4 lanes out of bounds, offsets 32..35)" in report
    assert "the tensor has 32 elements, valid offsets 0..31" in report


# ---------------------------------------------------------------- on the GPU
def find_sanitizer():
    found = shutil.which("compute-sanitizer")
    if found is None and Path("/usr/local/cuda/bin/compute-sanitizer").is_file():
        found = "/usr/local/cuda/bin/compute-sanitizer"
    if found is None:
        pytest.skip("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")
    return found


def run_snippet(mode, *prefix, **env):
    """python <the reader's file> <mode> in a child process, optionally under a tool (`prefix`)."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("PYTORCH_NO_CUDA_MEMORY_CACHING", "TRITON_INTERPRET")}
    result = subprocess.run([*prefix, sys.executable, str(SNIPPET), mode], capture_output=True, text=True,
                            timeout=540, env={**environ, **env})
    return result


def sanitize(mode="--overrun", **env):
    """compute-sanitizer --tool memcheck python <the reader's file> <mode>: its whole output."""
    result = run_snippet(mode, find_sanitizer(), "--tool", "memcheck", **env)
    return result.stdout + result.stderr


def overrun_line() -> int:
    lines = SNIPPET.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# OVERRUN:" in line and "tl.load" in line)


@pytest.mark.gpu
def test_gpu_the_overrun_goes_unnoticed_without_a_sanitizer():
    result = run_snippet("--overrun")
    assert result.returncode == 0, result.stderr
    assert "overrun kernel finished" in result.stdout


@pytest.mark.gpu
def test_gpu_memcheck_reports_0_errors_with_the_caching_allocator():
    report = sanitize()
    assert "overrun kernel finished" in report
    assert "ERROR SUMMARY: 0 errors" in report


@pytest.mark.gpu
def test_gpu_memcheck_reports_the_overrun_without_the_caching_allocator():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert re.search(r"ERROR SUMMARY: [1-9]\d* errors?", report)
    assert "Invalid __global__ read of size" in report


@pytest.mark.gpu
def test_gpu_memcheck_names_the_kernel():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert re.search(r"at sum_without_mask\+0x[0-9a-f]+", report)


@pytest.mark.gpu
def test_gpu_memcheck_names_the_python_line_of_the_load():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert f"{SNIPPET.name}:{overrun_line()}" in report


@pytest.mark.gpu
def test_gpu_memcheck_says_how_far_past_which_allocation():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert re.search(r"is \d+ bytes after the nearest allocation at 0x[0-9a-f]+ of size 4,000 bytes", report)


@pytest.mark.gpu
def test_gpu_memcheck_reports_0_errors_for_an_overrun_inside_the_same_allocation():
    report = sanitize("--wrong-stride", PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert "wrong-stride kernel finished" in report
    assert "ERROR SUMMARY: 0 errors" in report


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def memcheck_report_without_the_caching_allocator() -> str:
    return sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")  # skips when compute-sanitizer is missing


def memcheck_report_with_the_caching_allocator() -> str:
    return sanitize()  # the overrun, unseen: "ERROR SUMMARY: 0 errors"
