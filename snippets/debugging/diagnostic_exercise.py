"""TP016: the diagnostic exercise: a kernel with a stride bug, a mask/other gap and a bad BLOCK_SIZE.

Run it: ``python snippets/debugging/diagnostic_exercise.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import traceback

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:broken]
# Exercise: this kernel is wrong on purpose (y = x + 1)
@triton.jit
def broken_kernel(x_ptr, y_ptr, stride_x, stride_y, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    # TODO: fix the strides and other
    x = tl.load(x_ptr + offsets, mask=mask)
    y = x + 1.0
    tl.store(y_ptr + offsets, y, mask=mask)


def run_broken(x: torch.Tensor, BLOCK_SIZE=100) -> torch.Tensor:
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    N = x.numel()
    broken_kernel[(triton.cdiv(N, BLOCK_SIZE),)](x, y, x.stride(0), y.stride(0), N, BLOCK_SIZE=BLOCK_SIZE)
    return y
# --8<-- [end:broken]


# --8<-- [start:fix]
@triton.jit
def fixed_kernel(x_ptr, y_ptr, stride_x, stride_y, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)  # one row per program along axis 0 ...
    cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # ... column blocks along axis 1
    mask = cols < N  # N is the number of columns of one row
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)  # row stride, not numel
    tl.store(y_ptr + row * stride_y + cols, x + 1.0, mask=mask)


def run_fixed(x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
    assert x.dim() == 2 and x.stride(1) == 1, "rows may be strided; the elements of a row must be adjacent"
    M, N = x.shape
    y = poisoned(M, N) if y is None else y
    assert y.shape == x.shape and y.stride(1) == 1
    BLOCK_SIZE = min(triton.next_power_of_2(N), 1024)  # a power of two that covers a row
    fixed_kernel[(M, triton.cdiv(N, BLOCK_SIZE))](x, y, x.stride(0), y.stride(0), N, BLOCK_SIZE=BLOCK_SIZE)
    return y
# --8<-- [end:fix]


def strided_rows(rows=3, cols=5, row_stride=8, start=2):
    """x = base[:, start:start+cols], base holding 0, 1, 2, ... (exact in float32)."""
    base = torch.arange(rows * row_stride, dtype=torch.float32, device=DEVICE).view(rows, row_stride)
    return base, base[:, start:start + cols]


# --8<-- [start:test-broken]
def test_block_size_100_is_rejected_with_the_kernel_line():
    base, x = strided_rows()
    with pytest.raises((InterpreterError, CompilationError), match="arange's range must be a power of 2") as info:
        run_broken(x, BLOCK_SIZE=100)
    text = "".join(traceback.format_exception(info.value))  # names the kernel's line
    assert "offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)" in text


def test_with_a_power_of_two_the_stride_bug_runs_without_error_and_reads_the_wrong_elements():
    base, x = strided_rows(rows=3, cols=5, row_stride=8, start=2)
    y = run_broken(x, BLOCK_SIZE=128)  # no error on either backend
    # the kernel read the 15 floats that follow x's first element, padding columns included
    assert y.cpu().tolist() == [[3.0, 4.0, 5.0, 6.0, 7.0],
                                [8.0, 9.0, 10.0, 11.0, 12.0],
                                [13.0, 14.0, 15.0, 16.0, 17.0]]
    assert torch.equal(y.flatten(), base.flatten()[2:2 + 15] + 1)
    assert torch.equal(y[0], x[0] + 1) and not torch.equal(y[1:], x[1:] + 1)  # only row 0 is right


def test_the_missing_other_alone_does_no_harm_here():
    x = fresh_randn(1000)  # 1-D, contiguous: the only case the broken kernel handles
    y = run_broken(x, BLOCK_SIZE=128)  # masked lanes are never stored, so their value is unused
    assert_matches_float64(y, x.double() + 1)
# --8<-- [end:test-broken]


# The error message this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that this produces the message it is claimed for.
def broken_with_block_size_100():
    base, x = strided_rows()
    run_broken(x, BLOCK_SIZE=100)  # raises on both backends


# --8<-- [start:test-fix]
@pytest.mark.parametrize("shape", [(3, 5), (4, 100), (2, 1500)])
def test_fix_matches_float64_on_a_strided_input(shape):
    M, N = shape
    x = fresh_randn(M, N + 7)[:, 3:3 + N]  # non-contiguous: row stride N + 7
    assert_matches_float64(run_fixed(x), x.double() + 1)


def test_fix_writes_through_a_strided_output_and_nowhere_else():
    x = fresh_randn(4, 37)[:, 1:31]
    y_base = poisoned(4, 40)
    y = y_base[:, 5:35]  # row stride 40
    run_fixed(x, y)
    assert_matches_float64(y, x.double() + 1)
    untouched = torch.cat([y_base[:, :5], y_base[:, 35:]], dim=1)
    assert torch.isnan(untouched).all()
# --8<-- [end:test-fix]


def main():
    print(describe())
    base, x = strided_rows()
    print("x = base[:, 2:7] of a 3x8 arange:", x.cpu().tolist())
    try:
        run_broken(x, BLOCK_SIZE=100)
    except (InterpreterError, CompilationError) as error:
        print("BLOCK_SIZE=100:", str(error).splitlines()[-1])
    print("broken, BLOCK_SIZE=128:", run_broken(x, BLOCK_SIZE=128).cpu().tolist())
    print("fixed:                 ", run_fixed(x).cpu().tolist())


if __name__ == "__main__":
    main()
