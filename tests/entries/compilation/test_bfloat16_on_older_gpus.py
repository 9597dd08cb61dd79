"""TP066's claims, one test each: snippets/compilation/bfloat16_on_older_gpus.py.

Compiling for sm_70 / sm_75 / sm_80 needs no GPU; the compiles run in a fresh process with an empty kernel cache.
The message itself comes from Triton 3.2 (the version matrix's copy in .cache/matrix/, fetched once from PyPI),
run in a subprocess: from Triton 3.3 on the same kernel compiles (the version table shows it release by release).
"""

import functools
import inspect
from pathlib import Path

import pytest
import torch

from snippets.compilation import bfloat16_on_older_gpus as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process, on_release

MESSAGE = "Feature '.bf16' requires .target sm_80 or higher"
CASES = [(70, "bf16", "scale_shift"), (75, "bf16", "scale_shift"), (80, "bf16", "scale_shift"),
         (70, "fp16", "scale_shift"), (75, "fp16", "scale_shift"),
         (70, "fp16", "scale_shift_f32"), (75, "fp16", "scale_shift_f32")]


def compile_case(capability, dtype, kernel):
    return entry.ptxas_says(capability, dtype, getattr(entry, kernel))


@functools.cache
def compiled():
    results = in_fresh_process(Path(__file__), "compile_case", CASES)
    return {case: result.get("value", result) for case, result in zip(CASES, results)}


def with_triton_3_2():
    """What Triton 3.2's ptxas says for the bf16 kernel on sm_75, run by that release."""
    return on_release("3.2.0", entry.__file__,
                      "print(triton.__version__); print(m['ptxas_says'](75)); print(m['ptxas_says'](70)); "
                      "print(m['ptxas_says'](75, 'bf16', m['scale_shift_f32'])); print(m['ptxas_says'](75, 'fp16'))")


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_bf16_on_sm_75_with_triton_3_2():
    return "\n".join(with_triton_3_2())


# -- the pitfall, Triton 3.2

def test_pitfall_triton_3_2_refuses_bf16_arithmetic_below_sm_80():
    lines = with_triton_3_2()
    assert lines[0] == "3.2.0"
    assert lines[1] == lines[2] == f"error   : {MESSAGE}"  # sm_75, sm_70


def test_pitfall_triton_3_2_refuses_even_the_float32_math_on_bf16_storage():
    assert with_triton_3_2()[3] == f"error   : {MESSAGE}"  # the conversions bf16 <-> f32 need sm_80 there


def test_fix_triton_3_2_compiles_the_float16_kernel_for_sm_75():
    assert with_triton_3_2()[4] == "compiled"


# -- this release (the version table: from 3.3 on)

def test_bf16_kernel_compiles_for_sm_70_and_sm_75():
    assert compiled()[(70, "bf16", "scale_shift")] == "compiled"
    assert compiled()[(75, "bf16", "scale_shift")] == "compiled"


def test_bf16_kernel_compiles_for_sm_80():
    assert compiled()[(80, "bf16", "scale_shift")] == "compiled"


def test_fix_float16_kernels_compile_for_sm_70_and_sm_75():
    for case in CASES[3:]:
        assert compiled()[case] == "compiled", case


# -- picking the type by capability

def test_fix_half_type_follows_the_capability(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    for capability, expected in (((7, 0), torch.float16), ((7, 5), torch.float16), ((8, 0), torch.bfloat16),
                                 ((9, 0), torch.bfloat16)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None, c=capability: c)
        assert entry.half_type() == expected, capability


def test_torch_is_bf16_supported_counts_emulation_by_default():
    """So it says True on a T4 (torch's own source: it tries a bf16 tensor when the major version is below 8)."""
    parameters = inspect.signature(torch.cuda.is_bf16_supported).parameters
    assert parameters["including_emulation"].default is True


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_fix_matches_float64(dtype):
    x = fresh_randn(5000).to(dtype)
    out = entry.launch(entry.scale_shift_f32, x)
    assert out.dtype == dtype
    assert_matches_float64(out, x.double() * 2 + 1, rtol=2 ** -8 if dtype == torch.bfloat16 else 2 ** -11)


@pytest.mark.gpu
def test_gpu_h200_runs_the_bf16_kernel():
    assert torch.cuda.get_device_capability() >= (8, 0)
    x = fresh_randn(5000).to(torch.bfloat16)
    assert_matches_float64(entry.launch(entry.scale_shift, x), x.double() * 2 + 1, rtol=2 ** -8)


def ptx_case(capability):
    import re

    ptx = entry.compile_for(capability).asm["ptx"]
    body = ptx.split(".entry", 1)[1]
    return {"bf16": ".bf16" in body, "instructions": sorted(set(re.findall(r"\b(fma\.rn\.f32|shl\.b32)\b", body)))}


def test_bf16_kernel_for_sm_75_computes_in_float32_with_bit_shifts():
    """How releases from 3.3 on compile it: no bf16 instruction; bf16 widened by a shift, the math in float32."""
    [result] = in_fresh_process(Path(__file__), "ptx_case", [(75,)])
    assert result == {"value": {"bf16": False, "instructions": ["fma.rn.f32", "shl.b32"]}}, result
