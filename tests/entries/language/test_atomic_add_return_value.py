"""TP075's claims, one test each: snippets/language/atomic_add_return_value.py."""

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import atomic_add_return_value as entry
from triton_faq.testing import assert_matches_float64, fresh_randn


def test_pitfall_skips_the_first_slot_and_writes_past_the_count():
    x = fresh_randn(1000)
    out, count = entry.compact(entry.compact_pitfall, x)
    assert count == int((x > 0).sum())
    assert out[0].isnan()  # slot 0 never written
    assert not out[count].isnan()  # one value landed past the end of the compacted range


@pytest.mark.parametrize("n", [1, 100, 1000, 5000])
def test_fix_matches_float64(n):
    x = fresh_randn(n)
    out, count = entry.compact(entry.compact_fixed, x)
    positive = x.double()[x > 0]
    assert count == positive.numel()
    assert out[count:].isnan().all()
    assert_matches_float64(out[:count].sort().values, positive.sort().values)


def test_each_lane_on_one_address_gets_its_own_old_value():
    got, final = entry.lane_tickets(programs=4, BLOCK=8)
    assert sorted(got.tolist()) == list(range(32)) and final == 32


def test_active_lanes_get_the_old_value():
    old, counters = entry.masked_lanes(BLOCK=8, start=5)
    assert old[:4] == [5, 5, 5, 5] and counters == [6] * 4 + [5] * 4


@pytest.mark.interpreter
def test_interpreter_masked_lanes_return_the_added_value():
    old, _ = entry.masked_lanes(BLOCK=8, start=5)
    assert old[4:] == [1, 1, 1, 1]  # neither the memory (5) nor 0


def test_the_one_element_result_broadcasts_to_every_lane():
    """Triton issue 7402 (3.3.1, H100): only thread 0 got the old value; fixed by PR 7460."""
    assert entry.broadcast_ticket() == [[0] * 8, [2] * 8]


def test_docstring_says_old_value_acq_rel_and_gpu():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(tl.atomic_add.__doc__.split())
    assert "Return the data stored at :code:`pointer` before the atomic operation." in doc
    assert 'the function defaults to using "acq_rel" semantics' in doc
    assert 'The default value is "gpu".' in doc


@pytest.mark.gpu
def test_gpu_masked_lanes_return_zero():
    old, _ = entry.masked_lanes(BLOCK=8, start=5)
    assert old[4:] == [0, 0, 0, 0]  # not the memory (5), not the added value (1) as on the interpreter
