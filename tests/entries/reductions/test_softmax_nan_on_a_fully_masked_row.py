"""TP069's claims, one test each: snippets/reductions/softmax_nan_on_a_fully_masked_row.py."""

import pytest
import torch

from snippets.reductions import softmax_nan_on_a_fully_masked_row as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's warnings for inf - inf under the interpreter


def masks(n_rows, n_cols, empty_rows=(1, 4)):
    """A random keep-mask with some rows entirely masked out."""
    keep = (fresh_randn(n_rows, n_cols) > -0.3).to(torch.int32)
    keep[list(empty_rows)] = 0
    return keep


def reference(s, keep, dp):
    """float64 softmax over the kept scores (0 on an empty row) and its gradient dS = P * (dP - sum(P * dP))."""
    s64 = s.double().masked_fill(keep == 0, float("-inf"))
    m = s64.amax(dim=1, keepdim=True).nan_to_num(neginf=0.0)
    e = (s64 - m).exp()
    p = e / e.sum(dim=1, keepdim=True).clamp_min(torch.finfo(torch.float64).tiny)
    return p, p * (dp.double() - (p * dp.double()).sum(dim=1, keepdim=True))


# -- the pitfall

def test_pitfall_fully_masked_row_gives_nan_and_only_that_row():
    s, keep = fresh_randn(6, 100), masks(6, 100)
    p, lse = entry.softmax(entry.masked_softmax, s, keep)
    for row in range(6):
        assert bool(p[row].isnan().all()) == (row in (1, 4)), row
    assert lse[[1, 4]].isnan().all()  # the sum of NaN is NaN, and so is m + log(sum)


def test_pitfall_nan_reaches_the_backward_pass():
    s, keep, dp = fresh_randn(6, 100), masks(6, 100), fresh_randn(6, 100)
    _, lse = entry.softmax(entry.masked_softmax, s, keep)
    ds = entry.backward(s, keep, lse, dp)
    assert ds[[1, 4]].isnan().all()
    assert not ds[[0, 2, 3, 5]].isnan().any()


def test_pitfall_minus_inf_minus_minus_inf_is_nan():
    minus_inf = torch.tensor(float("-inf"))
    assert torch.exp(minus_inf - minus_inf).isnan()


def test_torch_softmax_of_an_all_minus_inf_row_is_nan_too():
    """Why "the reference does it too" does not clear the kernel."""
    assert torch.softmax(torch.full((2, 8), float("-inf"), dtype=torch.float64), dim=1).isnan().all()


def test_pitfall_float16_without_the_max_overflows_to_nan():
    s = torch.full((2, 64), 12.0, dtype=torch.float16, device=fresh_randn(1).device)  # exp(12) = 162755 > 65504
    assert entry.softmax_no_max(s).isnan().all()


# -- the fix

@pytest.mark.parametrize("n_cols", [1, 37, 100, 256])
def test_fix_matches_float64_with_empty_rows(n_cols):
    s, keep, dp = fresh_randn(6, n_cols), masks(6, n_cols), fresh_randn(6, n_cols)
    p, lse = entry.softmax(entry.masked_softmax_safe, s, keep)
    p_ref, ds_ref = reference(s, keep, dp)
    assert_matches_float64(p, p_ref)
    assert torch.equal(p[[1, 4]].cpu(), torch.zeros(2, n_cols))  # an empty row is all 0, not NaN
    assert_matches_float64(entry.backward(s, keep, lse, dp), ds_ref)


def test_fix_float16_scores_of_any_size_stay_finite():
    """Scores far above 11.09 and a long row, in float16: the max subtracted and float32 math keep them finite."""
    s = (fresh_randn(4, 4096) * 4 + 20).to(torch.float16)
    keep = torch.ones_like(s, dtype=torch.int32)
    p, _ = entry.softmax(entry.masked_softmax_safe, s, keep)
    assert torch.isfinite(p).all()
    assert_matches_float64(p, torch.softmax(s.double(), dim=1))


def test_main_prints_nan_for_the_pitfall_and_zeros_for_the_fix(capsys):
    entry.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "pitfall probabilities of the fully masked row: [nan, nan, nan, nan]; its gradient: [nan, nan, nan, nan]"
    assert lines[1] == "fixed   probabilities of the fully masked row: [0.0, 0.0, 0.0, 0.0]; its gradient: [0.0, 0.0, 0.0, 0.0]"
