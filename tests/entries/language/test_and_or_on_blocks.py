"""TP048's claims, one test each: snippets/language/and_or_on_blocks.py.

What the compiler does without a GPU is checked in one fresh process (`in_fresh_process`),
every kernel compiled for sm_90 there: a kernel run by the interpreter in the same process can
break the real compiler on some Triton releases.
"""

import functools
import os
import tempfile
import warnings
from pathlib import Path

import pytest
import torch
import triton
from triton.compiler.errors import UnsupportedLanguageConstruct

from snippets.language import and_or_on_blocks as entry
from triton_faq.testing import in_fresh_process

X = [-5, 5, 15, 3]
DEPRECATION = "Logical operators 'and' and 'or' are deprecated for non-scalar tensors; please use '&' or '|' instead"
CHAINED = "simultaneous multiple comparison is not supported"
AMBIGUOUS = "Boolean value of Tensor with more than one value is ambiguous"


# -- compiled for the H200 (sm_90) without a GPU, in one fresh process

def compile_for_h200(name):
    """Compile one kernel of the reader's file for sm_90; return the warnings it raised, or the error."""
    from triton.runtime.jit import JITFunction

    kernel = getattr(entry, name)
    out = "*i64" if name.startswith("abs") else "*i32"
    signature = {"x_ptr": "*i64", "out_ptr": out, "n": "i32", "BLOCK": "constexpr"}
    source = triton.compiler.ASTSource(JITFunction(kernel.fn), signature, {"BLOCK": 64})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    return [str(w.message) for w in caught if w.category is UserWarning]


def offline_case(name):
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # an empty cache: the warnings come from a real compile
    return compile_for_h200(name)


KERNELS = ["in_range_and", "outside_or", "in_range_no_parentheses", "abs_with_if",
           "in_range_fixed", "outside_fixed", "abs_with_where"]


@functools.cache
def _offline_results():
    return dict(zip(KERNELS, in_fresh_process(Path(__file__), "offline_case", [(name,) for name in KERNELS])))


def offline(name):
    return _offline_results()[name]


def reproduce_chained_comparison():
    result = offline("in_range_no_parentheses")
    return f"{result.get('error')}: {result.get('message')}"


def reproduce_if_on_a_block():
    result = offline("abs_with_if")
    return f"{result.get('error')}: {result.get('message')}"


def x_tensor():
    return torch.tensor(X, device=entry.DEVICE)


# -- the pitfall: `and` / `or` compile with a warning, element-wise; the interpreter takes any block as true

def test_compiled_and_or_warn_once_per_block_operand():
    assert offline("in_range_and") == {"value": [DEPRECATION, DEPRECATION]}
    assert offline("outside_or") == {"value": [DEPRECATION, DEPRECATION]}


@pytest.mark.gpu
def test_gpu_and_or_are_element_wise():
    assert entry.run(entry.in_range_and, x_tensor()).tolist() == [0, 1, 0, 1]
    assert entry.run(entry.outside_or, x_tensor()).tolist() == [1, 0, 1, 0]


@pytest.mark.interpreter
def test_interpreter_and_returns_the_right_operand():
    """`a and b` with a block `a`: the interpreter takes the block as true and returns `b` (x < 10)."""
    assert entry.run(entry.in_range_and, x_tensor()).tolist() == [1, 1, 0, 1]


@pytest.mark.interpreter
def test_interpreter_or_returns_the_left_operand():
    assert entry.run(entry.outside_or, x_tensor()).tolist() == [1, 0, 0, 0]


@pytest.mark.interpreter
def test_interpreter_takes_any_block_as_true():
    """The source line behind both: a tensor of more than one element is true, whatever it holds."""
    import inspect

    from triton.runtime import interpreter

    source = inspect.getsource(interpreter)
    assert "return bool(data) if data.size == 1 else True" in source
    zeros = torch.zeros(4, dtype=torch.int64, device=entry.DEVICE)
    assert entry.run(entry.in_range_and, zeros).tolist() == [1, 1, 1, 1]  # (x > 0) is false everywhere
    twenties = torch.full((4,), 20, dtype=torch.int64, device=entry.DEVICE)
    assert entry.run(entry.outside_or, twenties).tolist() == [0, 0, 0, 0]  # (x >= 10) is true everywhere


# -- the precedence trap and `if` on a block

def test_compiled_chained_comparison_is_refused():
    result = offline("in_range_no_parentheses")
    assert result["error"] == "UnsupportedLanguageConstruct"
    assert result["message"].endswith(CHAINED)
    assert "inside = x > 0 & x < 10" in result["message"]


@pytest.mark.gpu
def test_gpu_chained_comparison_fails_at_the_first_launch():
    with pytest.raises(UnsupportedLanguageConstruct, match=CHAINED):
        entry.run(entry.in_range_no_parentheses, x_tensor())


@pytest.mark.interpreter
def test_interpreter_chained_comparison_is_all_true():
    assert entry.run(entry.in_range_no_parentheses, x_tensor()).tolist() == [1, 1, 1, 1]


def test_compiled_if_on_a_block_is_refused():
    result = offline("abs_with_if")
    assert result["error"] == "UnsupportedLanguageConstruct"
    assert result["message"].endswith(AMBIGUOUS)


@pytest.mark.interpreter
def test_interpreter_if_on_a_block_takes_the_first_branch():
    assert entry.run(entry.abs_with_if, x_tensor(), x_tensor().dtype).tolist() == [-5, 5, 15, 3]


# -- the fix

def test_fix_compiles_without_a_warning():
    for name in ("in_range_fixed", "outside_fixed", "abs_with_where"):
        assert offline(name) == {"value": []}


def test_fix_matches_an_exact_reference():
    """Integers, so the reference is exact: torch's own comparisons on fresh random values, output pre-filled with -99."""
    generator = torch.Generator().manual_seed(torch.seed())
    x = torch.randint(-20, 30, (1000,), generator=generator).to(entry.DEVICE)
    assert torch.equal(entry.run(entry.in_range_fixed, x).cpu(), ((x > 0) & (x < 10)).int().cpu())
    assert torch.equal(entry.run(entry.outside_fixed, x).cpu(), ((x <= 0) | (x >= 10)).int().cpu())
    assert torch.equal(entry.run(entry.abs_with_where, x, x.dtype).cpu(), x.abs().cpu())


def test_fix_gives_the_same_answer_on_both_backends():
    assert entry.run(entry.in_range_fixed, x_tensor()).tolist() == [0, 1, 0, 1]
    assert entry.run(entry.outside_fixed, x_tensor()).tolist() == [1, 0, 1, 0]
