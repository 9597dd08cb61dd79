"""TP003's claims, one test each: snippets/out_of_bounds/missing_tail_mask.py."""

import pytest
import torch

from snippets.out_of_bounds import missing_tail_mask as entry
from triton_faq.testing import assert_matches_float64, fresh_randn


def test_pitfall_last_block_reads_the_elements_after_the_input():
    # N = 10, BLOCK_SIZE = 8: two programs, the second covers offsets 8..15
    x, outbuf = entry.guarded_launch(entry.add_one_pitfall, fresh_randn(10), block_size=8)
    # offsets 10..15 read the 6 sentinels behind x, and the kernel added one to them
    assert outbuf[10:16].tolist() == [1001.0, 1002.0, 1003.0, 1004.0, 1005.0, 1006.0]


@pytest.mark.parametrize("n, overrun", [(10, 6), (13, 3), (16, 0)])
def test_pitfall_last_block_writes_the_elements_after_the_output(n, overrun):
    x, outbuf = entry.guarded_launch(entry.add_one_pitfall, fresh_randn(n), block_size=8)
    end = n + overrun  # the grid covers cdiv(n, 8) * 8 offsets
    assert not torch.isnan(outbuf[n:end]).any()  # overwritten: it was NaN
    assert torch.isnan(outbuf[end:]).all()  # nothing past the last block is touched
    assert_matches_float64(outbuf[:n], x.double() + 1)  # and the real result looks fine


def test_masking_only_the_load_still_writes_after_the_output():
    x, outbuf = entry.guarded_launch(entry.add_one_load_masked, fresh_randn(10), block_size=8)
    # the masked lanes load 0 (see TP001), so 0 + 1 lands on the 6 elements after out
    assert outbuf[10:16].tolist() == [1.0] * 6


@pytest.mark.parametrize("n", [1, 31, 32, 33, 100])
def test_fix_matches_float64_and_leaves_the_neighbours_alone(n):
    x, outbuf = entry.guarded_launch(entry.add_one, fresh_randn(n), block_size=32)
    assert_matches_float64(outbuf[:n], x.double() + 1)
    assert torch.isnan(outbuf[n:]).all()
