"""TP002: reading row i as `ptr + row_idx` instead of `ptr + row_idx * stride_row`.

Run it: ``python snippets/out_of_bounds/forgot_row_stride.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def copy_rows_pitfall(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row_idx = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    row_start_ptr = x_ptr + row_idx  # forgot `* stride_row`
    x = tl.load(row_start_ptr + cols * stride_col, mask=mask)
    tl.store(out_ptr + row_idx * n_cols + cols, x, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def copy_rows(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row_idx = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    row_start_ptr = x_ptr + row_idx * stride_row  # a row is stride_row elements further on
    x = tl.load(row_start_ptr + cols * stride_col, mask=mask)
    tl.store(out_ptr + row_idx * n_cols + cols, x, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x: torch.Tensor) -> torch.Tensor:
    """Copy each row of the 2-D tensor `x` into a fresh contiguous output, one program per row."""
    n_rows, n_cols = x.shape
    out = poisoned(n_rows, n_cols)  # NaN until written
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:test-pitfall]
def test_pitfall_row_i_is_row_0_shifted_by_i_elements():
    x = fresh_randn(4, 6)  # contiguous: stride_row == 6
    flat = x.flatten()
    out = launch(copy_rows_pitfall, x)
    # "row" i is the 6 elements that start i elements into the tensor:
    # row 0 from column i on, then the first i elements of row 1
    expected = torch.stack([flat[i : i + 6] for i in range(4)])
    assert torch.equal(out.cpu(), expected.cpu())
    assert torch.equal(out[0].cpu(), x[0].cpu())  # row 0 is right, which hides the bug
# --8<-- [end:test-pitfall]


# --8<-- [start:test-inside]
SENTINEL = 1000.0


def test_pitfall_never_reads_past_the_end_of_the_tensor():
    n_rows, n_cols = 4, 6
    buffer = torch.full((n_rows * n_cols + 64,), SENTINEL, device=DEVICE)
    buffer[: n_rows * n_cols] = fresh_randn(n_rows * n_cols)
    x = buffer[: n_rows * n_cols].view(n_rows, n_cols)  # the 64 elements behind x hold SENTINEL
    out = launch(copy_rows_pitfall, x)
    # The last element read is flat index (n_rows - 1) + (n_cols - 1), far below n_rows * n_cols
    assert not (out == SENTINEL).any()
    assert not torch.isnan(out).any()  # and every element was written: no crash, wrong values
# --8<-- [end:test-inside]


# --8<-- [start:test-fix]
def views():
    wide = fresh_randn(5, 48)
    tall = fresh_randn(37, 5)
    return {
        "contiguous": fresh_randn(5, 37),
        "column slice (stride_row 48)": wide[:, 5:42],
        "transposed (stride_col 5)": tall.t(),
        "every other row": fresh_randn(10, 37)[::2],
    }


@pytest.mark.parametrize("name", list(views()))
def test_fix_matches_float64_on_every_layout(name):
    x = views()[name]
    assert_matches_float64(launch(copy_rows, x), x.double())
# --8<-- [end:test-fix]


def main():
    print(describe())
    x = torch.arange(24, dtype=torch.float32, device=DEVICE).view(4, 6)
    print("x = arange(24).view(4, 6)")
    print("pitfall (ptr + row_idx):")
    print(launch(copy_rows_pitfall, x).cpu())
    print("fix (ptr + row_idx * stride_row):")
    print(launch(copy_rows, x).cpu())
    t = torch.arange(24, dtype=torch.float32, device=DEVICE).view(6, 4).t()
    print("fix on a transposed view, strides", t.stride(), ":", torch.equal(launch(copy_rows, t).cpu(), t.cpu()))


if __name__ == "__main__":
    main()
