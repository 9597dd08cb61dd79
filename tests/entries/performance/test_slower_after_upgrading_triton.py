"""TP073's claims, one test each: snippets/performance/slower_after_upgrading_triton.py."""

import pytest

from snippets.performance import slower_after_upgrading_triton as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


def test_pitfall_goes_wrong_exactly_as_the_page_says():
    pytest.fail("TODO(new entry): assert the exact wrong value or error text")


def test_fix_matches_float64_reference():
    pytest.fail("TODO(new entry): compare with a float64 reference on fresh random inputs, output poisoned")
