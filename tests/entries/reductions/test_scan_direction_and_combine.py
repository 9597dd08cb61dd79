"""TP054's claims, one test each: snippets/reductions/scan_direction_and_combine.py."""

import pytest
import torch

from snippets.reductions import scan_direction_and_combine as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn


def _small_integers(rows, n):
    """a in {1, 2} and x in {-2, ..., 2}: every partial result is an integer that float32 holds exactly."""
    g = torch.Generator().manual_seed(torch.seed())
    a = torch.randint(1, 3, (rows, n), generator=g).float()
    x = torch.randint(-2, 3, (rows, n), generator=g).float()
    return a.to(DEVICE), x.to(DEVICE)


def _stable_random(rows, n):
    """a in (0, 1) so the recurrence neither blows up nor vanishes; x standard normal."""
    return torch.sigmoid(fresh_randn(rows, n)), fresh_randn(rows, n)


def _mirror_reference(a, x):
    """What the swapped combine computes: y[i] = x[0] + a[0]*(x[1] + a[1]*(... + a[i-1]*x[i]))."""
    a, x = a.cpu().double(), x.cpu().double()
    y = torch.empty_like(x)
    for i in range(x.shape[1]):
        acc = x[:, i]
        for j in range(i - 1, -1, -1):
            acc = x[:, j] + a[:, j] * acc
        y[:, i] = acc
    return y


def test_pitfall_swapped_combine_computes_a_different_recurrence():
    a = torch.tensor([[1.0, 2.0, 1.0, 2.0]], device=DEVICE)
    x = torch.ones(1, 4, device=DEVICE)
    assert entry.run_recurrence(entry.recurrence_pitfall, a, x).tolist() == [[1.0, 2.0, 4.0, 6.0]]
    assert entry.recurrence_reference(a, x).tolist() == [[1.0, 3.0, 4.0, 9.0]]
    a, x = _small_integers(3, 16)
    wrong = entry.run_recurrence(entry.recurrence_pitfall, a, x).cpu().double()
    assert torch.equal(wrong, _mirror_reference(a, x))  # exactly the mirrored recurrence, element for element
    assert not torch.equal(wrong, entry.recurrence_reference(a, x))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("n", [16, 64])
def test_fix_matches_float64_reference(n, reverse):
    a, x = _stable_random(3, n)
    h = entry.run_recurrence(entry.recurrence, a, x, REVERSE=reverse)
    assert_matches_float64(h, entry.recurrence_reference(a, x, reverse=reverse))


def test_cumsum_reverse_is_the_suffix_sum():
    x = fresh_randn(3, 64)
    forward, backward = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))
    entry.cumsums[(3,)](x, forward, backward, N=64)
    x64 = x.cpu().double()
    assert_matches_float64(forward, x64.cumsum(dim=1))
    assert_matches_float64(backward, x64.flip(1).cumsum(dim=1).flip(1))
    assert_matches_float64(backward, x.flip(1).cumsum(dim=1).flip(1))  # and torch's float32 answer


@pytest.mark.interpreter
def test_interpreter_reverse_flag_gives_the_left_argument_the_later_elements():
    a = torch.tensor([[1.0, 2.0, 1.0, 2.0]], device=DEVICE)
    x = torch.ones(1, 4, device=DEVICE)
    assert entry.run_recurrence(entry.recurrence_reverse_flag, a, x).tolist() == [[6.0, 5.0, 2.0, 1.0]]
    a, x = _stable_random(3, 16)
    assert_matches_float64(entry.run_recurrence(entry.recurrence_reverse_flag, a, x),
                           entry.recurrence_reference(a, x, reverse=True))


@pytest.mark.gpu
@pytest.mark.parametrize("n, num_warps", [(4, 4), (32, 1), (128, 4), (1024, 8)])
def test_compiled_cuda_reverse_flag_gives_the_left_argument_the_later_elements(n, num_warps):
    """Triton 3.x lowers reverse=True as flip(scan(flip(x))); triton-lang/triton#4362 reported it wrong on 3.0."""
    a, x = _stable_random(4, n)
    h = entry.run_recurrence(entry.recurrence_reverse_flag, a, x, num_warps=num_warps)
    assert_matches_float64(h, entry.recurrence_reference(a, x, reverse=True))
