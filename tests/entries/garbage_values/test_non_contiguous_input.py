"""TP026's claims, one test each: snippets/garbage_values/non_contiguous_input.py."""

from triton_faq.backend import DEVICE  # picks the backend before Triton loads

import pytest
import torch

from snippets.garbage_values import non_contiguous_input as entry
from triton_faq.testing import assert_matches_float64, fresh_randn


def layouts():
    return entry.layouts(fresh_randn)


# ---------------------------------------------------------------- the pitfall
def test_pitfall_transpose_reads_the_original_row_major_order():
    x, a = layouts()["transpose"]
    out = entry.double_pitfall(x)
    assert torch.equal(out.cpu(), (2 * a).reshape(10, 6).cpu())  # a's storage, poured into x's shape
    assert not torch.equal(out.cpu(), (2 * x).cpu())


def test_pitfall_strided_slice_reads_the_skipped_columns():
    x, w = layouts()["every other column"]
    out = entry.double_pitfall(x)
    assert torch.equal(out.flatten().cpu(), 2 * w.flatten()[:60].cpu())  # the first 60 stored elements
    assert torch.equal(out[0].cpu(), 2 * w[0, :10].cpu())  # row 0: w[0, 0], w[0, 1], w[0, 2], ... skipped ones too


def test_pitfall_expand_reads_past_the_one_stored_row():
    x, buffer = layouts()["expand"]
    out = entry.double_pitfall(x)
    assert torch.equal(out[0].cpu(), 2 * buffer[:10].cpu())  # row 0 is right
    assert torch.equal(out[1:].cpu(), torch.full((5, 10), 2000.0))  # the rest: whatever follows in memory


def test_pitfall_channels_last_reads_nhwc_order():
    x, _ = layouts()["channels_last"]
    assert not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)
    out = entry.double_pitfall(x)
    nhwc = x.permute(0, 2, 3, 1)  # the order the elements are stored in
    assert torch.equal(out.cpu(), (2 * nhwc).reshape(x.shape).cpu())


# ---------------------------------------------------------------- the fixes
@pytest.mark.parametrize("name", ["transpose", "every other column", "expand", "channels_last"])
def test_fix_contiguous_matches_float64(name):
    x, _ = layouts()[name]
    assert_matches_float64(entry.double_contiguous(x), 2 * x.double())


@pytest.mark.parametrize("name", ["transpose", "every other column", "expand"])
def test_fix_strides_matches_float64(name):
    x, _ = layouts()[name]
    assert_matches_float64(entry.double_strided(x), 2 * x.double())


def test_contiguous_is_free_when_already_contiguous():
    a = fresh_randn(6, 10)
    assert a.contiguous() is a
    assert a.t().contiguous().data_ptr() != a.data_ptr()  # a transposed view is copied


# ---------------------------------------------------------------- the output's layout
def test_empty_like_keeps_the_strides_of_a_transposed_input():
    x = fresh_randn(6, 10).t()
    assert torch.empty_like(x).stride() == x.stride() == (1, 10)  # preserve_format: not contiguous
    assert torch.empty(x.shape, device=DEVICE).stride() == (6, 1)  # contiguous


def test_pitfall_kernel_that_assumes_a_row_major_output_scrambles_an_empty_like_output():
    x = fresh_randn(6, 10).t()  # (10, 6)
    out = torch.empty_like(x).fill_(float("nan"))  # strides (1, 10), like x
    entry.double_2d[(1, 1)](x, out, 10, 6, x.stride(0), x.stride(1), 6, 1,  # "out is row-major": wrong
                            BLOCK_M=16, BLOCK_N=16)
    # the right values were written in row-major order into memory that `out` reads column-major
    assert torch.equal(out.cpu(), (2 * x).reshape(6, 10).t().cpu())


def test_fix_strides_into_an_empty_like_output_matches_float64():
    x = fresh_randn(6, 10).t()
    out = torch.empty_like(x).fill_(float("nan"))
    assert_matches_float64(entry.double_strided(x, out), 2 * x.double())


def test_flat_kernel_is_right_when_input_and_output_share_a_dense_layout():
    # Elementwise only: storage slot i of out gets f(storage slot i of x)
    for x in (fresh_randn(6, 10).t(), fresh_randn(2, 3, 4, 5).to(memory_format=torch.channels_last)):
        out = torch.empty_like(x).fill_(float("nan"))
        entry.double_flat[(1,)](x, out, x.numel(), BLOCK=128)
        assert_matches_float64(out, 2 * x.double())


# ---------------------------------------------------------------- the guard
def test_guard_raises_on_a_non_contiguous_input():
    x = fresh_randn(6, 10).t()
    with pytest.raises(ValueError, match=r"needs a contiguous tensor, got shape \(10, 6\) with strides \(1, 10\)"):
        entry.double_checked(x)


def test_guard_lets_a_contiguous_input_through():
    x = fresh_randn(6, 10)
    assert_matches_float64(entry.double_checked(x), 2 * x.double())
