"""TP079's claims, one test each: snippets/compilation/loop_reassigns_a_compile_time_constant.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache, with Triton's own helpers (`tl.max`) compilable; the GPU tests launch the kernels for real.
"""

import inspect
import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton
from triton.compiler.errors import CompilationError

from snippets.compilation import loop_reassigns_a_compile_time_constant as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])


def stride_message(name):
    """The last line of the CompilationError for an argument equal to 1 reassigned in a loop, by release."""
    if RELEASE < (3, 4):
        return f"AssertionError('cannot reasign constexpr {name} in the loop')"
    if RELEASE < (3, 5):
        return f"AssertionError('Loop carried variable {name} changed type')"
    return (f"AssertionError(\"Loop carried variable {name} changed type, was <class 'triton.language.core.tensor'> "
            "but is now <class 'triton.language.core.constexpr'>\")")


def none_message(name):
    """The last line of the CompilationError for a loop variable that starts as None, by release."""
    if RELEASE < (3, 5):
        return f"AssertionError('cannot reasign constexpr {name} in the loop')"
    return f"AssertionError('Loop carried variable {name} is not a triton value')"


def decorator_names(kernel):
    """The names given to @triton.jit(do_not_specialize=...): a JITFunction keeps them; the interpreter's
    InterpretedFunction keeps its decorator's arguments (in `kwargs` from 3.5, in its rewriter's before)."""
    if hasattr(kernel, "do_not_specialize"):
        return list(kernel.do_not_specialize)
    kwargs = getattr(kernel, "kwargs", None) or kernel.rewriter.kwargs
    return list(kwargs.get("do_not_specialize") or [])


def offline_case(case):
    """Compile one kernel of the entry for sm_90, its ints typed as the launcher types them (run by `offline`)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    name, ints, honour_decorator = CASES[case]
    kernel = getattr(entry, name)
    names = decorator_names(kernel) if honour_decorator else []
    try:
        entry.compile_for_h200(kernel, ints, names)
    except CompilationError as error:
        lines = str(error).strip().splitlines()
        return {"first": lines[0], "pointed": lines[lines.index(next(l for l in lines if l.strip() == "^")) - 1].strip(),
                "last": lines[-1]}
    return "compiled"


def strides(src, nxt):
    return {"src_stride": src, "next_stride": nxt, "n": 8}


CASES = {
    "pitfall, strides 1 and 1": ("concat_pitfall", strides(1, 1), True),
    "pitfall, strides 1 and 2": ("concat_pitfall", strides(1, 2), True),
    "pitfall, strides 2 and 1": ("concat_pitfall", strides(2, 1), True),
    "pitfall, strides 2 and 2": ("concat_pitfall", strides(2, 2), True),
    "fix, strides 1 and 1": ("concat_fixed", strides(1, 1), True),
    "fix without its decorator, strides 1 and 1": ("concat_fixed", strides(1, 1), False),
    "carried, strides 1 and 1": ("concat_carried", strides(1, 1), True),
    "none pitfall": ("row_max_pitfall", {"n_cols": 100}, True),
    "none fix": ("row_max_fixed", {"n_cols": 100}, True),
}


def offline(case):
    return in_fresh_process_by_case(Path(__file__), "offline_case", list(CASES), compile_ready=True)[case]["value"]


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_stride_of_1():
    return offline("pitfall, strides 1 and 1")["last"]


def reproduce_none():
    return offline("none pitfall")["last"]


# -- the pitfall, compiled

def test_pitfall_a_stride_of_1_reassigned_in_the_loop_does_not_compile():
    assert offline("pitfall, strides 1 and 1") == {
        "first": "at 4:4:", "pointed": "for part in range(2):  # the first source, then the next one",
        "last": stride_message("src_stride")}


def test_pitfall_strides_of_2_compile():
    assert offline("pitfall, strides 2 and 2") == "compiled"


def test_pitfall_only_the_reassigned_argument_equal_to_1_matters():
    assert offline("pitfall, strides 1 and 2")["last"] == stride_message("src_stride")
    assert offline("pitfall, strides 2 and 1") == "compiled"


def test_pitfall_a_variable_that_starts_as_none_does_not_compile():
    assert offline("none pitfall") == {
        "first": "at 4:4:", "pointed": "for start in range(0, n_cols, BLOCK):", "last": none_message("best")}


@pytest.mark.gpu
def test_gpu_contiguous_inputs_fail_at_the_first_launch():
    with pytest.raises(CompilationError) as caught:
        entry.concat(entry.concat_pitfall, fresh_randn(100), fresh_randn(100))
    assert str(caught.value).strip().splitlines()[-1] == stride_message("src_stride")


@pytest.mark.gpu
def test_gpu_strided_inputs_launch_and_match_float64():
    a, b = fresh_randn(200)[::2], fresh_randn(300)[::3]
    assert (a.stride(0), b.stride(0)) == (2, 3)
    assert_matches_float64(entry.concat(entry.concat_pitfall, a, b), torch.cat((a, b)).double())


@pytest.mark.gpu
def test_gpu_the_none_pitfall_fails_at_the_first_launch():
    with pytest.raises(CompilationError) as caught:
        entry.row_max(entry.row_max_pitfall, fresh_randn(4, 200))
    assert str(caught.value).strip().splitlines()[-1] == none_message("best")


# -- the interpreter specialises nothing: both pitfalls run and are right

@pytest.mark.interpreter
def test_interpreter_runs_both_pitfalls_and_gets_them_right():
    a, b = fresh_randn(100), fresh_randn(100)
    assert (a.stride(0), b.stride(0)) == (1, 1)
    assert_matches_float64(entry.concat(entry.concat_pitfall, a, b), torch.cat((a, b)).double())
    x = fresh_randn(4, 200)
    assert_matches_float64(entry.row_max(entry.row_max_pitfall, x), x.double().amax(dim=1))


# -- the fixes

def test_fix_do_not_specialize_compiles_with_strides_of_1():
    assert offline("fix, strides 1 and 1") == "compiled"
    assert offline("fix without its decorator, strides 1 and 1")["last"] == stride_message("src_stride")


def test_fix_a_carried_tensor_compiles_with_strides_of_1():
    assert offline("carried, strides 1 and 1") == "compiled"


def test_fix_starting_from_minus_infinity_compiles():
    assert offline("none fix") == "compiled"


LAYOUTS = [(1, 1, 100), (2, 3, 100), (1, 2, 37), (1, 1, 1)]  # (stride of a, stride of b, length)


@pytest.mark.parametrize("kernel", ["concat_fixed", "concat_carried"])
@pytest.mark.parametrize("a_stride, b_stride, n", LAYOUTS)
def test_fix_concat_matches_float64(kernel, a_stride, b_stride, n):
    a, b = fresh_randn(n * a_stride)[::a_stride], fresh_randn(n * b_stride)[::b_stride]
    assert_matches_float64(entry.concat(getattr(entry, kernel), a, b), torch.cat((a, b)).double())


@pytest.mark.parametrize("n_cols", [1, 64, 200])
def test_fix_row_max_matches_float64(n_cols):
    x = fresh_randn(6, n_cols)
    x[::2] -= 10  # rows below zero: a maximum that started from 0 would be wrong there
    assert_matches_float64(entry.row_max(entry.row_max_fixed, x), x.double().amax(dim=1))


def test_do_not_specialize_is_an_argument_of_triton_jit_its_docstring_does_not_mention():
    assert "do_not_specialize" in inspect.signature(triton.jit).parameters
    assert "do_not_specialize" not in inspect.getdoc(triton.jit)
