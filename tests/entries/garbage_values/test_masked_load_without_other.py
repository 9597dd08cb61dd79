"""TP001's claims, one test each: snippets/garbage_values/masked_load_without_other.py."""

import pytest
import torch
import triton

from snippets.garbage_values import masked_load_without_other as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


def test_pitfall_max_is_zero_when_every_value_is_negative():
    x = -fresh_randn(8, 100).abs() - 0.5  # every value < -0.5; 100 columns in a block of 128
    assert torch.equal(entry.row_max(entry.row_max_pitfall, x).cpu(), torch.zeros(8))  # 28 masked lanes won with 0


def test_pitfall_min_is_zero_when_every_value_is_positive():
    """The mirror image: the same load with no `other` before tl.min."""
    x = fresh_randn(8, 100).abs() + 0.5
    n_rows, n_cols = x.shape
    out = poisoned(n_rows)
    kernel = _row_min_pitfall()
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK=128)
    assert torch.equal(out.cpu(), torch.zeros(8))


def _row_min_pitfall():
    import triton.language as tl

    @triton.jit
    def row_min_pitfall(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols)
        tl.store(out_ptr + row, tl.min(x, axis=0))

    return row_min_pitfall


@pytest.mark.parametrize("n_cols", [1, 37, 100, 128, 200])
def test_fix_matches_float64_reference(n_cols):
    for x in (fresh_randn(6, n_cols), -fresh_randn(6, n_cols).abs(), fresh_randn(6, n_cols).abs()):
        assert_matches_float64(entry.row_max(entry.row_max_fixed, x), x.double().amax(dim=1))


def test_fix_respects_the_row_stride_of_a_view():
    x = fresh_randn(6, 160)[:, 10:110]  # stride(0) == 160, 100 columns
    assert_matches_float64(entry.row_max(entry.row_max_fixed, x), x.double().amax(dim=1))


@pytest.mark.parametrize("n_cols", [1, 37, 128])
def test_min_and_sum_with_their_identities_match_float64(n_cols):
    for x in (-fresh_randn(5, n_cols).abs(), fresh_randn(5, n_cols).abs()):
        row_min, row_sum = poisoned(5), poisoned(5)
        entry.row_min_sum[(5,)](x, row_min, row_sum, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
        assert_matches_float64(row_min, x.double().amin(dim=1))
        assert_matches_float64(row_sum, x.double().sum(dim=1))


def test_sum_without_other_is_right_because_the_lanes_hold_zero():
    """The claim checked under 'What others say': sums survive the missing `other` today."""
    import triton.language as tl

    @triton.jit
    def row_sum_no_other(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        tl.store(out_ptr + row, tl.sum(tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols), axis=0))

    x = fresh_randn(8, 100)
    out = poisoned(8)
    row_sum_no_other[(8,)](x, out, 100, x.stride(0), BLOCK=128)
    assert_matches_float64(out, x.double().sum(dim=1))


def test_dot_with_masked_k_is_right_without_other():
    import triton.language as tl

    @triton.jit
    def matmul_one_tile(a_ptr, b_ptr, c_ptr, K, BLOCK_K: tl.constexpr):
        rows = tl.arange(0, 16)
        ks = tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=ks[None, :] < K)
        b = tl.load(b_ptr + ks[:, None] * 16 + rows[None, :], mask=ks[:, None] < K)
        tl.store(c_ptr + rows[:, None] * 16 + rows[None, :], tl.dot(a, b, input_precision="ieee"))

    K = 20
    a, b = fresh_randn(16, K), fresh_randn(K, 16)
    c = poisoned(16, 16)
    matmul_one_tile[(1,)](a, b, c, K, BLOCK_K=32)
    assert_matches_float64(c, a.double() @ b.double())


DTYPES = [torch.float32, torch.float16, torch.int32]


@pytest.mark.interpreter
@pytest.mark.parametrize("dtype", DTYPES)
def test_interpreter_fills_masked_lanes_with_zero(dtype):
    assert torch.equal(entry.masked_lane_values(dtype), torch.zeros(11, dtype=dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_compiled_cuda_fills_masked_lanes_with_zero(dtype):
    assert torch.equal(entry.masked_lane_values(dtype), torch.zeros(11, dtype=dtype))


def test_triton_3_6_docstring_says_nothing_about_a_missing_other():
    import triton.language as tl

    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(tl.load.__doc__.split())
    assert "if `mask[idx]` is false, return `other[idx]`" in doc
    assert "undefined" not in doc.split(":param other:")[1].split(":param")[0]
