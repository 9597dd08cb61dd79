"""TP081's claims, one test each: snippets/compilation/name_assigned_from_a_constexpr.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache, with Triton's own helpers (`tl.sum`, `tl.reshape`) compilable; the launches run on the
backend of the session (the interpreter without a GPU, CUDA with one).
"""

from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.compilation import name_assigned_from_a_constexpr as entry
from triton_faq.testing import assert_matches_float64, compile_offline, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"

STATIC_ASSERT = ("NotImplementedError('Assertion condition could not be determined at compile-time. "
                 "Make sure that it depends only on `constexpr` values')")
SHAPE = ("Shape element 1 must have type `constexpr[int]`, "
         "got `constexpr[<class 'triton.language.core.tensor'>]")  # sic: Triton leaves the backtick open
STATIC_RANGE = "AssertionError('int32[] used as tl.static_range start value is not a constexpr')"
ARANGE = "arange's arguments must be of type tl.constexpr"

@triton.jit
def half_arange(out_ptr, BLOCK: tl.constexpr):
    """tl.arange over a name assigned from a constant, compiled (the rotation stops before it)."""
    HALF = BLOCK // 2
    tl.store(out_ptr + tl.arange(0, HALF), 1.0)


@triton.jit
def assert_on_an_argument(out_ptr, n, BLOCK: tl.constexpr):
    """A static assertion on a run-time argument: no constant anywhere."""
    tl.static_assert(n % 16 == 0)
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)


@triton.jit
def annotated_argument_half(out_ptr, n, BLOCK: tl.constexpr):
    """The annotation over a run-time expression: accepted, and no constant comes of it."""
    HALF: tl.constexpr = n // 2
    tl.store(out_ptr + tl.arange(0, HALF), 1.0)


@triton.jit
def annotated_parameter_again(out_ptr, n, BLOCK: tl.constexpr):
    """The annotation on a name that exists already (the parameter itself)."""
    BLOCK: tl.constexpr = BLOCK // 2
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)


@triton.jit
def inline_assert(out_ptr, n, BLOCK: tl.constexpr):
    """The expression itself in the assertion: a constant."""
    tl.static_assert(BLOCK // 2 * 2 == BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK // 2), 1.0)


LOCAL_KERNELS = ("half_arange", "assert_on_an_argument", "annotated_argument_half", "annotated_parameter_again",
                 "inline_assert")

# kernel -> its constants, as a launch of the file's launchers passes them (a row of 64 numbers)
CASES = {
    "rotate_half_pitfall": {"HEAD_DIM": 64},
    "rotate_half_fixed": {"HEAD_DIM": 64},
    "rotate_half_bare_annotation": {"HEAD_DIM": 64},
    "fold_halves_pitfall": {"BLOCK": 64},
    "fold_halves_fixed": {"BLOCK": 64},
    "chunk_sums_pitfall": {"BLOCK": 64, "CHUNK": 16},
    "chunk_sums_fixed": {"BLOCK": 64, "CHUNK": 16},
    "half_arange": {"BLOCK": 64},
    "assert_on_an_argument": {"BLOCK": 64},
    "annotated_argument_half": {"BLOCK": 64},
    "annotated_parameter_again": {"BLOCK": 64},
    "inline_assert": {"BLOCK": 64},
}


def offline_case(name):
    """Compile one kernel of the entry for sm_90 without a GPU: "compiled", or the last line of the
    CompilationError and its cause (run by `offline`, in a fresh process)."""
    constants = CASES[name]
    kernel = globals()[name] if name in LOCAL_KERNELS else getattr(entry, name)
    signature = {arg: "constexpr" if arg in constants else "i32" if arg == "n" else "*fp32"
                 for arg in triton.runtime.jit.JITFunction(kernel.fn).arg_names}
    error = compile_offline(kernel, signature, constants).error
    if error is None:
        return "compiled"
    if not isinstance(error, triton.compiler.errors.CompilationError):
        raise error
    cause = error.__cause__
    return {"last": str(error).strip().splitlines()[-1].strip(), "cause": repr(cause) if cause else None}


def offline(name):
    return in_fresh_process_by_case(Path(__file__), "offline_case", list(CASES), compile_ready=True)[name]["value"]


def launch_error(call):
    """The text of the error a launch raises: its message and its cause's (the interpreter wraps it)."""
    with pytest.raises(Exception) as caught:
        call()
    return str(caught.value) + repr(caught.value.__cause__)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_static_assert():
    return offline("rotate_half_pitfall")["last"]


def reproduce_shape():
    return offline("fold_halves_pitfall")["cause"]


def reproduce_static_range():
    return offline("chunk_sums_pitfall")["last"]


# -- the pitfalls

def test_pitfall_compiled_the_static_assert_on_the_assigned_half_is_refused():
    assert offline("rotate_half_pitfall")["last"] == STATIC_ASSERT


def test_pitfall_a_launch_fails_static_assert_compiled_arange_on_the_interpreter():
    text = launch_error(lambda: entry.rotate_half(entry.rotate_half_pitfall, fresh_randn(4, 64)))
    if INTERPRETED:  # the interpreter evaluates the static_assert on the value, which holds
        assert ARANGE in text and "Assertion condition" not in text
    else:
        assert STATIC_ASSERT in text


def test_pitfall_a_shape_made_of_the_assigned_half_is_refused_on_both_backends():
    assert offline("fold_halves_pitfall")["cause"] == f"TypeError(\"{SHAPE}\")"
    assert SHAPE in launch_error(lambda: entry.fold_halves(entry.fold_halves_pitfall,
                                                           fresh_randn(4, 64)))


def test_pitfall_compiled_arange_over_the_assigned_half_is_refused():
    assert offline("half_arange")["cause"] == f'ValueError("{ARANGE}")'


def test_the_same_message_for_a_static_assert_on_a_run_time_argument():
    assert offline("assert_on_an_argument")["last"] == STATIC_ASSERT


def test_the_annotation_over_a_run_time_expression_makes_no_constant():
    assert offline("annotated_argument_half")["cause"] == f'ValueError("{ARANGE}")'


def test_the_annotation_on_a_name_that_exists_is_refused():
    assert offline("annotated_parameter_again")["last"] == (
        "ValueError('BLOCK is already defined. constexpr cannot be reassigned.')")


def test_the_expression_itself_is_a_constant_in_a_static_assert():
    assert offline("inline_assert") == "compiled"


def test_pitfall_static_range_over_an_assigned_count_is_refused_when_compiled():
    assert offline("chunk_sums_pitfall")["last"] == STATIC_RANGE


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's behaviour; compiled, the launch is refused")
def test_pitfall_the_interpreter_runs_the_static_range_and_gets_it_right():
    x = fresh_randn(4, 64)
    assert_matches_float64(entry.chunk_sums(entry.chunk_sums_pitfall, x, 16), x.double().reshape(4, 4, 16).sum(-1))


# -- the fixes

@pytest.mark.parametrize("name", ["rotate_half_fixed", "fold_halves_fixed", "chunk_sums_fixed"])
def test_fix_compiles(name):
    assert offline(name) == "compiled"


def test_fix_bare_annotation_compiles_from_3_8_only():
    if RELEASE >= (3, 8):
        assert offline("rotate_half_bare_annotation") == "compiled"
    else:
        assert offline("rotate_half_bare_annotation")["last"] == STATIC_ASSERT


@pytest.mark.parametrize("head_dim", [2, 16, 64, 128])
def test_fix_rotate_half_matches_float64(head_dim):
    x = fresh_randn(5, head_dim)
    half = head_dim // 2
    expected = torch.cat((-x[:, half:], x[:, :half]), dim=1).double()
    assert_matches_float64(entry.rotate_half(entry.rotate_half_fixed, x), expected)


@pytest.mark.parametrize("block", [2, 64, 256])
def test_fix_fold_halves_matches_float64(block):
    x = fresh_randn(5, block)
    assert_matches_float64(entry.fold_halves(entry.fold_halves_fixed, x), x[:, :block // 2].double() + x[:, block // 2:].double())


@pytest.mark.parametrize("block, chunk", [(64, 16), (128, 32), (32, 32)])
def test_fix_chunk_sums_matches_float64(block, chunk):
    x = fresh_randn(5, block)
    expected = x.double().reshape(5, block // chunk, chunk).sum(-1)
    assert_matches_float64(entry.chunk_sums(entry.chunk_sums_fixed, x, chunk), expected)
