"""TP043's claims, one test each: snippets/language/return_inside_loop.py.

Compiling without a GPU happens in one fresh process (`in_fresh_process`), each case in a new
empty kernel cache.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import return_inside_loop as entry
from triton_faq.testing import fresh_randn, in_fresh_process_by_case

MESSAGE = "Cannot have `return` statements inside `while` or `for` statements in triton."
ONE_BLOCK = "We use SCF, so the loop body should only have one block"


@triton.jit
def bare_return_in_loop(x_ptr, out_ptr, n, threshold):
    for i in range(0, n):
        tl.store(out_ptr, i)
        return  # unconditional: no `if` around it


@triton.jit
def break_in_loop(x_ptr, out_ptr, n, threshold):
    for i in range(0, n):
        if tl.load(x_ptr + i) > threshold:
            tl.store(out_ptr, i)
            break


@triton.jit
def store_through_helper(ptr, value):
    tl.store(ptr, value)
    return value  # a helper that returns a value the caller ignores


@triton.jit
def helper_with_return_called_in_loop(x_ptr, out_ptr, n, threshold):
    """Issue 5768's shape: a @jit helper with a `return`, called under an `if` inside a loop."""
    for i in range(0, n):
        if tl.load(x_ptr + i) > threshold:
            store_through_helper(out_ptr + i, i)


def offline_case(case):
    """One compile for sm_90 without a GPU, in a new empty kernel cache (run by `offline`)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    kernel = {"pitfall": entry.first_above_pitfall, "fix": entry.first_above_fixed,
              "bare return": bare_return_in_loop, "break": break_in_loop,
              "helper with return": helper_with_return_called_in_loop}[case]
    if case == "helper with return" and not isinstance(store_through_helper, triton.runtime.jit.JITFunction):
        globals()["store_through_helper"] = triton.runtime.jit.JITFunction(store_through_helper.fn)
    entry.compile_for_h200(kernel)
    return "compiled"


CASES = ["pitfall", "fix", "bare return", "break", "helper with return"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES)


def offline(case):
    return _offline_results()[case]


def reference_first_above(x, threshold):
    """float64 reference: the index of the first element above threshold, n where none is."""
    above = x.double().cpu() > threshold
    n = x.shape[1]
    index = torch.where(above, torch.arange(n).expand_as(above), torch.full_like(above, n, dtype=torch.int64))
    return index.min(dim=1).values.to(torch.int32)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_return_in_loop():
    result = offline("pitfall")
    return f"{result.get('error')}: {result.get('message')}"


def reproduce_bare_return_in_loop():
    result = offline("bare return")
    return f"{result.get('error')}: {result.get('message')}"


# -- the pitfall

def test_pitfall_early_return_in_loop_is_a_compile_error():
    result = offline("pitfall")
    assert result["error"] == "UnsupportedLanguageConstruct"  # a subclass of CompilationError
    assert result["message"].splitlines()[-1] == MESSAGE
    assert "if tl.load(x_ptr + row * n + i) > threshold:" in result["message"]  # it points at the `if`


def test_unconditional_return_in_loop_is_an_assertion():
    result = offline("bare return")
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == f"AssertionError('{ONE_BLOCK}')"


def test_break_is_not_supported_either():
    result = offline("break")
    assert result["error"] == "UnsupportedLanguageConstruct"
    assert result["message"].splitlines()[-1] == "unsupported AST node type: Break"


@pytest.mark.gpu
def test_gpu_pitfall_fails_at_the_first_launch():
    from triton.compiler.errors import CompilationError

    with pytest.raises(CompilationError, match=re.escape(MESSAGE)):
        entry.first_above(entry.first_above_pitfall, fresh_randn(4, 40), 1.0)


@pytest.mark.interpreter
def test_interpreter_runs_the_early_return_silently():
    x = fresh_randn(8, 40)
    for threshold in (0.5, 1.5, 10.0):  # 10.0: no element above it, the rows give n
        assert torch.equal(entry.first_above(entry.first_above_pitfall, x, threshold).cpu(),
                           reference_first_above(x, threshold))


# -- the fix

def test_fix_compiles():
    assert offline("fix") == {"value": "compiled"}


@pytest.mark.parametrize("n", [1, 17, 40])
def test_fix_matches_float64_reference(n):
    x = fresh_randn(8, n)
    for threshold in (0.0, 1.5, 10.0):
        out = entry.first_above(entry.first_above_fixed, x, threshold)  # filled with -1 first
        assert torch.equal(out.cpu(), reference_first_above(x, threshold))


# -- what others say

def test_helper_with_return_called_in_loop_compiles():
    """Issue 5768: a @jit helper with a `return`, called from an `if` inside a loop."""
    assert offline("helper with return") == {"value": "compiled"}
