"""TP052's claims, one test each: snippets/garbage_values/out_of_range_float_to_int_cast.py."""

import functools
import warnings
from pathlib import Path

import pytest
import torch

from snippets.garbage_values import out_of_range_float_to_int_cast as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import fresh_randn, in_fresh_process

OUT_OF_RANGE = [float("inf"), 510.0, -200.0, float("nan"), float("-inf"), 300.0]


def _pitfall(values, dtype):
    x = torch.tensor(values, dtype=dtype, device=DEVICE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return entry.to_int8(entry.to_int8_pitfall, x).tolist()


@pytest.mark.interpreter
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_interpreter_wraps_finite_values_and_gives_zero_for_inf_and_nan(dtype):
    """NumPy's astype on the CPU: 510 -> -2 and -200 -> 56 wrap modulo 256, 300 -> 44; inf, NaN, -inf -> 0."""
    assert _pitfall(OUT_OF_RANGE, dtype) == [0, -2, 56, 0, 0, 44]


@pytest.mark.interpreter
def test_interpreter_warns_invalid_value_in_cast():
    x = torch.tensor([float("inf"), float("nan")], device=DEVICE)
    with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
        entry.to_int8(entry.to_int8_pitfall, x)


@pytest.mark.gpu
def test_compiled_cuda_casts_float16_inf_to_minus_one():
    """triton-lang/triton#10658: float16 inf -> int8 gives -1 in compiled code (the interpreter gives 0)."""
    assert _pitfall([float("inf")], torch.float16) == [-1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_in_range_values_truncate_toward_zero_on_both_backends(dtype):
    values = [127.5, -128.5, 2.75, -2.75, 0.5, -0.5]
    assert _pitfall(values, dtype) == [127, -128, 2, -2, 0, 0]


def _with_specials(n, dtype):
    x = fresh_randn(n) * 300  # about a third of the values fall outside [-128, 127]
    picks = torch.randperm(n)[:30]
    x[picks[:10]], x[picks[10:20]], x[picks[20:]] = float("inf"), float("-inf"), float("nan")
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_fix_matches_the_saturating_reference_exactly(dtype):
    x = _with_specials(1000, dtype)
    expected = entry.saturating_reference(x)
    for fill in (-99, 99):  # two poison values: an element no program wrote differs between runs
        assert torch.equal(entry.to_int8(entry.to_int8_saturating, x, fill=fill).cpu(), expected)


def test_fix_agrees_with_torch_where_the_cast_is_defined():
    x = fresh_randn(1000) * 60  # all finite; clamp to int8's range first so torch's cast is defined too
    x = x.clamp(-128, 127)
    assert torch.equal(entry.to_int8(entry.to_int8_saturating, x).cpu(), x.cpu().to(torch.int8))


@functools.lru_cache(maxsize=1)
def _ptx_opcodes():
    """One fresh process compiles the pitfall for sm_90 from float32 and float16 (no GPU needed)."""
    return in_fresh_process(Path(entry.__file__), "cast_instructions", [("*fp32",), ("*fp16",)])


def test_compiled_code_converts_to_int16_and_stores_one_byte():
    """The PTX: a saturating conversion to a 16-bit integer, then a store of its low byte."""
    assert _ptx_opcodes() == [{"value": ["cvt.rzi.s16.f32", "st.global.b8"]},
                              {"value": ["cvt.rzi.s16.f16", "st.global.b8"]}]
