"""TP001: `tl.max` returns 0 because a masked `tl.load` had no `other`.

Run it: ``python snippets/garbage_values/masked_load_without_other.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def row_stats_pitfall(x_ptr, max_ptr, min_ptr, sum_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols)  # no `other`
    tl.store(max_ptr + row, tl.max(x, axis=0))
    tl.store(min_ptr + row, tl.min(x, axis=0))
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_stats(x_ptr, max_ptr, min_ptr, sum_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    ptrs = x_ptr + row * stride_row + cols
    # `other` is the identity of the reduction that follows
    row_max = tl.max(tl.load(ptrs, mask=mask, other=-float("inf")), axis=0)
    row_min = tl.min(tl.load(ptrs, mask=mask, other=float("inf")), axis=0)
    row_sum = tl.sum(tl.load(ptrs, mask=mask, other=0.0), axis=0)
    tl.store(max_ptr + row, row_max)
    tl.store(min_ptr + row, row_min)
    tl.store(sum_ptr + row, row_sum)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x: torch.Tensor):
    """Per-row max, min and sum of a 2-D tensor with one program per row."""
    n_rows, n_cols = x.shape
    out = [poisoned(n_rows) for _ in range(3)]  # NaN until written
    kernel[(n_rows,)](x, *out, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:masked-lanes]
@triton.jit
def copy_block_masked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # lanes n..BLOCK-1 are masked off
    tl.store(out_ptr + offs, x)  # store every lane, masked ones too


def masked_lane_values(dtype=torch.float32, n=5, block=16, sentinel=77):
    """What a masked load without `other` leaves in the masked lanes.

    The input is a view of `n` elements at the start of a buffer filled with `sentinel`,
    so a lane that read memory anyway would show the sentinel.
    """
    buffer = torch.full((block,), sentinel, dtype=dtype, device=DEVICE)
    out = torch.full((block,), sentinel + 1, dtype=dtype, device=DEVICE)
    copy_block_masked[(1,)](buffer[:n], out, n, BLOCK=block)
    return out[n:].cpu()
# --8<-- [end:masked-lanes]


# --8<-- [start:test-pitfall]
def test_pitfall_max_is_zero_when_every_value_is_negative():
    x = -fresh_randn(8, 100).abs() - 0.5  # every value < -0.5; 100 columns in a block of 128
    row_max, _, _ = launch(row_stats_pitfall, x)
    assert torch.equal(row_max.cpu(), torch.zeros(8))  # the 28 masked lanes won with 0


def test_pitfall_min_is_zero_when_every_value_is_positive():
    x = fresh_randn(8, 100).abs() + 0.5
    _, row_min, _ = launch(row_stats_pitfall, x)
    assert torch.equal(row_min.cpu(), torch.zeros(8))
# --8<-- [end:test-pitfall]


# --8<-- [start:test-sum]
def test_pitfall_sum_is_right_because_zero_is_the_identity_of_sum():
    x = fresh_randn(8, 100)
    _, _, row_sum = launch(row_stats_pitfall, x)
    assert_matches_float64(row_sum, x.double().sum(dim=1))
# --8<-- [end:test-sum]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n_cols", [1, 37, 100, 128, 200])
def test_fix_matches_float64_reference(n_cols):
    for x in (fresh_randn(6, n_cols), -fresh_randn(6, n_cols).abs(), fresh_randn(6, n_cols).abs()):
        row_max, row_min, row_sum = launch(row_stats, x)
        reference = x.double()
        assert_matches_float64(row_max, reference.amax(dim=1))
        assert_matches_float64(row_min, reference.amin(dim=1))
        assert_matches_float64(row_sum, reference.sum(dim=1))


def test_fix_respects_the_row_stride_of_a_view():
    wide = fresh_randn(6, 160)
    x = wide[:, 10:110]  # stride(0) == 160, 100 columns
    row_max, row_min, row_sum = launch(row_stats, x)
    assert_matches_float64(row_max, x.double().amax(dim=1))
    assert_matches_float64(row_min, x.double().amin(dim=1))
    assert_matches_float64(row_sum, x.double().sum(dim=1))
# --8<-- [end:test-fix]


# --8<-- [start:dot]
@triton.jit
def matmul_one_tile(a_ptr, b_ptr, c_ptr, K, BLOCK_K: tl.constexpr):
    # One 16x16 output tile; K is padded up to BLOCK_K with masked loads and no `other`.
    rows = tl.arange(0, 16)
    ks = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=ks[None, :] < K)
    b = tl.load(b_ptr + ks[:, None] * 16 + rows[None, :], mask=ks[:, None] < K)
    tl.store(c_ptr + rows[:, None] * 16 + rows[None, :], tl.dot(a, b, input_precision="ieee"))
# --8<-- [end:dot]


def test_dot_with_masked_k_is_right_without_other():
    K = 20
    a, b = fresh_randn(16, K), fresh_randn(K, 16)
    c = poisoned(16, 16)
    matmul_one_tile[(1,)](a, b, c, K, BLOCK_K=32)
    assert_matches_float64(c, a.double() @ b.double())


# --8<-- [start:test-masked-lanes]
DTYPES = [torch.float32, torch.float16, torch.int32]


@pytest.mark.interpreter
@pytest.mark.parametrize("dtype", DTYPES)
def test_interpreter_fills_masked_lanes_with_zero(dtype):
    assert torch.equal(masked_lane_values(dtype), torch.zeros(11, dtype=dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_compiled_cuda_fills_masked_lanes_with_zero(dtype):
    assert torch.equal(masked_lane_values(dtype), torch.zeros(11, dtype=dtype))
# --8<-- [end:test-masked-lanes]


# --8<-- [start:test-docs]
def test_triton_3_6_docstring_says_nothing_about_a_missing_other():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(tl.load.__doc__.split())
    assert "if `mask[idx]` is false, return `other[idx]`" in doc
    assert "undefined" not in doc.split(":param other:")[1].split(":param")[0]
# --8<-- [end:test-docs]


@gpu_evidence("masked-lanes")
def observe_masked_lanes():
    """What compiled code leaves in masked lanes, with a sentinel of 77 in the memory behind them."""
    rows = []
    for dtype in DTYPES:
        values = masked_lane_values(dtype)
        rows.append([str(dtype).removeprefix("torch."), sorted(set(values.tolist())), bool((values == 77).any())])
    return table(
        [label("dtype", "dtype"), label("values in the 11 masked lanes", "11 个被掩掉位置上的值"),
         label("sentinel 77 read from memory", "读到了内存里的哨兵值 77")],
        rows,
    )


def main():
    print(describe())
    x = -fresh_randn(4, 100).abs() - 0.5
    print("all-negative rows, 100 columns in a block of 128")
    print("  reference max:", x.double().amax(dim=1).cpu().tolist())
    print("  pitfall   max:", launch(row_stats_pitfall, x)[0].cpu().tolist())
    print("  fix       max:", launch(row_stats, x)[0].cpu().tolist())
    print("masked lanes without `other` hold:", masked_lane_values().tolist())


if __name__ == "__main__":
    main()
