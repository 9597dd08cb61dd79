"""TP068's claims, one test each: snippets/math_functions/float32_division_is_approximate.py.

The PTX tests compile for sm_90 without a GPU, in a fresh process with an empty kernel cache.
"""

import functools
from pathlib import Path

import pytest
import torch

from snippets.math_functions import float32_division_is_approximate as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process

N = 1 << 20


def instructions_case(name):
    return entry.division_instructions(getattr(entry, name))


@functools.cache
def instructions():
    results = in_fresh_process(Path(__file__), "instructions_case", [("divide",), ("divide_rn",)])
    return {name: result.get("value", result) for name, result in zip(("divide", "divide_rn"), results)}


def quotients(kernel):
    x, y = fresh_randn(N), fresh_randn(N)
    return entry.ulps_off(entry.launch(kernel, x, y), x, y)


# -- the pitfall

def test_slash_compiles_to_the_approximate_div_full_f32():
    assert instructions()["divide"] == ["div.full.f32"]


@pytest.mark.gpu
def test_gpu_slash_is_not_correctly_rounded_but_within_two_ulp():
    off = quotients(entry.divide)
    assert int((off > 0).sum()) > 0  # some quotients differ from the correctly rounded one
    assert int(off.max()) <= 2  # PTX ISA: div.full.f32 has a maximum error of 2 ulp


@pytest.mark.gpu
def test_gpu_torch_division_is_correctly_rounded():
    x, y = fresh_randn(N), fresh_randn(N)
    assert int(entry.ulps_off(x / y, x, y).max()) == 0


@pytest.mark.interpreter
def test_interpreter_slash_is_correctly_rounded():
    """NumPy divides on the CPU: the pitfall does not show under TRITON_INTERPRET=1."""
    assert int(quotients(entry.divide).max()) == 0


# -- the fix

def test_fix_compiles_to_div_rn_f32():
    assert instructions()["divide_rn"] == ["div.rn.f32"]


def test_fix_every_quotient_is_correctly_rounded():
    assert int(quotients(entry.divide_rn).max()) == 0


def test_fix_matches_float64_reference():
    x, y = fresh_randn(10_000), fresh_randn(10_000)
    assert_matches_float64(entry.launch(entry.divide_rn, x, y), x.double() / y.double(), rtol=1e-7)


def test_fix_handles_a_tail_and_special_values():
    x = torch.tensor([1.0, -0.0, float("inf"), 3.0, 0.0, 1e-38, 7.0], device=fresh_randn(1).device)
    y = torch.tensor([3.0, 2.0, 5.0, 0.0, 0.0, 3.0, float("inf")], device=x.device)
    out = entry.launch(entry.divide_rn, x, y).cpu()
    exact = (x.double() / y.double()).float().cpu()
    assert torch.equal(out.isnan(), exact.isnan())
    assert torch.equal(out[~out.isnan()], exact[~exact.isnan()])
