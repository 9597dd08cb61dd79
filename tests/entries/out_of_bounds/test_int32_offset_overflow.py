"""TP024's claims, one test each: snippets/out_of_bounds/int32_offset_overflow.py.

TRITON_DEBUG=1 runs happen in a child process (`entry.run_child`): a failed device assert
leaves the CUDA context unusable. This file also holds the `reproduce:` function of the page.
"""

from triton_faq.backend import DEVICE  # picks the backend before Triton loads

import functools
import re
import warnings
from pathlib import Path

import pytest
import torch
import triton

from snippets.out_of_bounds import int32_offset_overflow as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

STRIDE = entry.STRIDE
OVERFLOW_MUL = "int32 overflow detected for operation mul"
MUL_LINE = "# <- int32 * int32 when stride < 2**31"


def wrap_int32(value: int) -> int:
    """`value` as a two's-complement int32 wraps it."""
    return (value + 2**31) % 2**32 - 2**31


# ---------------------------------------------------------------- on every backend
def test_program_id_is_int32_and_int_arguments_are_int32_below_2_31():
    entry.check_types[(1,)](2**31 - 1, STRIDE_IS_INT64=False)
    entry.check_types[(1,)](2**31, STRIDE_IS_INT64=True)


def test_pitfall_pid_times_stride_wraps_around_in_int32():
    assert entry.offsets(entry.row_offsets, STRIDE) == [0, 1073741825, -2147483646, -1073741821]
    assert entry.offsets(entry.row_offsets, STRIDE) == [wrap_int32(pid * STRIDE) for pid in range(4)]


def test_pitfall_the_largest_int32_stride_wraps_too():
    assert entry.offsets(entry.row_offsets, 2**31 - 1) == [0, 2147483647, -2, 2147483645]


def test_a_stride_of_2_31_or_more_is_int64_so_the_same_code_is_right():
    assert entry.offsets(entry.row_offsets, 2**31) == [pid * 2**31 for pid in range(4)]


def test_fix_int64_program_id_gives_the_true_offsets():
    assert entry.offsets(entry.row_offsets_int64, STRIDE) == [0, 1073741825, 2147483650, 3221225475]
    assert entry.offsets(entry.row_offsets_int64, STRIDE) == [pid * STRIDE for pid in range(4)]


@pytest.mark.parametrize("kernel", ["scale_pitfall", "scale"], ids=["pitfall", "fix"])
@pytest.mark.parametrize("n", [1, 1000, 4096 + 7])
def test_both_kernels_are_right_on_small_tensors(kernel, n):
    x = fresh_randn(n)
    y = poisoned(n)
    getattr(entry, kernel)[(triton.cdiv(n, 1024),)](x, y, n, 2.5, BLOCK=1024)
    assert_matches_float64(y, x.double() * 2.5)


# ---------------------------------------------------------------- TRITON_DEBUG=1, in a child process
@functools.lru_cache(maxsize=None)
def debug_child(kernel: str):
    """The offsets kernel (`int32` or `int64`) run once with TRITON_DEBUG=1."""
    return entry.run_child(*(["--int64"] if kernel == "int64" else []), TRITON_DEBUG="1")


def line_of(marker: str) -> int:
    lines = Path(entry.__file__).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.rstrip().endswith(marker))


@pytest.mark.interpreter
def test_interpreter_wraps_without_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert entry.offsets(entry.row_offsets, STRIDE) == [0, 1073741825, -2147483646, -1073741821]
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []  # numpy says nothing


@pytest.mark.interpreter
def test_interpreter_triton_debug_does_not_catch_the_overflow():
    child = debug_child("int32")
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["offsets: [0, 1073741825, -2147483646, -1073741821]"]


@pytest.mark.gpu
def test_gpu_triton_debug_reports_the_overflow():
    child = debug_child("int32")
    assert child.returncode != 0
    assert f"Assertion `{OVERFLOW_MUL}` failed" in child.stdout + child.stderr
    assert "device-side assert triggered" in child.stderr


@pytest.mark.gpu
def test_gpu_triton_debug_names_the_line_of_the_multiplication():
    child = debug_child("int32")
    lines = re.findall(rf"int32_offset_overflow\.py:(\d+): .*Assertion `{OVERFLOW_MUL}` failed",
                       child.stdout + child.stderr)
    assert lines and set(lines) == {str(line_of(MUL_LINE))}


@pytest.mark.gpu
def test_gpu_triton_debug_is_quiet_for_the_int64_fix():
    child = debug_child("int64")
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["offsets: [0, 1073741825, 2147483650, 3221225475]"]


# ---------------------------------------------------------------- beyond 2**31 elements, on the GPU
@functools.lru_cache(maxsize=None)
def launch_big(name: str) -> dict:
    return entry.launch_big(getattr(entry, name))


@pytest.mark.gpu
def test_gpu_pitfall_leaves_the_last_block_unwritten():
    r = launch_big("scale_pitfall")
    assert torch.isnan(r["y_tail"][-entry.BLOCK:]).all()  # y[2**31:] never written
    assert_matches_float64(r["y_tail"][:-entry.BLOCK], r["x_tail"][:-entry.BLOCK].double() * 2)


@pytest.mark.gpu
def test_gpu_pitfall_writes_the_last_block_2_31_elements_before_y():
    r = launch_big("scale_pitfall")
    assert torch.equal(r["y_before"], r["x_before"] * 2)  # y[-2**31 : -2**31 + BLOCK] = 2 * x[-2**31 : ...]
    assert r["rest_before_y_is_nan"]


@pytest.mark.gpu
def test_gpu_fix_writes_exactly_y():
    r = launch_big("scale")
    assert_matches_float64(r["y_tail"], r["x_tail"].double() * 2)
    assert r["y_middle_is_zero"]
    assert torch.isnan(r["y_before"]).all() and r["rest_before_y_is_nan"]  # nothing written before y


# The error message this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that this produces the message it is claimed for.
def overflow_with_triton_debug() -> str:
    child = debug_child("int32")
    return child.stdout + child.stderr
