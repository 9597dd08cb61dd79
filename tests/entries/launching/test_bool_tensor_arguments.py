"""TP053's claims, one test each: snippets/launching/bool_tensor_arguments.py."""

import pytest
import torch

from snippets.launching import bool_tensor_arguments as entry
from triton_faq.testing import fresh_randn


def _rows_with_positive_counts(counts, n_cols):
    """Rows of fresh random values with exactly counts[i] values > 0 in row i, at random places."""
    x = -(fresh_randn(len(counts), n_cols).abs() + 0.1)
    for row, count in enumerate(counts):
        x[row, torch.randperm(n_cols)[:count]] *= -1
    return x


def test_pitfall_reports_false_for_rows_whose_count_is_a_multiple_of_256():
    x = _rows_with_positive_counts([256, 100, 512, 1, 257], n_cols=512)
    out = entry.row_has_positive_values(entry.row_has_positive_pitfall, x)
    assert out.view(torch.uint8).tolist() == [0, 100, 0, 1, 1]  # the low byte of each count
    assert out.tolist() == [False, True, False, True, True]


@pytest.mark.parametrize("n_cols", [1, 37, 256, 512])
def test_fix_matches_the_reference_and_writes_only_zero_and_one(n_cols):
    x = fresh_randn(6, n_cols) - 1.5  # some rows with no positive value at all
    x[0] = fresh_randn(n_cols).abs() + 0.1  # a row that is all positive
    out = entry.row_has_positive_values(entry.row_has_positive, x)
    assert torch.equal(out.cpu(), (x.double() > 0).any(dim=1).cpu())
    assert set(out.view(torch.uint8).tolist()) <= {0, 1}  # the fill byte 7 is gone, and no byte above 1


def test_the_kernel_sees_int1_and_any_nonzero_byte_loads_as_true():
    """The static_asserts in the kernel pass (pointer to int1, load gives int1); bytes 2 and 255 load as 1."""
    seen, _ = entry.bytes_in_and_out([0, 1, 2, 255], torch.tensor([0, 0, 0, 0], dtype=torch.int32))
    assert seen == [0, 1, 1, 1]


def test_an_integer_stored_into_a_bool_tensor_keeps_its_low_byte():
    _, written = entry.bytes_in_and_out([0, 0, 0, 0], torch.tensor([2, 256, -1, 257], dtype=torch.int32))
    assert written == [2, 0, 255, 1]
    assert torch.tensor(written, dtype=torch.uint8).view(torch.bool).tolist() == [True, False, True, True]


def test_a_float_stored_into_a_bool_tensor_is_truncated_not_compared():
    _, written = entry.bytes_in_and_out([0, 0, 0, 0], torch.tensor([0.0, 0.5, 2.0, -1.0]))
    assert written == [0, 0, 2, 255]  # 0.5 -> 0 (False), where torch.tensor(0.5).bool() is True
    assert torch.tensor([0.0, 0.5, 2.0, -1.0]).bool().tolist() == [False, True, True, True]
