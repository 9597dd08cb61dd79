"""TP035's claims, one test each: snippets/matmul/float32_dot_runs_as_tf32.py."""

import re

import pytest
import torch
import triton
import triton.language as tl

from snippets.matmul import float32_dot_runs_as_tf32 as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


@triton.jit
def dot_tile_allow_tf32_false(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, allow_tf32=False))  # deprecated spelling of "ieee"


@triton.jit
def dot_tile_both_flags(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b, input_precision="ieee", allow_tf32=False))


def both_precision_flags():
    dot_tile_both_flags[(1,)](fresh_randn(16, 16), fresh_randn(16, 16), poisoned(16, 16))


def misspelled_precision():
    entry.matmul(fresh_randn(16, 16), fresh_randn(16, 16), "tf3x", 16, 16, 16)


def bf16x3_on_the_interpreter():
    entry.matmul(fresh_randn(16, 16), fresh_randn(16, 16), "bf16x3", 16, 16, 16)


@pytest.mark.parametrize("precision", ["ieee", "tf32x3"])
def test_fix_explicit_precision_matches_float64(precision):
    a, b = fresh_randn(64, 48), fresh_randn(48, 40)  # edges that do not fill a 32-block
    assert_matches_float64(entry.matmul(a, b, precision), a.double() @ b.double())


def test_fix_a_strided_view_matches_float64():
    a, b = fresh_randn(48, 64).t(), fresh_randn(40, 48).t()  # column-major views
    assert_matches_float64(entry.matmul_float32(a, b), a.double() @ b.double())


def test_pitfall_misspelled_precision_is_rejected():
    with pytest.raises(Exception, match=r"input_precision must be one of \(.*\)\. Got tf3x"):
        misspelled_precision()


def test_pitfall_input_precision_and_allow_tf32_together_are_rejected():
    with pytest.raises(Exception, match="Only one of input_precision and allow_tf32 can be specified"):
        both_precision_flags()


@pytest.mark.interpreter
def test_interpreter_rejects_bf16x3():
    with pytest.raises(Exception, match=re.escape("input_precision must be one of ('tf32', 'tf32x3', 'ieee'). Got bf16x3")):
        bf16x3_on_the_interpreter()


def test_triton_3_6_nvidia_backend_allows_five_precisions():
    from triton.backends.nvidia.compiler import CUDAOptions

    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's NVIDIA options; installed: {triton.__version__}")
    assert CUDAOptions().allowed_dot_input_precisions == ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")


@pytest.mark.interpreter
def test_interpreter_ignores_input_precision():
    a, b = fresh_randn(64, 64), fresh_randn(64, 64)
    results = [entry.matmul(a, b, p) for p in ("default", "tf32", "tf32x3", "ieee")]
    assert all(torch.equal(results[0], r) for r in results[1:])  # bit for bit


@pytest.mark.interpreter
def test_interpreter_default_precision_matches_float64():
    a, b = fresh_randn(64, 64), fresh_randn(64, 64)
    assert_matches_float64(entry.matmul(a, b), a.double() @ b.double())


@pytest.mark.interpreter
def test_interpreter_reads_triton_f32_default(monkeypatch):
    monkeypatch.setenv("TRITON_F32_DEFAULT", "not-a-precision")
    a, b = fresh_randn(16, 16), fresh_randn(16, 16)
    with pytest.raises(Exception, match=r"input_precision must be one of .*Got not-a-precision"):
        entry.matmul(a, b, block_m=16, block_n=16, block_k=16)  # no input_precision in the call


GPU_SIZE = 512


def gpu_errors(precisions, size=GPU_SIZE):
    a, b = fresh_randn(size, size), fresh_randn(size, size)
    reference = a.double() @ b.double()
    return {p: entry.relative_error(entry.matmul(a, b, p, 64, 64, 32), reference) for p in precisions}


@pytest.mark.gpu
def test_gpu_default_precision_has_a_tf32_sized_error():
    error = gpu_errors(["default"])["default"]
    assert 1e-4 < error < 1e-2, error


@pytest.mark.gpu
def test_gpu_default_is_exactly_tf32():
    a, b = fresh_randn(GPU_SIZE, GPU_SIZE), fresh_randn(GPU_SIZE, GPU_SIZE)
    assert torch.equal(entry.matmul(a, b, "default", 64, 64, 32), entry.matmul(a, b, "tf32", 64, 64, 32))


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["ieee", "tf32x3"])
def test_gpu_ieee_and_tf32x3_stay_at_float32_accuracy(precision):
    assert gpu_errors([precision])[precision] < 1e-5


@pytest.mark.gpu
def test_gpu_torch_matmul_on_float32_is_not_tf32_by_default():
    """Run, not read from a global: torch.matmul with the settings a fresh process has."""
    a, b = fresh_randn(GPU_SIZE, GPU_SIZE), fresh_randn(GPU_SIZE, GPU_SIZE)
    reference = a.double() @ b.double()
    assert entry.relative_error(torch.matmul(a, b), reference) < 1e-5
    assert entry.relative_error(entry.matmul(a, b, "default", 64, 64, 32), reference) > 1e-4


@pytest.mark.gpu
def test_gpu_allow_tf32_false_means_ieee():
    a, b = fresh_randn(64, 64), fresh_randn(64, 64)
    c = poisoned(64, 64)
    dot_tile_allow_tf32_false[(1,)](a, b, c, 64, 64, 64)
    assert_matches_float64(c, a.double() @ b.double())
