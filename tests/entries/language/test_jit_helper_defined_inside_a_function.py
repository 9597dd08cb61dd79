"""TP071's claims, one test each: snippets/language/jit_helper_defined_inside_a_function.py.

Compiling for sm_90 without a GPU happens in a fresh process (`in_fresh_process_by_case`), so
that the interpreter, when it runs the other tests, cannot leak into the compiler.
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch

from snippets.language import jit_helper_defined_inside_a_function as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case


def offline_case(case):
    """Compile one kernel for sm_90 (no GPU, no launch) in a new empty cache; "compiled" or the ttir."""
    import triton
    import triton.language as tl
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    os.environ["TRITON_INTERPRET"] = "0"  # the factory's @triton.jit now makes compilable functions
    h200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    constexprs = {"BLOCK": 128}
    if case == "factory, float scale":
        kernel = entry.make_scaled_copy(2.0)
    elif case == "factory, constexpr scale":
        kernel = entry.make_scaled_copy(tl.constexpr(2.0))
    elif case == "late binding":
        kernel = entry.KERNELS[2.0]
    else:  # the fix, with `times` as its helper
        kernel = entry.scaled_copy
        signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "scale": "fp32", "BLOCK": "constexpr",
                     "OP": "constexpr"}  # in parameter order
        constexprs = dict(constexprs, OP=JITFunction(entry.times.fn))
    if triton.__version__.startswith("3.2."):  # 3.2 takes constants by name, outside the signature
        signature = {k: v for k, v in signature.items() if v != "constexpr"}
    fn = JITFunction(kernel.fn)
    try:
        ttir = triton.compile(triton.compiler.ASTSource(fn, signature, constexprs), target=h200).asm["ttir"]
    except triton.compiler.errors.CompilationError as error:  # the helper's own error is chained inside
        while error.__cause__ is not None:
            error = error.__cause__
        return f"{type(error).__name__}: {error}"
    return ttir if case == "late binding" else "compiled"


CASES = ["factory, float scale", "factory, constexpr scale", "late binding", "fix"]


def offline(case):
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES, compile_ready=True)[case]


def release():
    import triton

    return tuple(int(part) for part in triton.__version__.split(".")[:2])


CLOSURES_SEEN = release() >= (3, 4)  # compiled, 3.2 and 3.3 look names up in the globals only
NO_HELPER = "NameError('apply is not defined')"


def reproduce_interpreter_name_error():
    """The factory's kernel on the interpreter: the helper from the closure is not found."""
    entry.run(entry.make_scaled_copy(2.0), fresh_randn(10))


@pytest.mark.interpreter
def test_pitfall_interpreter_does_not_see_the_closure_helper():
    with pytest.raises(Exception) as caught:
        reproduce_interpreter_name_error()
    assert type(caught.value).__name__ == "InterpreterError"
    assert "NameError(\"name 'apply' is not defined\")" in str(caught.value)


@pytest.mark.interpreter
def test_pitfall_interpreter_does_not_see_a_closure_constexpr_either():
    import triton.language as tl

    with pytest.raises(Exception) as caught:
        entry.run(entry.make_scaled_copy(tl.constexpr(2.0)), fresh_randn(10))
    assert "NameError(\"name 'apply' is not defined\")" in str(caught.value)


def test_pitfall_compiled_refuses_the_closure_float():
    result = offline("factory, float scale")
    if not CLOSURES_SEEN:
        assert result["value"].endswith(NO_HELPER)
        return
    assert result["value"].startswith("CompilationError: at ") and "def apply(x):\n    return x * scale" in result["value"]
    assert "Cannot access global variable scale from within @jit'ed function" in result["value"]


def test_compiled_accepts_a_closure_helper_and_a_constexpr_closure_value_from_3_4():
    result = offline("factory, constexpr scale")["value"]
    assert result == "compiled" if CLOSURES_SEEN else result.endswith(NO_HELPER)


def test_fix_compiles_for_sm_90():
    assert offline("fix") == {"value": "compiled"}


@pytest.mark.parametrize("n", [1, 100, 128, 1000])
def test_fix_matches_float64_with_each_helper(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.run(entry.scaled_copy, x, 2.5, OP=entry.times), x.double() * 2.5)
    assert_matches_float64(entry.run(entry.scaled_copy, x, -1.5, OP=entry.plus), x.double() - 1.5)


def test_late_binding_every_kernel_reads_the_last_factor():
    x = fresh_randn(300)
    assert_matches_float64(entry.run(entry.KERNELS[2.0], x), x.double() * 3.0)  # made "for 2.0", multiplies by 3


def test_late_binding_compiled_bakes_in_the_last_factor():
    ttir = offline("late binding")["value"]
    assert "3.000000e+00" in ttir and "2.000000e+00" not in ttir


@pytest.mark.gpu
def test_gpu_factory_with_a_constexpr_closure_runs_compiled():
    import triton.language as tl

    x = fresh_randn(1000)
    assert_matches_float64(entry.run(entry.make_scaled_copy(tl.constexpr(2.0)), x), x.double() * 2.0)
    assert isinstance(x, torch.Tensor)
