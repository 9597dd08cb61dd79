"""TP050's claims, one test each: snippets/launching/float_arguments_become_float32.py.

The compiled side is checked without a GPU in one fresh process: the types the launcher gives
each argument, and the kernels compiled for sm_90.
"""

import inspect
import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
import triton

from snippets.launching import float_arguments_become_float32 as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case


def argument_types(name):
    """The type the launcher gives each argument of `name` for a float64 tensor and a Python float."""
    from triton.backends.compiler import BaseBackend
    from triton.runtime.jit import JITFunction, create_function_from_signature

    kernel = JITFunction(getattr(entry, name).fn)
    binder = create_function_from_signature(kernel.signature, kernel.params, BaseBackend)
    x = torch.ones(4, dtype=torch.float64)
    _, specialization, _ = binder(x, x, 0.1, 4, BLOCK=64)
    return {param.name: spec[0] for param, spec in zip(kernel.params, specialization)}


def scalar_type_in_ttir(name):
    """Compile `name` for sm_90 with the launcher's types; return the type of `s` in the kernel's IR."""
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    signature = dict(argument_types(name), BLOCK="constexpr")
    source = triton.compiler.ASTSource(JITFunction(getattr(entry, name).fn), signature, {"BLOCK": 64})
    ttir = triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32)).asm["ttir"]
    return re.search(r"%s: (\w+)", ttir.replace("%arg2", "%s")).group(1)


def offline_case(what, name):
    return {"argument types": argument_types, "ttir": scalar_type_in_ttir}[what](name)


CASES = [("argument types", "scale"), ("argument types", "scale_fp64"), ("ttir", "scale"), ("ttir", "scale_fp64")]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES)


def offline(what, name):
    return _offline_results()[(what, name)]["value"]


def as_float32(value):
    """What the launcher's `(float)` cast makes of a Python float."""
    return torch.tensor(value, dtype=torch.float32).item()


# -- the pitfall

def test_launcher_types_a_python_float_as_fp32():
    assert offline("argument types", "scale") == {
        "x_ptr": "*fp64", "out_ptr": "*fp64", "s": "fp32", "n": "i32", "BLOCK": "constexpr"}


def test_compiled_kernel_takes_an_f32_argument():
    assert offline("ttir", "scale") == "f32"


def test_launcher_casts_the_double_to_float():
    """The C launcher Triton generates for CUDA packs an fp32 argument with a cast to float."""
    from triton.backends.nvidia import driver

    source = inspect.getsource(driver)
    assert "static uint32_t pack_fp32(double f) {{\n    float f32 = (float)f;" in source
    assert as_float32(0.1) == 0.10000000149011612 and as_float32(1e39) == float("inf")


@pytest.mark.gpu
def test_gpu_plain_float_arrives_as_float32():
    ones = torch.ones(64, dtype=torch.float64, device=entry.DEVICE)
    assert entry.launch(entry.scale, ones, 0.1)[:2].tolist() == [0.10000000149011612] * 2
    assert entry.launch(entry.scale, ones, 1e39)[:2].tolist() == [float("inf")] * 2


@pytest.mark.gpu
def test_gpu_plain_float_is_off_by_float32_rounding():
    x = fresh_randn(1000, dtype=torch.float64)
    assert torch.equal(entry.launch(entry.scale, x, 0.1), x * as_float32(0.1))
    assert not torch.equal(entry.launch(entry.scale, x, 0.1), x * 0.1)


@pytest.mark.interpreter
def test_interpreter_keeps_the_float64_value():
    ones = torch.ones(64, dtype=torch.float64, device=entry.DEVICE)
    assert entry.launch(entry.scale, ones, 0.1)[:2].tolist() == [0.1, 0.1]
    assert entry.launch(entry.scale, ones, 1e39)[:2].tolist() == [1e39, 1e39]


@pytest.mark.interpreter
def test_interpreter_matches_float64_exactly():
    x = fresh_randn(1000, dtype=torch.float64)
    assert torch.equal(entry.launch(entry.scale, x, 0.1), x * 0.1)


def test_float32_data_is_the_same_on_both_backends():
    """With float32 data the product is float32 anyway: the argument's rounding does not show."""
    x = fresh_randn(1000)
    assert torch.equal(entry.launch(entry.scale, x, 0.1).cpu(), (x * 0.1).cpu())


# -- the fix

def test_fix_annotation_makes_the_argument_fp64():
    assert offline("argument types", "scale_fp64")["s"] == "fp64"
    assert offline("ttir", "scale_fp64") == "f64"


@pytest.mark.parametrize("s", [0.1, 1e39, 1 / 3])
def test_fix_annotation_matches_float64(s):
    x = fresh_randn(1000, dtype=torch.float64)
    assert_matches_float64(entry.launch(entry.scale_fp64, x, s), x * s, rtol=0)


@pytest.mark.parametrize("s", [0.1, 1e39, 1 / 3])
def test_fix_one_element_tensor_matches_float64(s):
    x = fresh_randn(1000, dtype=torch.float64)
    s_tensor = torch.tensor([s], dtype=torch.float64, device=entry.DEVICE)
    assert_matches_float64(entry.launch(entry.scale_from_tensor, x, s_tensor), x * s, rtol=0)
