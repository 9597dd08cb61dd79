"""TP034's claims, one test each: snippets/reductions/argmax_ties.py."""

import pytest
import torch

from snippets.reductions import argmax_ties as entry


def many_ties(rows, cols):
    """Small integers as float32, fresh every call: every row holds its maximum several times."""
    generator = torch.Generator().manual_seed(torch.seed())
    return torch.randint(0, 4, (rows, cols), generator=generator).float().to(entry.DEVICE)


@pytest.mark.parametrize("cols", [4, 37, 128])
def test_fix_default_returns_the_first_maximum_like_torch(cols):
    x = many_ties(16, cols)
    assert entry.argmax_rows(entry.row_argmax, x) == torch.argmax(x.cpu(), dim=1).tolist()


@pytest.mark.parametrize("cols", [4, 37, 128])
def test_pitfall_tie_break_left_false_returns_a_maximum_but_not_always_the_first(cols):
    x = many_ties(16, cols).cpu()
    got = torch.tensor(entry.argmax_rows(entry.row_argmax_fast, x.to(entry.DEVICE)))
    assert torch.equal(x.gather(1, got[:, None])[:, 0], x.max(dim=1).values)  # always one of the tied maxima
    assert not torch.equal(got, torch.argmax(x, dim=1))  # but not the first one in every row


def test_torch_argmax_returns_the_nan():
    assert torch.argmax(torch.tensor(entry.WITH_NAN), dim=1).tolist() == [1, 3]


@pytest.mark.interpreter
def test_interpreter_a_nan_wins_like_in_torch():
    assert entry.argmax_rows(entry.row_argmax, torch.tensor(entry.WITH_NAN, device=entry.DEVICE)) == [1, 3]


@pytest.mark.gpu
def test_gpu_a_nan_does_not_win():
    assert entry.argmax_rows(entry.row_argmax, torch.tensor(entry.WITH_NAN, device=entry.DEVICE)) != [1, 3]


def test_triton_3_6_argmax_compares_indices_only_with_tie_break_left():
    import inspect

    import triton
    import triton.language.standard as standard

    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's source; installed: {triton.__version__}")
    combine = standard._argmax_combine
    source = " ".join(inspect.getsource(getattr(combine, "fn", combine)).split())  # the Python under @jit
    assert ("if tie_break_left: tie = value1 == value2 and index1 < index2 else: tie = False "
            "gt = value1 > value2 or tie") in source
    assert "i_ret = core.where(gt, index1, index2)" in source  # not greater: the second of the pair
