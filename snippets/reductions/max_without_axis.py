"""TP006: `tl.max(x)` without `axis` reduces over every axis, on 1-D and 2-D blocks.

Run it: ``python snippets/reductions/max_without_axis.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import inspect

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:one-d]
@triton.jit
def max_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    tl.store(out_ptr + 0, tl.max(x))          # no axis
    tl.store(out_ptr + 1, tl.max(x, axis=0))  # axis=0
    tl.store(out_ptr + 2, tl.sum(tl.where(offs < n, x, 0.0)))  # tl.sum without axis, too
# --8<-- [end:one-d]


# --8<-- [start:pitfall]
@triton.jit
def row_max_pitfall(x_ptr, out_ptr, n_rows, n_cols, stride_row,
                    ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=-float("inf"))
    row_max = tl.max(x)  # meant: one max per row
    tl.store(out_ptr + rows, row_max, mask=rows < n_rows)  # a scalar, broadcast to every row
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_max(x_ptr, out_ptr, n_rows, n_cols, stride_row,
            ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=-float("inf"))
    row_max = tl.max(x, axis=1)  # shape [ROWS]: one max per row
    tl.store(out_ptr + rows, row_max, mask=rows < n_rows)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch_1d(x):
    out = poisoned(3)
    max_1d[(1,)](x, out, x.numel(), BLOCK=triton.next_power_of_2(x.numel()))
    return out.cpu()


def launch_rows(kernel, x):
    n_rows, n_cols = x.shape
    out = poisoned(n_rows)
    kernel[(1,)](x, out, n_rows, n_cols, x.stride(0),
                 ROWS=triton.next_power_of_2(n_rows), COLS=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:test-one-d]
@pytest.mark.parametrize("n", [1, 37, 64])
def test_1d_max_without_axis_equals_axis_0(n):
    x = fresh_randn(n).abs()  # positive, so the relative error of the sum stays small
    no_axis, axis0, total = launch_1d(x)
    assert no_axis == axis0  # the same scalar, bit for bit
    assert_matches_float64(no_axis.reshape(1), x.double().max().reshape(1))
    assert_matches_float64(total.reshape(1), x.double().sum().reshape(1))
# --8<-- [end:test-one-d]


# --8<-- [start:test-pitfall]
def test_pitfall_2d_max_without_axis_is_the_max_of_the_whole_block():
    x = fresh_randn(6, 20)
    out = launch_rows(row_max_pitfall, x).cpu()
    assert torch.equal(out, torch.full((6,), float(x.max())))  # every row gets the block's max
    assert not torch.equal(out, x.cpu().amax(dim=1))
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("shape", [(1, 1), (6, 20), (16, 32), (5, 100)])
def test_fix_axis_1_gives_one_max_per_row(shape):
    for x in (fresh_randn(*shape), -fresh_randn(*shape).abs()):
        assert_matches_float64(launch_rows(row_max, x), x.double().amax(dim=1))


def test_fix_respects_the_row_stride_of_a_view():
    x = fresh_randn(6, 64)[:, 5:45]
    assert_matches_float64(launch_rows(row_max, x), x.double().amax(dim=1))
# --8<-- [end:test-fix]


# --8<-- [start:test-docs]
def test_triton_3_6_docstring_says_none_reduces_all_dimensions():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    promise = ":param axis: the dimension along which the reduction should be done. If None, reduce all dimensions"
    assert promise in " ".join(tl.reduce.__doc__.split())
    # tl.max, tl.min, tl.sum get the same text from the decorator that writes their docstrings
    assert promise in " ".join(inspect.getsource(tl.core._add_reduction_docstr).split())
# --8<-- [end:test-docs]


def main():
    print(describe())
    x = fresh_randn(37)
    no_axis, axis0, _ = launch_1d(x).tolist()
    print(f"1-D, 37 values: tl.max(x) = {no_axis}, tl.max(x, axis=0) = {axis0}")
    x = fresh_randn(4, 8)
    print("2-D, 4 rows x 8 columns")
    print("  reference row max  :", x.double().amax(dim=1).cpu().tolist())
    print("  tl.max(x)          :", launch_rows(row_max_pitfall, x).cpu().tolist())
    print("  tl.max(x, axis=1)  :", launch_rows(row_max, x).cpu().tolist())


if __name__ == "__main__":
    main()
