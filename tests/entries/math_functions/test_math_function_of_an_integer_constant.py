"""TP084's claims, one test each: snippets/math_functions/math_function_of_an_integer_constant.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache, with the process's stderr and stdout caught around the compile (the compiler's diagnostic
and, from 3.6, its dump of the IR go there); the launches run on the backend of the session.
"""

from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.math_functions import math_function_of_an_integer_constant as entry
from triton_faq.testing import assert_matches_float64, compile_offline, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"
CRASH = "PassManager::run failed" if RELEASE < (3, 5) else "error encountered during parsing"
DIAGNOSTIC = "'math.{}' op operand #0 must be floating-point-like, but got 'i32'"
EXPECTED_FLOAT = "Expected dtype ['fp32', 'fp64'] but got int32"
NUMPY_ITEMSIZE = "numpy data itemsize (64 bits) exceeds dtype primitive_bitwidth (32 bits) for triton type int32"


FUNCTIONS = {  # a float-only math function of an integer constant: the op MLIR's verifier names
    "exp": "'math.exp' op operand #0 must be floating-point-like, but got 'i32'",
    "log": "'math.log' op operand #0 must be floating-point-like, but got 'i32'",
    "log2": "'math.log2' op operand #0 must be floating-point-like, but got 'i32'",
    "rsqrt": "'math.rsqrt' op operand #0 must be floating-point-like, but got 'i32'",
    "erf": "'math.erf' op operand #0 must be floating-point-like, but got 'i32'",
    "sqrt_rn": "'tt.precise_sqrt' op operand #0 must be floating-point or ranked tensor of floating-point values, but got 'i32'",
}


@triton.jit
def exp_of_a_constant(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.exp(HEAD_DIM) + tl.zeros((HEAD_DIM,), tl.float32))


@triton.jit
def log_of_a_constant(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.log(HEAD_DIM) + tl.zeros((HEAD_DIM,), tl.float32))


@triton.jit
def log2_of_a_constant(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.log2(HEAD_DIM) + tl.zeros((HEAD_DIM,), tl.float32))


@triton.jit
def rsqrt_of_a_constant(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.rsqrt(HEAD_DIM) + tl.zeros((HEAD_DIM,), tl.float32))


@triton.jit
def erf_of_a_constant(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.erf(HEAD_DIM) + tl.zeros((HEAD_DIM,), tl.float32))


@triton.jit
def sqrt_rn_of_a_constant(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.sqrt_rn(HEAD_DIM) + tl.zeros((HEAD_DIM,), tl.float32))


@triton.jit
def sqrt_of_a_literal(out_ptr, HEAD_DIM: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, HEAD_DIM), tl.sqrt(64) + tl.zeros((HEAD_DIM,), tl.float32))


CASES = {  # kernel: (signature, constants)
    "scale_pitfall": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "HEAD_DIM": "constexpr"}, {"HEAD_DIM": 64}),
    "scale_fixed": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "HEAD_DIM": "constexpr"}, {"HEAD_DIM": 64}),
    "scale_by_argument_pitfall": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "head_dim": "i32", "BLOCK": "constexpr"},
                                  {"BLOCK": 64}),
    "scale_by_argument_fixed": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "head_dim": "i32", "BLOCK": "constexpr"},
                                {"BLOCK": 64}),
    "scale_by_argument_fixed, head_dim 1": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "head_dim": "constexpr",
                                             "BLOCK": "constexpr"}, {"head_dim": 1, "BLOCK": 1}),
    "scale_by_argument_pitfall, head_dim 1": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "head_dim": "constexpr",
                                               "BLOCK": "constexpr"}, {"head_dim": 1, "BLOCK": 1}),
    "sqrt_of_a_literal": ({"out_ptr": "*fp32", "HEAD_DIM": "constexpr"}, {"HEAD_DIM": 64}),
    **{f"{name}_of_a_constant": ({"out_ptr": "*fp32", "HEAD_DIM": "constexpr"}, {"HEAD_DIM": 64}) for name in FUNCTIONS},
}


def offline_case(case):
    """Compile one kernel for sm_90 without a GPU: "compiled", or the exception's type, last line and
    cause, the first `error:` line the compiler wrote to stderr (with its location), and whether an
    IR dump went to stdout or stderr (run by `offline`)."""
    name = case.split(",")[0]
    signature, constants = CASES[case]
    done = compile_offline(globals().get(name) or getattr(entry, name), signature, constants)
    if done.error is None:
        return "compiled"
    error = done.error
    line = next((line for line in done.stderr.splitlines() if "error: " in line), None)
    return {"type": type(error).__name__, "last": str(error).strip().splitlines()[-1],
            "cause": repr(error.__cause__) if error.__cause__ else None,
            "diagnostic": line.split("error: ", 1)[1] if line else None,
            "location": line.split("error: ", 1)[0] if line else None,
            "ir_dump": [stream for stream, text in (("stdout", done.stdout), ("stderr", done.stderr))
                        if "builtin.module" in text or "tt.func" in text]}


def offline(case):
    return in_fresh_process_by_case(Path(__file__), "offline_case", list(CASES), compile_ready=True)[case]["value"]


def launch_error(call):
    with pytest.raises(Exception) as caught:
        call()
    return str(caught.value) + repr(caught.value.__cause__)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_diagnostic():
    return offline("scale_pitfall")["diagnostic"]


def reproduce_int_argument():
    return offline("scale_by_argument_pitfall")["cause"]


# -- the pitfall

def test_pitfall_compiled_an_int_constant_makes_the_compiler_fail():
    result = offline("scale_pitfall")
    assert (result["type"], result["last"]) == ("RuntimeError", CRASH)
    assert result["diagnostic"] == DIAGNOSTIC.format("sqrt")


def test_pitfall_the_diagnostic_gives_the_line_of_the_call():
    line = next(number for number, text in enumerate(Path(entry.__file__).read_text().splitlines(), 1)
                if "sm_scale = 1.0 / tl.sqrt(HEAD_DIM)" in text)
    location = offline("scale_pitfall")["location"]
    assert "math_function_of_an_integer_constant.py" in location and f":{line}:" in location


def test_pitfall_the_ir_is_dumped_from_3_3():
    expected = [] if RELEASE < (3, 3) else ["stderr"] if RELEASE < (3, 5) else ["stdout"]
    assert offline("scale_pitfall")["ir_dump"] == expected


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_pitfall_other_math_functions_of_an_int_constant_fail_the_same_way(function):
    result = offline(f"{function}_of_a_constant")
    assert (result["type"], result["last"], result["diagnostic"]) == ("RuntimeError", CRASH, FUNCTIONS[function])


def test_pitfall_an_integer_literal_too():
    result = offline("sqrt_of_a_literal")
    assert (result["type"], result["diagnostic"]) == ("RuntimeError", DIAGNOSTIC.format("sqrt"))


def test_pitfall_an_int_argument_equal_to_1_is_a_constant_and_crashes_the_same_way():
    result = offline("scale_by_argument_pitfall, head_dim 1")
    assert (result["type"], result["last"], result["diagnostic"]) == ("RuntimeError", CRASH, DIAGNOSTIC.format("sqrt"))


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's behaviour; compiled, see the tests above")
def test_pitfall_the_interpreter_computes_it_up_to_3_5_and_refuses_it_from_3_6():
    x = fresh_randn(4, 64)
    if RELEASE < (3, 6):
        assert_matches_float64(entry.scale(entry.scale_pitfall, x), x.double() / 8)
    else:
        assert NUMPY_ITEMSIZE in launch_error(lambda: entry.scale(entry.scale_pitfall, x))


@pytest.mark.gpu
def test_gpu_a_launch_fails_with_the_compilers_error():
    with pytest.raises(RuntimeError, match=CRASH):
        entry.scale(entry.scale_pitfall, fresh_randn(4, 64))


def test_pitfall_an_int_argument_gets_a_clear_error_on_both_backends():
    assert offline("scale_by_argument_pitfall")["cause"] == f'ValueError("{EXPECTED_FLOAT}")'
    assert EXPECTED_FLOAT in launch_error(lambda: entry.scale_by_argument(entry.scale_by_argument_pitfall,
                                                                           fresh_randn(4, 64)))


# -- the fixes

@pytest.mark.parametrize("case", ["scale_fixed", "scale_by_argument_fixed", "scale_by_argument_fixed, head_dim 1"])
def test_fix_compiles(case):
    assert offline(case) == "compiled"


@pytest.mark.parametrize("head_dim", [16, 64, 128])
def test_fix_matches_float64(head_dim):
    x = fresh_randn(5, head_dim)
    assert_matches_float64(entry.scale(entry.scale_fixed, x), x.double() / head_dim ** 0.5)


@pytest.mark.parametrize("head_dim", [1, 50, 64])
def test_fix_for_an_int_argument_matches_float64(head_dim):
    x = fresh_randn(5, head_dim)
    assert_matches_float64(entry.scale_by_argument(entry.scale_by_argument_fixed, x), x.double() / head_dim ** 0.5)
