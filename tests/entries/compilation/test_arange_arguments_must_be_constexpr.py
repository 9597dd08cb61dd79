"""TP077's claims, one test each: snippets/compilation/arange_arguments_must_be_constexpr.py."""

import pytest
import triton

from snippets.compilation import arange_arguments_must_be_constexpr as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

MESSAGE = "arange's arguments must be of type tl.constexpr"


def reproduce_unannotated_block():
    entry.double_rows(entry.double_pitfall, fresh_randn(3, 100), BLOCK=128)


def reproduce_runtime_length():
    entry.double_rows(entry.double_runtime_length, fresh_randn(3, 128))


def test_pitfall_unannotated_block_size_is_refused():
    with pytest.raises(Exception) as caught:
        reproduce_unannotated_block()
    assert MESSAGE in str(caught.value) or MESSAGE in repr(caught.value.__cause__)


def test_pitfall_a_run_time_length_is_refused_even_when_it_is_a_power_of_2():
    with pytest.raises(Exception) as caught:
        reproduce_runtime_length()
    assert MESSAGE in str(caught.value) or MESSAGE in repr(caught.value.__cause__)


@pytest.mark.parametrize("n_cols", [1, 37, 100, 128, 1000])
def test_fix_matches_float64(n_cols):
    x = fresh_randn(5, n_cols)
    got = entry.double_rows(entry.double_fixed, x, BLOCK=triton.next_power_of_2(n_cols))
    assert_matches_float64(got, 2 * x.double())
