"""TP067's claims, one test each: snippets/compilation/amd_intel_and_ascend_backends.py.

What can be checked without an AMD, Intel or Ascend device: compiling for an AMD MI300X (gfx942) with the AMD backend
that Triton's own wheel ships, next to an NVIDIA H100, in a fresh process with an empty kernel cache. Running on AMD,
Intel XPU or Ascend hardware is not reproduced here (the page cites its sources).
"""

import functools
from pathlib import Path

import pytest
import torch
import triton

from snippets.compilation import amd_intel_and_ascend_backends as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process, poisoned

KERNELS = ("erf_cuda_only", "tanh_ptx", "erf_portable", "tanh_portable")
LIBDEVICE_MESSAGE = ("Implicit conversion of CUDA __nv_erff device function has been dropped; please, update your "
                     "source program to use triton.language.extra.<op> to replace triton.language.extra.cuda.<op>")


def compile_case(kernel, target, options):
    try:
        compiled = entry.compile_for(getattr(entry, kernel), getattr(entry, target), **options)
    except Exception as error:
        return {"error": type(error).__name__, "message": str(error).strip()}
    return {"warp_size": compiled.metadata.warp_size, "asm": sorted(compiled.asm),
            "waves": '"amdgpu-waves-per-eu"="2' in compiled.asm.get("llir", ""),
            "wavefront_64": ".wavefront_size: 64" in compiled.asm.get("amdgcn", "")}


CASES = [(kernel, target, {}) for target in ("H100", "MI300X") for kernel in KERNELS]
CASES += [("erf_portable", "MI300X", {"waves_per_eu": 2})]


@functools.cache
def compiled():
    results = in_fresh_process(Path(__file__), "compile_case", CASES)
    return {(kernel, target, tuple(options)): result.get("value", result)
            for (kernel, target, options), result in zip(CASES, results)}


def case(kernel, target, *options):
    return compiled()[(kernel, target, options)]


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_cuda_libdevice_on_amd():
    result = case("erf_cuda_only", "MI300X")
    return f"{result.get('error')}: {result.get('message')}"


# -- what Triton's wheel holds

def test_the_triton_wheel_ships_an_nvidia_and_an_amd_backend():
    assert sorted(triton.backends.backends) == ["amd", "nvidia"]


# -- the pitfalls: NVIDIA-only code

def test_pitfall_cuda_libdevice_does_not_compile_for_amd():
    result = case("erf_cuda_only", "MI300X")
    assert result["error"] == "RuntimeError" and result["message"] == LIBDEVICE_MESSAGE


def test_pitfall_inline_ptx_does_not_compile_for_amd():
    result = case("tanh_ptx", "MI300X")
    assert result["error"] == "RuntimeError" and result["message"].startswith("LLD failed to link hsaco source")


def test_nvidia_only_kernels_compile_for_nvidia():
    assert "error" not in case("erf_cuda_only", "H100") and "error" not in case("tanh_ptx", "H100")


# -- what differs: the warp, the options

def test_amd_wavefront_is_64_threads_and_nvidia_warp_32():
    assert case("erf_portable", "MI300X")["warp_size"] == 64 and case("erf_portable", "MI300X")["wavefront_64"]
    assert case("erf_portable", "H100")["warp_size"] == 32


def test_amd_compiles_to_amdgcn_and_hsaco_not_ptx():
    assert case("erf_portable", "MI300X")["asm"] == ["amdgcn", "hsaco", "llir", "source", "ttgir", "ttir"]
    assert {"ptx", "cubin"} <= set(case("erf_portable", "H100")["asm"])


def test_waves_per_eu_reaches_amds_compiler():
    assert case("erf_portable", "MI300X", "waves_per_eu")["waves"] is True
    assert case("erf_portable", "MI300X")["waves"] is False


def test_waves_per_eu_is_dropped_silently_on_nvidia():
    assert entry.options_for(entry.H100, waves_per_eu=2) == {}
    assert entry.options_for(entry.MI300X, waves_per_eu=2) == {"waves_per_eu": 2}


# -- the fix: portable code

def test_fix_tl_erf_and_extra_libdevice_compile_for_both():
    for target in ("H100", "MI300X"):
        assert "error" not in case("erf_portable", target) and "error" not in case("tanh_portable", target)


def test_fix_matches_float64():
    x = fresh_randn(3000) * 2
    y = poisoned(3000)
    entry.erf_portable[(triton.cdiv(3000, 256),)](x, y, 3000, BLOCK=256)
    assert_matches_float64(y, torch.erf(x.double()))


@pytest.mark.gpu
def test_gpu_extra_libdevice_tanh_matches_float64():
    x = fresh_randn(3000) * 2
    y = poisoned(3000)
    entry.tanh_portable[(triton.cdiv(3000, 256),)](x, y, 3000, BLOCK=256)
    assert_matches_float64(y, torch.tanh(x.double()))
