"""TP083's claims, one test each: snippets/math_functions/power_operator_on_a_tensor.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache; the launches run on the backend of the session (the interpreter without a GPU).
"""

from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.math_functions import power_operator_on_a_tensor as entry
from triton_faq.testing import assert_matches_float64, compile_offline, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"


def compiled_message(exponent_type):
    """The last line of the CompilationError for `tensor ** <int or float>`, by release."""
    if RELEASE < (3, 9):
        return "AttributeError(\"'tensor' object has no attribute '__pow__'\")"
    return f"unsupported operand type(s) for **: 'tensor' and '{exponent_type}'"


INTERPRETER_MESSAGE = "unsupported operand type(s) for ** or pow(): 'tensor' and 'int'"


@triton.jit
def scale_from_int(out_ptr, d_head, BLOCK: tl.constexpr):
    """The attention scale from a run-time int: d_head is a tensor in the kernel."""
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0 / (d_head ** 0.5) + tl.zeros((BLOCK,), tl.float32))


@triton.jit
def scale_from_constexpr(out_ptr, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    """The same from a tl.constexpr: ** on a constant is Python's, done when the kernel is compiled."""
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0 / (HEAD_DIM ** 0.5) + tl.zeros((BLOCK,), tl.float32))


@triton.jit
def math_pow(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.math.pow(x, 2.0))


@triton.jit
def exp2_of_half(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """tl.exp2 and tl.log2 on float16: refused, they take float32 and float64 only."""
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.exp2(2.5 * tl.log2(x)))


SIGNATURES = {
    "rms_norm_pitfall": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    "rms_norm_fixed": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    "power_exp2": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 256}),
    "power_libdevice": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 256}),
    "scale_from_int": ({"out_ptr": "*fp32", "d_head": "i32", "BLOCK": "constexpr"}, {"BLOCK": 8}),
    "scale_from_constexpr": ({"out_ptr": "*fp32", "HEAD_DIM": "constexpr", "BLOCK": "constexpr"}, {"HEAD_DIM": 64, "BLOCK": 8}),
    "math_pow": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "exp2_of_half": ({"x_ptr": "*fp16", "out_ptr": "*fp16", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "power_static": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "P": "constexpr", "BLOCK": "constexpr"}, {"P": 3, "BLOCK": 256}),
}


def offline_case(name):
    """Compile one kernel for sm_90 without a GPU: "compiled", or the error's last line and its whole
    text with its cause (run by `offline` and `offline_whole`, in a fresh process)."""
    signature, constants = SIGNATURES[name]
    error = compile_offline(globals().get(name) or getattr(entry, name), signature, constants).error
    if error is None:
        return "compiled"
    if isinstance(error, triton.compiler.errors.CompilationError):
        last = str(error).strip().splitlines()[-1]
    elif isinstance(error, AttributeError):  # tl.math.pow up to 3.4: the AttributeError escapes the compile
        last = repr(error)
    else:
        raise error
    return {"last": last, "whole": str(error) + repr(error.__cause__)}


def compiles(name):
    return in_fresh_process_by_case(Path(__file__), "offline_case", list(SIGNATURES), compile_ready=True)[name]["value"]


def offline(name):
    """"compiled", or the last line of what the compile raised."""
    result = compiles(name)
    return result if result == "compiled" else result["last"]


def offline_whole(name):
    """The whole error and its cause, for messages that are not its last line."""
    return compiles(name)["whole"]


def launch_error(call):
    with pytest.raises(Exception) as caught:
        call()
    return str(caught.value) + repr(caught.value.__cause__)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_compiled():
    return offline("rms_norm_pitfall")


def reproduce_math_pow():
    return offline("math_pow")


def reproduce_on_the_interpreter():
    entry.rms_norm(entry.rms_norm_pitfall, fresh_randn(4, 100))


# -- the pitfall

def test_pitfall_compiled_a_power_of_a_tensor_is_refused():
    assert offline("rms_norm_pitfall") == compiled_message("int")


def test_pitfall_a_launch_is_refused_on_either_backend():
    text = launch_error(lambda: entry.rms_norm(entry.rms_norm_pitfall, fresh_randn(4, 100)))
    assert (INTERPRETER_MESSAGE if INTERPRETED else compiled_message("int")) in text


def test_pitfall_a_run_time_int_is_a_tensor_too_and_a_constexpr_is_not():
    assert offline("scale_from_int") == compiled_message("float")
    assert offline("scale_from_constexpr") == "compiled"


def test_tl_math_has_no_pow_and_libdevice_has_one():
    from triton.language.extra import libdevice

    assert not hasattr(tl.math, "pow")
    assert callable(libdevice.pow)
    assert "module 'triton.language.math' has no attribute 'pow'" in offline("math_pow")


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's behaviour; compiled, libdevice.pow runs")
def test_interpreter_cannot_run_libdevice_pow():
    text = launch_error(lambda: entry.power(entry.power_libdevice, torch.rand(100) + 0.5, 2.5))
    assert "cannot convert None of type <class 'NoneType'> to tensor" in text


def test_exp2_and_log2_take_float32_and_float64_only():
    assert "Expected dtype ['fp32', 'fp64'] but got fp16" in offline_whole("exp2_of_half")


@pytest.mark.skipif(not INTERPRETED, reason="the launch on the interpreter; compiled, the constant is folded the same way")
def test_a_power_of_a_constexpr_is_computed_when_compiling():
    out = torch.full((8,), float("nan"))
    scale_from_constexpr[(1,)](out, HEAD_DIM=64, BLOCK=8)
    assert torch.equal(out, torch.full((8,), 0.125))


# -- the fixes

@pytest.mark.parametrize("name", ["rms_norm_fixed", "power_exp2", "power_static", "power_libdevice"])
def test_fix_compiles(name):
    assert offline(name) == "compiled"


@pytest.mark.parametrize("n_cols", [1, 100, 1000, 4096])
def test_fix_rms_norm_matches_float64(n_cols):
    x = fresh_randn(6, n_cols)
    x64 = x.double()
    reference = x64 / torch.sqrt((x64 * x64).mean(dim=1, keepdim=True) + 1e-6)
    assert_matches_float64(entry.rms_norm(entry.rms_norm_fixed, x), reference)


@pytest.mark.parametrize("p", [2.5, -0.5, 3.0, 0.25])
def test_fix_exp2_of_p_log2_matches_float64_for_positive_bases(p):
    x = torch.rand(3000, dtype=torch.float64).mul(10).add(0.1).float().to(entry.DEVICE)  # 0.1 to 10.1
    assert_matches_float64(entry.power(entry.power_exp2, x, p), x.double() ** p, rtol=2e-6)


def worst_relative_error(got, reference):
    return float(((got.double().cpu() - reference) / reference).abs().max())


def test_fix_exp2_of_p_log2_error_grows_with_p_log2_x():
    """Each element's error is about log2's rounding times p: ten times the power, more than twice the error."""
    x = torch.rand(3000, dtype=torch.float64).mul(10).add(0.1).float().to(entry.DEVICE)
    errors = {p: worst_relative_error(entry.power(entry.power_exp2, x, p), x.double().cpu() ** p) for p in (1.0, 10.0)}
    assert errors[10.0] > 2 * errors[1.0]
    assert errors[1.0] < 1e-6 and errors[10.0] < 6e-6


@pytest.mark.parametrize("P", [2, 3, 5])
def test_fix_static_range_products_match_float64_for_either_sign(P):
    x = fresh_randn(3000)
    assert_matches_float64(entry.power(entry.power_static, x, P), x.double() ** P)


@pytest.mark.filterwarnings("ignore:invalid value encountered in log2:RuntimeWarning")  # NumPy, on the interpreter
def test_fix_exp2_of_p_log2_is_nan_for_a_negative_base():
    x = -(torch.rand(100) + 0.1).to(entry.DEVICE)
    out = torch.full_like(x, 7.0)  # not NaN, so an unwritten element shows
    entry.power_exp2[(1,)](x, out, x.numel(), 3.0, BLOCK=128)
    assert torch.isnan(out).all()


@pytest.mark.gpu
@pytest.mark.parametrize("p", [2.5, -0.5, 3.0])
def test_gpu_libdevice_pow_matches_float64_with_negative_bases_for_an_integer_power(p):
    x = fresh_randn(3000)
    if p != 3.0:
        x = x.abs() + 0.1
    assert_matches_float64(entry.power(entry.power_libdevice, x, p), x.double() ** p, rtol=1e-6)
