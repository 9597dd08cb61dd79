"""TP056's claims, one test each: snippets/debugging/deadlock_between_programs.py."""

import math

import pytest
import torch

from snippets.debugging import deadlock_between_programs as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

# Positive inputs (.abs()): a float32 sum of them is within a few ulps of the float64 one, with no
# cancellation that would make the relative error of a near-zero sum large.


@pytest.mark.interpreter
def test_interpreter_waiting_on_a_later_program_gives_up():
    """The interpreter runs program 0, 1, 2, 3 one after another: 0, 1 and 2 wait for 3, which has not run."""
    x = fresh_randn(16).abs()
    out, gave_up = entry.handoff(x, 4, producer_is_last=True)
    assert gave_up.tolist() == [1, 1, 1, 0]
    assert [math.isnan(v) for v in out.tolist()] == [True, True, True, False]
    assert_matches_float64(out[3:], x.double().sum().reshape(1))


@pytest.mark.interpreter
def test_interpreter_waiting_on_an_earlier_program_succeeds():
    x = fresh_randn(16).abs()
    out, gave_up = entry.handoff(x, 4, producer_is_last=False)
    assert gave_up.tolist() == [0, 0, 0, 0]
    assert_matches_float64(out, x.double().sum().expand(4))


@pytest.mark.interpreter
def test_interpreter_the_spin_is_bounded_on_a_larger_grid():
    """Sixteen programs, fifteen of them waiting on the last: the launch ends, fifteen gave up."""
    out, gave_up = entry.handoff(fresh_randn(16).abs(), 16, producer_is_last=True, max_spins=2)
    assert gave_up.tolist() == [1] * 15 + [0]


@pytest.mark.parametrize("n_programs", [1, 4, 16])
def test_fix_two_launches_match_float64(n_programs):
    x = fresh_randn(32).abs()
    assert_matches_float64(entry.handoff_fixed(x, n_programs), x.double().sum().expand(n_programs))


@pytest.mark.gpu
@pytest.mark.parametrize("producer_is_last", [True, False])
def test_gpu_few_programs_succeed_in_both_orders(producer_is_last):
    """Four programs fit on the GPU at once: the producer runs while the others wait, in either order."""
    x = fresh_randn(128).abs()
    out, gave_up = entry.handoff(x, 4, producer_is_last)
    assert gave_up.tolist() == [0, 0, 0, 0]
    assert_matches_float64(out, x.double().sum().expand(4))


@pytest.mark.gpu
def test_gpu_more_programs_than_fit_some_give_up_waiting_on_the_last():
    """64 programs per SM, four times what fits at once: programs of the first wave wait for one that cannot start."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    _, gave_up = entry.handoff(fresh_randn(128).abs(), 64 * sms, producer_is_last=True)
    assert int(gave_up.sum()) > 0


@pytest.mark.gpu
def test_gpu_more_programs_than_fit_none_give_up_waiting_on_program_0():
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = fresh_randn(128).abs()
    out, gave_up = entry.handoff(x, 64 * sms, producer_is_last=False)
    assert int(gave_up.sum()) == 0
    assert_matches_float64(out, x.double().sum().expand(64 * sms))
