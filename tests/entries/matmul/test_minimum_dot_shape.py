"""TP030's claims, one test each: snippets/matmul/minimum_dot_shape.py."""

import re

import pytest
import torch
import triton
import triton.language as tl

from snippets.matmul import minimum_dot_shape as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

SHAPE_MESSAGE_3_6_CUDA = "Input shapes should have M >= 1, N >= 1 and K >= 16"


def dot_8x8():
    """An (8, 8) @ (8, 8) float32 product: a compile error on CUDA (Triton 3.6), fine on the interpreter."""
    a, b = fresh_randn(8, 8), fresh_randn(8, 8)
    return entry.tile_product(a, b), a, b


@pytest.mark.gpu
def test_gpu_8x8_dot_is_rejected_for_k_below_16():
    with pytest.raises(Exception, match=re.escape(SHAPE_MESSAGE_3_6_CUDA)):
        dot_8x8()


@pytest.mark.gpu
def test_gpu_m_and_n_of_8_compile_when_k_is_16():
    a, b = fresh_randn(8, 16), fresh_randn(16, 8)
    assert_matches_float64(entry.tile_product(a, b), a.double() @ b.double())


@pytest.mark.interpreter
def test_interpreter_runs_an_8x8_dot_that_the_gpu_rejects():
    c, a, b = dot_8x8()
    assert_matches_float64(c, a.double() @ b.double())


@pytest.mark.parametrize("m, n, k", [(8, 8, 8), (8, 8, 5), (16, 8, 1), (8, 16, 16), (16, 16, 20)])
def test_fix_padding_k_with_zeros_matches_float64(m, n, k):
    a, b = fresh_randn(m, k), fresh_randn(k, n)
    assert_matches_float64(entry.tile_product_padded(a, b), a.double() @ b.double())


@triton.jit
def dot_mixed_dtypes(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])  # float16
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])  # float32
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b))


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm = tl.arange(0, B), tl.arange(0, M)
    rn, rk = tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])  # (B, M, K)
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])  # (B, K, N)
    c = tl.dot(a, b, input_precision="ieee")  # (B, M, N)
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], c)


def mixed_dtype_dot():
    a = fresh_randn(16, 16, dtype=torch.float16)
    dot_mixed_dtypes[(1,)](a, fresh_randn(16, 16), poisoned(16, 16))


def test_pitfall_float16_times_float32_is_rejected():
    with pytest.raises(Exception, match="Both operands must be same dtype. Got fp16 and fp32"):
        mixed_dtype_dot()


def test_batched_3d_dot_matches_float64():
    a, b = fresh_randn(2, 16, 32), fresh_randn(2, 32, 16)
    c = poisoned(2, 16, 16)
    batched_dot[(1,)](a, b, c, 2, 16, 16, 32)
    assert_matches_float64(c, a.double() @ b.double())
