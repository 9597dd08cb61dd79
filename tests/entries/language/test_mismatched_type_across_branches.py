"""TP042's claims, one test each: snippets/language/mismatched_type_across_branches.py.

The compiles without a GPU run in one fresh process (`in_fresh_process`), in a new empty cache.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
from triton.compiler.errors import CompilationError

from snippets.language import mismatched_type_across_branches as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

BRANCH = "Mismatched type for y between then block (<['128'], fp32>) and else block (<['128'], fp16>)"
THEN_ONLY = ("initial value for `y` is of type fp16[constexpr[128]], "
             "but the then block redefines it as fp32[constexpr[128]]")
LOOP = ("Loop-carried variable acc has initial type <['128'], fp16> but is re-assigned to <['128'], fp32> "
        "in loop! Please make sure that the type stays consistent.")


def offline_case(name):
    """Compile one kernel of the entry for sm_90 (run by `offline`, in a fresh process)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    try:
        entry.compile_for_h200(getattr(entry, name))
    except CompilationError as error:
        return {"line": str(error).splitlines()[0], "last": str(error).splitlines()[-1]}
    return "compiled"


CASES = ["scale_pitfall", "scale_in_place_pitfall", "row_sum_pitfall", "scale_fixed"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES)


def offline(case):
    return _offline_results()[case]["value"]


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_branch():
    return offline("scale_pitfall")["last"]


def reproduce_then_only():
    return offline("scale_in_place_pitfall")["last"]


# -- the pitfalls, compiled

def test_pitfall_branches_of_two_types_are_a_compile_error():
    assert offline("scale_pitfall") == {"line": "at 5:4:", "last": f"AssertionError(\"{BRANCH}\")"}


def test_pitfall_a_then_block_that_changes_the_type_is_a_compile_error():
    assert offline("scale_in_place_pitfall") == {"line": "at 5:4:", "last": f"AssertionError('{THEN_ONLY}')"}


def test_pitfall_a_loop_that_changes_the_accumulator_type_is_a_compile_error():
    assert offline("row_sum_pitfall") == {"line": "at 4:4:", "last": f"AssertionError(\"{LOOP}\")"}


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, message", [("scale_pitfall", BRANCH), ("scale_in_place_pitfall", THEN_ONLY)])
def test_gpu_the_branch_pitfalls_fail_at_the_first_launch(kernel, message):
    with pytest.raises(CompilationError, match=re.escape(message)):
        entry.scale(getattr(entry, kernel), fresh_randn(1000, dtype=torch.float16), 0.3)


@pytest.mark.gpu
def test_gpu_the_loop_pitfall_fails_at_the_first_launch():
    with pytest.raises(CompilationError, match=re.escape(LOOP.replace("128", "64"))):
        entry.row_sum(entry.row_sum_pitfall, fresh_randn(6, 200, dtype=torch.float16), 0.3)


# -- the interpreter: no error, float16 arithmetic

@pytest.mark.interpreter
def test_interpreter_runs_the_pitfalls_in_float16():
    x = fresh_randn(6, 200, dtype=torch.float16)
    for result in (entry.scale(entry.scale_pitfall, x.flatten(), 0.3),
                   entry.scale(entry.scale_in_place_pitfall, x.flatten(), 0.3),
                   entry.row_sum(entry.row_sum_pitfall, x, 0.3)):
        assert torch.equal(result, result.half().float())  # every value is a float16
    with pytest.raises(AssertionError, match="relative error"):
        assert_matches_float64(entry.row_sum(entry.row_sum_pitfall, x, 0.3), x.double().sum(dim=1) * 0.3)


# -- the fixes

def test_fix_one_type_on_every_path_compiles():
    assert offline("scale_fixed") == "compiled"


@pytest.mark.parametrize("factor", [0.3, 1.0])
def test_fix_branch_matches_float64(factor):
    x = fresh_randn(1000, dtype=torch.float16)
    assert_matches_float64(entry.scale(entry.scale_fixed, x, factor), x.double() * torch.tensor(factor).float().double())


@pytest.mark.parametrize("n_cols", [1, 64, 200])
def test_fix_float32_accumulator_matches_float64(n_cols):
    x = fresh_randn(6, n_cols, dtype=torch.float16)
    assert_matches_float64(entry.row_sum(entry.row_sum_fixed, x, 0.3), x.double().sum(dim=1) * 0.3)
