"""TP078's claims, one test each: snippets/debugging/interpreter_gaps.py."""

import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from snippets.debugging import interpreter_gaps as entry
from triton_faq.testing import assert_matches_float64, fresh_randn


def reference(x, eps=1e-6):
    x = x.double()
    return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + eps)


@triton.jit
def rms_norm_libdevice_only(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    inv = libdevice.rsqrt(tl.sum(x * x, axis=0) / n_cols + tl.cast(eps, tl.float32))
    tl.store(y_ptr + row * n_cols + cols, x * inv, mask=cols < n_cols)


@triton.jit
def float_dtype_branch(out_ptr, eps):
    if eps.dtype == tl.float32:  # reading .dtype of a float argument
        tl.store(out_ptr, 1.0)


def reproduce_float_argument_to():
    entry.rms_norm(entry.rms_norm_pitfall, fresh_randn(2, 50))


def reproduce_float_argument_dtype():
    float_dtype_branch[(1,)](torch.zeros(1, device=entry.DEVICE), 0.5)


@pytest.mark.interpreter
def test_pitfall_a_float_argument_has_no_to_on_the_interpreter():
    with pytest.raises(Exception, match=r"AttributeError\(\"'float' object has no attribute 'to'\"\)"):
        reproduce_float_argument_to()


@pytest.mark.interpreter
def test_pitfall_a_float_argument_has_no_dtype_on_the_interpreter():
    with pytest.raises(Exception, match=r"AttributeError\(\"'float' object has no attribute 'dtype'\"\)"):
        reproduce_float_argument_dtype()


@pytest.mark.interpreter
def test_pitfall_libdevice_rsqrt_does_not_run_on_the_interpreter():
    with pytest.raises(Exception, match=r"NoneType"):
        entry.rms_norm(rms_norm_libdevice_only, fresh_randn(2, 50))


@pytest.mark.gpu
def test_gpu_the_pitfall_is_right_when_compiled():
    x = fresh_randn(8, 300)
    assert_matches_float64(entry.rms_norm(entry.rms_norm_pitfall, x), reference(x), rtol=1e-4)
    assert_matches_float64(entry.rms_norm(rms_norm_libdevice_only, x), reference(x), rtol=1e-4)


@pytest.mark.parametrize("n_cols", [1, 37, 128, 1000])
def test_fix_matches_float64(n_cols):
    x = fresh_randn(6, n_cols)
    assert_matches_float64(entry.rms_norm(entry.rms_norm_fixed, x), reference(x), rtol=1e-4)


def test_fix_uses_eps():
    x = torch.zeros(3, 64, device=entry.DEVICE)
    x[:, 0] = 1e-3  # mean square 1.6e-8: eps = 1e-2 dominates it
    assert_matches_float64(entry.rms_norm(entry.rms_norm_fixed, x, eps=1e-2), reference(x, eps=1e-2), rtol=1e-4)
