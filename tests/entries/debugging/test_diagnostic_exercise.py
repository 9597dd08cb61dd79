"""TP016's claims, one test each: snippets/debugging/diagnostic_exercise.py."""

import traceback

import pytest
import torch
from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

from snippets.debugging import diagnostic_exercise as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


def test_block_size_100_is_rejected_with_the_kernel_line():
    base, x = entry.strided_rows()
    with pytest.raises((InterpreterError, CompilationError), match="arange's range must be a power of 2") as info:
        entry.run_broken(x, BLOCK_SIZE=100)
    text = "".join(traceback.format_exception(info.value))  # names the kernel's line
    assert "offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)" in text


def test_with_a_power_of_two_the_stride_bug_runs_without_error_and_reads_the_wrong_elements():
    base, x = entry.strided_rows(rows=3, cols=5, row_stride=8, start=2)
    y = entry.run_broken(x, BLOCK_SIZE=128)  # no error on either backend
    # the kernel read the 15 floats that follow x's first element, padding columns included
    assert y.cpu().tolist() == [[3.0, 4.0, 5.0, 6.0, 7.0],
                                [8.0, 9.0, 10.0, 11.0, 12.0],
                                [13.0, 14.0, 15.0, 16.0, 17.0]]
    assert torch.equal(y.flatten(), base.flatten()[2:2 + 15] + 1)
    assert torch.equal(y[0], x[0] + 1) and not torch.equal(y[1:], x[1:] + 1)  # only row 0 is right


def test_the_missing_other_alone_does_no_harm_here():
    x = fresh_randn(1000)  # 1-D, contiguous: the only case the broken kernel handles
    y = entry.run_broken(x, BLOCK_SIZE=128)  # masked lanes are never stored, so their value is unused
    assert_matches_float64(y, x.double() + 1)


@pytest.mark.parametrize("shape", [(3, 5), (4, 100), (2, 1500)])
def test_fix_matches_float64_on_a_strided_input(shape):
    M, N = shape
    x = fresh_randn(M, N + 7)[:, 3:3 + N]  # non-contiguous: row stride N + 7
    assert_matches_float64(entry.run_fixed(x), x.double() + 1)


def test_fix_writes_through_a_strided_output_and_nowhere_else():
    x = fresh_randn(4, 37)[:, 1:31]
    y_base = poisoned(4, 40)
    y = y_base[:, 5:35]  # row stride 40
    entry.run_fixed(x, y)
    assert_matches_float64(y, x.double() + 1)
    untouched = torch.cat([y_base[:, :5], y_base[:, 35:]], dim=1)
    assert torch.isnan(untouched).all()
