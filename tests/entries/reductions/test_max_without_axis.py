"""TP006's claims, one test each: snippets/reductions/max_without_axis.py."""

import inspect

import pytest
import torch
import triton
import triton.language as tl

from snippets.reductions import max_without_axis as entry
from triton_faq.testing import assert_matches_float64, fresh_randn


@pytest.mark.parametrize("n", [1, 37, 64])
def test_1d_max_without_axis_equals_axis_0(n):
    x = fresh_randn(n).abs()  # positive, so the relative error of the sum stays small
    no_axis, axis0, total = entry.launch_1d(x).cpu()  # the kernel static_asserts that tl.max(x) is a scalar
    assert no_axis == axis0  # the same scalar, bit for bit
    assert_matches_float64(no_axis.reshape(1), x.double().max().reshape(1))
    assert_matches_float64(total.reshape(1), x.double().sum().reshape(1))


def test_pitfall_2d_max_without_axis_is_the_max_of_the_whole_block():
    x = fresh_randn(6, 20)
    out = entry.launch_rows(entry.row_max_pitfall, x).cpu()
    assert torch.equal(out, torch.full((6,), float(x.max())))  # every row gets the tile's max, no error
    assert not torch.equal(out, x.cpu().amax(dim=1))


@pytest.mark.parametrize("shape", [(1, 1), (6, 20), (16, 32), (5, 100)])
def test_fix_axis_1_gives_one_max_per_row(shape):
    for x in (fresh_randn(*shape), -fresh_randn(*shape).abs()):
        assert_matches_float64(entry.launch_rows(entry.row_max, x), x.double().amax(dim=1))


def test_fix_respects_the_row_stride_of_a_view():
    x = fresh_randn(6, 64)[:, 5:45]
    assert_matches_float64(entry.launch_rows(entry.row_max, x), x.double().amax(dim=1))


def test_triton_3_6_docstring_says_none_reduces_all_dimensions():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    promise = ":param axis: the dimension along which the reduction should be done. If None, reduce all dimensions"
    assert promise in " ".join(tl.reduce.__doc__.split())
    # tl.max, tl.min, tl.sum get the same text from the decorator that writes their docstrings
    assert promise in " ".join(inspect.getsource(tl.core._add_reduction_docstr).split())


def test_triton_3_6_reduction_flattens_the_block_when_axis_is_none():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's source; installed: {triton.__version__}")
    from triton.language.semantic import TritonSemantic

    source = " ".join(inspect.getsource(TritonSemantic.reduction).split())
    assert ("if axis is None: inputs = tuple(self.reshape(t, [t.numel.value], can_reorder=True) for t in inputs) "
            "axis = 0") in source
