"""TP044's claims, one test each: snippets/matmul/dot_accumulator_and_output_types.py.

The compiles for sm_90 (no GPU needed) run in one fresh process that imports Triton before the
reader's file may set TRITON_INTERPRET=1: Triton's own @jit helpers are then compilable.
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton.language as tl

from snippets.matmul import dot_accumulator_and_output_types as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

ROOT = Path(__file__).resolve().parents[3]
ASSERTION = "assert acc.type.shape == ret_ty.shape and acc.type.element_ty == out_dtype"
BF16_OUT = ("out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast with "
            "`.to(tl.bfloat16)`")


CASES = {  # name: (kernel, inputs, output, accumulator)
    "float16 acc, default out_dtype": ("matmul_pitfall", "fp16", "fp32", "float16"),
    "int32 acc, default out_dtype": ("matmul_pitfall", "i8", "i32", "int32"),
    "bfloat16 acc, out_dtype=bfloat16": ("matmul_fixed", "bf16", "bf16", "bfloat16"),
    "float32 acc, out_dtype=float32": ("matmul_fixed", "fp16", "fp32", "float32"),
    "int32 acc, out_dtype=int32": ("matmul_fixed", "i8", "i32", "int32"),
}


def offline_case(case):
    """Compile one case for sm_90 (run in the fresh process); the dtype of the dot in the TTIR."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # a new empty kernel cache for each case
    kernel, inputs, output, acc = CASES[case]
    compiled = entry.compile_for_h200(getattr(entry, kernel), inputs, output, getattr(tl, acc))
    return [line.split("->")[-1].split(" loc(")[0].strip() for line in compiled.asm["ttir"].splitlines() if "tt.dot" in line]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES, compile_ready=True, tracebacks=True)


def offline(case):
    return _offline_results()[case]


def half_inputs(K=64, dtype=torch.float16):
    return fresh_randn(32, K).to(dtype), fresh_randn(K, 32).to(dtype)


def int8_inputs(K=64):
    generator = torch.Generator().manual_seed(torch.seed())
    a = torch.randint(-128, 128, (32, K), dtype=torch.int8, generator=generator)
    b = torch.randint(-128, 128, (K, 32), dtype=torch.int8, generator=generator)
    return a.to(DEVICE), b.to(DEVICE)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_float16_accumulator():
    a, b = half_inputs()
    entry.matmul(entry.matmul_pitfall, a, b, tl.float16)


def reproduce_bfloat16_out_dtype():
    a, b = half_inputs(dtype=torch.bfloat16)
    entry.matmul(entry.matmul_fixed, a, b, tl.bfloat16, torch.bfloat16)


# -- the pitfall: an accumulator that is not float32, with out_dtype left at its default

@pytest.mark.parametrize("case", ["float16 acc, default out_dtype", "int32 acc, default out_dtype"])
def test_pitfall_compiles_to_a_bare_assertion_error(case):
    result = offline(case)
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-2].strip().startswith("acc = tl.dot(a, b, acc)")
    assert result["message"].splitlines()[-1].strip() == "^"  # the excerpt, and no text after it
    assert "AssertionError\n" in result["traceback"] and ASSERTION in result["traceback"]


@pytest.mark.parametrize("make_inputs, acc, out", [(half_inputs, tl.float16, torch.float32),
                                                   (int8_inputs, tl.int32, torch.int32)])
def test_pitfall_fails_the_same_assertion_on_every_backend(make_inputs, acc, out):
    a, b = make_inputs()
    with pytest.raises(Exception) as raised:
        entry.matmul(entry.matmul_pitfall, a, b, acc, out)
    cause = raised.value.__cause__ or raised.value.__context__
    assert type(cause) is AssertionError and str(cause) == ""  # a bare AssertionError
    assert ASSERTION in "".join(__import__("traceback").format_exception(raised.value))


def test_bfloat16_out_dtype_is_refused_with_a_value_error():
    result = offline("bfloat16 acc, out_dtype=bfloat16")
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == BF16_OUT


# -- the fix: out_dtype equal to the accumulator's dtype

def test_fix_compiles_with_the_accumulators_dtype():
    assert offline("float32 acc, out_dtype=float32") == {"value": ["tensor<32x32xf32>"]}
    assert offline("int32 acc, out_dtype=int32") == {"value": ["tensor<32x32xi32>"]}


def test_fix_int8_with_int32_accumulator_is_exact():
    a, b = int8_inputs(K=128)  # sums of 128 products up to 128*128: far beyond int8 and float16
    c = entry.matmul(entry.matmul_fixed, a, b, tl.int32, torch.int32)  # filled with int32 min first
    assert torch.equal(c.cpu().long(), a.cpu().long() @ b.cpu().long())


def test_fix_float16_with_float32_accumulator_matches_float64():
    a, b = half_inputs(K=128)
    assert_matches_float64(entry.matmul(entry.matmul_fixed, a, b, tl.float32), a.double() @ b.double())


@pytest.mark.gpu
def test_gpu_fix_bfloat16_with_float32_accumulator_matches_float64():
    a, b = half_inputs(K=128, dtype=torch.bfloat16)
    c = entry.matmul(entry.matmul_fixed, a, b, tl.float32)
    assert_matches_float64(c, a.double() @ b.double())


def test_float16_accumulator_with_out_dtype_float16_runs_but_rounds_to_half():
    a, b = half_inputs(K=256)
    reference = a.double() @ b.double()
    c16 = entry.matmul(entry.matmul_fixed, a, b, tl.float16).double().cpu()
    c32 = entry.matmul(entry.matmul_fixed, a, b, tl.float32).double().cpu()
    error = lambda c: float((c - reference.cpu()).norm() / reference.cpu().norm())  # noqa: E731
    assert error(c32) <= 1e-5 < 1e-4 < error(c16) <= 1e-2


@pytest.mark.interpreter
def test_interpreter_bfloat16_dot_multiplies_raw_bits():
    """The interpreter stores bfloat16 as uint16; its dot multiplies those integers."""
    a, b = half_inputs(K=64, dtype=torch.bfloat16)
    c = entry.matmul(entry.matmul_fixed, a, b, tl.float32)
    bits = lambda t: (t.view(torch.int16).long() & 0xFFFF).double()  # noqa: E731
    assert_matches_float64(c, bits(a) @ bits(b))
