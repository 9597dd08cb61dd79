"""TP022's claims, one test each: snippets/math_functions/hand_written_tanh_overflow.py."""

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from snippets.math_functions import hand_written_tanh_overflow as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn

NUMPY_OVERFLOW = pytest.mark.filterwarnings(
    "ignore:overflow encountered in exp:RuntimeWarning", "ignore:invalid value encountered in divide:RuntimeWarning"
)


@NUMPY_OVERFLOW
def test_pitfall_is_nan_from_44_37_up_in_steps_of_0_01():
    x = torch.linspace(44.0, 45.0, 101, device=DEVICE)  # 44.00, 44.01, ..., 45.00
    is_nan = torch.isnan(entry.launch(entry.tanh_kernel, x)).cpu()
    assert not is_nan[:37].any()  # up to 44.36: finite
    assert is_nan[37:].all()  # from 44.37 on: NaN, and it stays NaN
    # float32 itself: exp(2x) is finite at 44.36 and inf at 44.37, where the kernel turned NaN
    assert torch.isfinite(torch.exp(2 * x[36:37].cpu())).all() and torch.isinf(torch.exp(2 * x[37:38].cpu())).all()


@NUMPY_OVERFLOW
def test_hand_written_tanh_is_nan_from_44_4_up_and_at_inf():
    y = entry.launch(entry.tanh_kernel, entry.edges()).cpu()
    is_nan = [math.isnan(v) for v in y.tolist()]
    # -inf -100  -45   -44    44    44.3   44.4  45    100   inf
    assert is_nan == [False, False, False, False, False, False, True, True, True, True]
    finite = ~torch.isnan(y)
    expected = torch.tanh(entry.edges().cpu())  # exactly -1 or 1 at these inputs
    assert ((y[finite] - expected[finite]).abs() <= 2**-22).all()  # within 2 float32 steps of +-1


def test_torch_tanh_is_plus_or_minus_one_on_the_same_inputs():
    assert torch.tanh(entry.edges()).cpu().tolist() == [-1.0] * 4 + [1.0] * 6


@pytest.mark.interpreter
@NUMPY_OVERFLOW
def test_interpreter_gives_exactly_numpys_float32_answer():
    y = entry.launch(entry.tanh_kernel, entry.edges()).numpy()
    x = np.array(entry.EDGES, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        by_numpy = (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1)
    assert by_numpy.dtype == np.float32
    np.testing.assert_array_equal(y, by_numpy)  # NaN where NaN, bit for bit elsewhere
    nan = math.nan
    np.testing.assert_array_equal(y, [-1.0, -1.0, -1.0, -1.0, 1.0, 1.0, nan, nan, nan, nan])


@pytest.mark.interpreter
def test_interpreter_warns_where_exp_overflows():
    with pytest.warns(RuntimeWarning, match="overflow encountered in exp"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "invalid value encountered in divide", RuntimeWarning)
            entry.launch(entry.tanh_kernel, entry.edges())


def pitfall_warnings() -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entry.launch(entry.tanh_kernel, entry.edges())
    return caught


@pytest.mark.interpreter
def test_both_warnings_point_into_triton_not_at_the_kernel():
    caught = pitfall_warnings()
    assert {(w.category, str(w.message)) for w in caught} == {
        (RuntimeWarning, "overflow encountered in exp"),  # exp(2x) = inf
        (RuntimeWarning, "invalid value encountered in divide"),  # inf / inf = NaN
    }
    assert all(Path(w.filename).parts[-3:] == ("triton", "runtime", "interpreter.py") for w in caught)


def reproduce_numpy_warnings_on_the_interpreter() -> str:
    """The warnings the pitfall prints under TRITON_INTERPRET=1, formatted as Python prints them."""
    return "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in pitfall_warnings())


def hard_inputs() -> torch.Tensor:
    """Fresh random values scaled by 30, plus huge and infinite ones."""
    largest = torch.finfo(torch.float32).max
    specials = [0.0, 44.4, -44.4, 45.0, -45.0, 100.0, -100.0, 1e30, -1e30, largest, -largest, math.inf, -math.inf]
    return torch.cat([fresh_randn(1000) * 30, torch.tensor(specials, device=DEVICE)])


@pytest.mark.filterwarnings("ignore:overflow encountered in multiply:RuntimeWarning")  # -2 * 3.4e38 = -inf
def test_stable_tanh_matches_float64_everywhere():
    wide = hard_inputs()
    assert (wide.abs() > 44.4).sum() > 50  # plenty of inputs past the edge
    for x in (fresh_randn(1000), wide):
        y = entry.launch(entry.tanh_stable_kernel, x)
        assert not torch.isnan(y).any()
        assert_matches_float64(y, torch.tanh(x.double()))
        assert (y.double() - torch.tanh(x.double())).abs().max().item() < 1e-6


def test_stable_tanh_is_plus_or_minus_one_where_the_hand_written_one_was_nan():
    y = entry.launch(entry.tanh_stable_kernel, entry.edges()).cpu()
    assert ((y - torch.tanh(entry.edges().cpu())).abs() <= 2**-22).all()


def test_stable_tanh_loses_relative_accuracy_near_zero():
    x = torch.tensor([1e-7], device=DEVICE)
    y = entry.launch(entry.tanh_stable_kernel, x).double().cpu()
    reference = torch.tanh(x.double()).cpu()
    assert (y - reference).abs().item() < 1e-6  # tiny in absolute terms ...
    assert ((y - reference).abs() / reference).item() > 0.01  # ... but more than 1% of the answer


@pytest.mark.gpu
def test_libdevice_tanh_keeps_relative_accuracy_near_zero_on_gpu():
    x = torch.tensor([1e-7, -1e-7, 1e-5, 1e-3, 0.1], device=DEVICE)
    y = entry.launch(entry.tanh_libdevice_kernel, x).double().cpu()
    reference = torch.tanh(x.double()).cpu()
    assert ((y - reference).abs() / reference.abs()).max().item() < 1e-6
