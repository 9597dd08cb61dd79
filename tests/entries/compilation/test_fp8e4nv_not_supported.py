"""TP036's claims, one test each: snippets/compilation/fp8e4nv_not_supported.py.

Compiling for sm_80 / sm_86 / sm_89 / sm_90 needs no GPU; it happens in one fresh process
(`in_fresh_process`) with a new, empty kernel cache, away from interpreted kernels.
"""

import functools
import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.compilation import fp8e4nv_not_supported as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process

MESSAGE = "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')"


@triton.jit
def cast_to_fp8e4nv(x_ptr, y_ptr, n, BLOCK: tl.constexpr):  # the in-kernel cast, same signature as the e4b15 one
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float8e4nv).to(tl.float16), mask=mask)


def offline_case(capability, x_type, kernel="dequantize"):
    """Compile one kernel for one compute capability; run by `offline` in a fresh process."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # a new, empty kernel cache for each compile
    kernels = {"dequantize": entry.dequantize, "e4b15": entry.round_through_fp8e4b15, "e4nv cast": cast_to_fp8e4nv}
    try:
        entry.compile_for(capability, x_type, kernel=kernels[kernel])
    except Exception as error:  # the error's last line is what users paste
        lines = str(error).splitlines()
        return {"error": type(error).__name__, "at": lines[0], "last line": lines[-1]}
    return "compiled"


CASES = [(cap, "fp8e4nv") for cap in (80, 86, 89, 90)] + [(cap, "fp16", "e4nv cast") for cap in (80, 90)]
CASES += [(80, "fp8e5"), (80, "fp16"), (80, "fp16", "e4b15")]
# Oldest target first: in one process, compiling the fp8e4nv cast for sm_89 or sm_90 made a later
# sm_80 compile of the e5m2 load emit sm_89-only `cvt` instructions (a ptxas error); a process that
# compiles for one GPU never meets this.
CASES.sort(key=lambda case: case[0])


@functools.cache
def _offline_results():
    results = in_fresh_process(Path(__file__), "offline_case", CASES)
    return {case: result.get("value", result) for case, result in zip(CASES, results)}


def offline(*case):
    return _offline_results()[case]


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_fp8e4nv_on_sm80():
    result = offline(80, "fp8e4nv")
    return f"{result.get('error')}: {result.get('last line')}"


# -- which architectures accept which fp8 types

def test_fp8e4nv_is_accepted_from_sm89_on():
    for capability in (75, 80, 86):
        assert entry.supported_fp8(capability) == ("fp8e4b15", "fp8e5")
    for capability in (89, 90, 100, 120):
        assert entry.supported_fp8(capability) == ("fp8e4b15", "fp8e4nv", "fp8e5")


# -- the pitfall

def test_pitfall_fp8e4nv_input_is_refused_for_sm80_and_sm86():
    for capability in (80, 86):
        assert offline(capability, "fp8e4nv") == {"error": "CompilationError", "at": "at 1:0:",  # the def line
                                                  "last line": f'ValueError("{MESSAGE}")'}


def test_pitfall_in_kernel_cast_to_fp8e4nv_is_refused_for_sm80():
    for capability in (80,):
        result = offline(capability, "fp16", "e4nv cast")
        assert result["error"] == "CompilationError" and result["last line"] == MESSAGE
        assert result["at"].startswith("at 4:")  # the line of the .to(tl.float8e4nv)


def test_fp8e4nv_compiles_for_sm89_and_sm90():
    for capability in (89, 90):
        assert offline(capability, "fp8e4nv") == "compiled"
    assert offline(90, "fp16", "e4nv cast") == "compiled"


@pytest.mark.gpu
def test_gpu_h200_runs_the_fp8e4nv_kernel():
    assert torch.cuda.get_device_capability() >= (8, 9)
    x = fresh_randn(1000).to(torch.float8_e4m3fn)  # the reference is the fp8-rounded input, in float64
    assert_matches_float64(entry.launch(x, 0.5), x.double() * 0.5)


@pytest.mark.interpreter
def test_interpreter_runs_fp8e4nv_whatever_the_gpu():
    x = fresh_randn(1000).to(torch.float8_e4m3fn)
    assert_matches_float64(entry.launch(x, 0.5), x.double() * 0.5)


# -- the fixes

def test_fix_e5m2_and_fp16_inputs_compile_for_sm80():
    assert offline(80, "fp8e5") == "compiled"
    assert offline(80, "fp16") == "compiled"


def test_fix_in_kernel_fp8e4b15_compiles_for_sm80():
    assert offline(80, "fp16", "e4b15") == "compiled"


NEWER_FIRST = "Feature 'cvt with .e4m3x2/.e5m2x2' requires .target sm_89 or higher"


def compile_and_report(capability, x_type):
    """One compile in the fresh process of `newer_target_first`: "compiled", or the ptxas line that failed."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # a new, empty kernel cache for each compile
    try:
        entry.compile_for(capability, x_type)
    except Exception as error:
        return next((line.split("; error   : ")[-1] for line in str(error).splitlines() if "error   :" in line),
                    str(error).splitlines()[-1])
    return "compiled"


def test_a_newer_target_first_breaks_the_sm80_e5m2_compile_in_the_same_process():
    """The page's warning: sm_90 (or sm_89) first, then sm_80, in one process, fails in ptxas."""
    for newer in (89, 90):
        results = in_fresh_process(Path(__file__), "compile_and_report", [(newer, "fp8e4nv"), (80, "fp8e5")])
        if triton.__version__ == "3.6.0":
            assert results == [{"value": "compiled"}, {"value": NEWER_FIRST}]
    oldest_first = in_fresh_process(Path(__file__), "compile_and_report", [(80, "fp8e5"), (90, "fp8e4nv")])
    assert oldest_first == [{"value": "compiled"}, {"value": "compiled"}]


def test_fix_upcast_to_fp16_is_exact_for_every_e4m3_value():
    every_e4m3 = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e4m3fn)
    exact, via_fp16 = every_e4m3.double(), every_e4m3.to(torch.float16).double()
    assert torch.equal(exact.isnan(), via_fp16.isnan())
    assert torch.equal(exact[~exact.isnan()], via_fp16[~via_fp16.isnan()])


def test_e5m2_is_not_a_drop_in_for_e4m3_data():
    every_e4m3 = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e4m3fn).double()
    finite = every_e4m3[~every_e4m3.isnan()]
    changed = finite.to(torch.float8_e5m2).double() != finite
    assert 0 < int(changed.sum()) < finite.numel()  # some e4m3 values have no e5m2 equal


def test_fix_dequantize_anywhere_matches_float64():
    x = fresh_randn(1000).to(torch.float8_e4m3fn)
    assert_matches_float64(entry.dequantize_anywhere(x, 0.5), x.double() * 0.5)


def test_fix_fp16_and_e5m2_inputs_match_float64():
    for dtype in (torch.float16, torch.float8_e5m2):
        x = fresh_randn(1000).to(dtype)
        assert_matches_float64(entry.launch(x, 0.5), x.double() * 0.5)
