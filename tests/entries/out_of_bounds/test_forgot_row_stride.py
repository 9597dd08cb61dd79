"""TP002's claims, one test each: snippets/out_of_bounds/forgot_row_stride.py."""

import pytest
import torch

from snippets.out_of_bounds import forgot_row_stride as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn

SENTINEL = 1000.0


def test_pitfall_row_i_is_row_0_shifted_by_i_elements():
    x = fresh_randn(4, 6)  # contiguous: stride_row == 6
    flat = x.flatten()
    out = entry.launch(entry.copy_rows_pitfall, x)
    # "row" i is the 6 elements that start i elements into the tensor:
    # row 0 from column i on, then the first i elements of row 1
    expected = torch.stack([flat[i : i + 6] for i in range(4)])
    assert torch.equal(out.cpu(), expected.cpu())
    assert torch.equal(out[0].cpu(), x[0].cpu())  # row 0 is right, which hides the bug


def test_pitfall_never_reads_past_the_end_of_the_tensor():
    n_rows, n_cols = 4, 6
    buffer = torch.full((n_rows * n_cols + 64,), SENTINEL, device=DEVICE)
    buffer[: n_rows * n_cols] = fresh_randn(n_rows * n_cols)
    x = buffer[: n_rows * n_cols].view(n_rows, n_cols)  # the 64 elements behind x hold SENTINEL
    out = entry.launch(entry.copy_rows_pitfall, x)
    # The last element read is flat index (n_rows - 1) + (n_cols - 1), far below n_rows * n_cols
    assert not (out == SENTINEL).any()
    assert not torch.isnan(out).any()  # and every element was written: no crash, wrong values


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
    assert_matches_float64(entry.launch(entry.copy_rows, x), x.double())
