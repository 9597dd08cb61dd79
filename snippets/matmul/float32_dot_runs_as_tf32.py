"""TP030: `tl.dot` shape rules, and float32 inputs that silently run as TF32.

Run it: ``python snippets/matmul/dot_shapes_and_tf32.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import re

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, median_ms, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:tile]
@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PRECISION: tl.constexpr):
    # One program, one (M, K) @ (K, N) product, row-major inputs.
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
# --8<-- [end:tile]


def tile_product(a, b, precision="ieee"):
    (m, k), n = a.shape, b.shape[1]
    c = poisoned(m, n)
    dot_tile[(1,)](a, b, c, m, n, k, precision)
    return c


# --8<-- [start:kernel]
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):                          # K is constexpr: a plain int for the interpreter
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if PRECISION == "default":
            acc = tl.dot(a, b, acc)                          # float32 inputs: TF32 on NVIDIA
        else:
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, precision="default", block_m=32, block_n=32, block_k=32, num_warps=4, num_stages=None, out=None):
    (m, k), n = a.shape, b.shape[1]
    c = poisoned(m, n) if out is None else out
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    extra = {} if num_stages is None else {"num_stages": num_stages}
    matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                        PRECISION=precision, num_warps=num_warps, **extra)
    return c
# --8<-- [end:kernel]


def relative_error(actual, reference):
    """‖actual − reference‖ / ‖reference‖, computed in float64."""
    actual64, reference64 = actual.double(), reference.double()
    return float(torch.linalg.vector_norm(actual64 - reference64) / torch.linalg.vector_norm(reference64))


# ---------------------------------------------------------------- shape rules

SHAPE_MESSAGE_3_6_CUDA = "Input shapes should have M >= 1, N >= 1 and K >= 16"


def dot_8x8():
    """An (8, 8) @ (8, 8) float32 product: a compile error on CUDA (Triton 3.6), fine on the interpreter."""
    a, b = fresh_randn(8, 8), fresh_randn(8, 8)
    return tile_product(a, b), a, b


# --8<-- [start:test-shapes]
@pytest.mark.gpu
def test_gpu_8x8_dot_is_rejected_for_k_below_16():
    with pytest.raises(Exception, match=re.escape(SHAPE_MESSAGE_3_6_CUDA)):
        dot_8x8()


@pytest.mark.gpu
def test_gpu_m_and_n_of_8_compile_when_k_is_16():
    a, b = fresh_randn(8, 16), fresh_randn(16, 8)
    assert_matches_float64(tile_product(a, b), a.double() @ b.double())


@pytest.mark.interpreter
def test_interpreter_runs_an_8x8_dot_that_the_gpu_rejects():
    c, a, b = dot_8x8()
    assert_matches_float64(c, a.double() @ b.double())
# --8<-- [end:test-shapes]


# --8<-- [start:rank-and-dtype]
@triton.jit
def dot_mixed_dtypes(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])           # float16
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])           # float32
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b))


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm = tl.arange(0, B), tl.arange(0, M)
    rn, rk = tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])  # (B, M, K)
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])  # (B, K, N)
    c = tl.dot(a, b, input_precision="ieee")                                                 # (B, M, N)
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], c)
# --8<-- [end:rank-and-dtype]


def mixed_dtype_dot():
    a = fresh_randn(16, 16, dtype=torch.float16)
    dot_mixed_dtypes[(1,)](a, fresh_randn(16, 16), poisoned(16, 16))


# --8<-- [start:test-rank-and-dtype]
def test_pitfall_float16_times_float32_is_rejected():
    with pytest.raises(Exception, match="Both operands must be same dtype. Got fp16 and fp32"):
        mixed_dtype_dot()


def test_batched_3d_dot_matches_float64():
    a, b = fresh_randn(2, 16, 32), fresh_randn(2, 32, 16)
    c = poisoned(2, 16, 16)
    batched_dot[(1,)](a, b, c, 2, 16, 16, 32)
    assert_matches_float64(c, a.double() @ b.double())
# --8<-- [end:test-rank-and-dtype]


# ---------------------------------------------------------------- input_precision

# --8<-- [start:legacy]
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
# --8<-- [end:legacy]


def both_precision_flags():
    dot_tile_both_flags[(1,)](fresh_randn(16, 16), fresh_randn(16, 16), poisoned(16, 16))


def misspelled_precision():
    a, b = fresh_randn(16, 16), fresh_randn(16, 16)
    tile_product(a, b, precision="tf3x")


def bf16x3_on_the_interpreter():
    a, b = fresh_randn(16, 16), fresh_randn(16, 16)
    tile_product(a, b, precision="bf16x3")


# --8<-- [start:test-fix]
@pytest.mark.parametrize("precision", ["ieee", "tf32x3"])
def test_fix_explicit_precision_matches_float64(precision):
    a, b = fresh_randn(64, 48), fresh_randn(48, 40)          # edges that do not fill a 32-block
    assert_matches_float64(matmul(a, b, precision), a.double() @ b.double())


def test_fix_a_strided_view_matches_float64():
    a, b = fresh_randn(48, 64).t(), fresh_randn(40, 48).t()   # column-major views
    assert_matches_float64(matmul(a, b, "ieee"), a.double() @ b.double())
# --8<-- [end:test-fix]


# --8<-- [start:test-precision-errors]
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
# --8<-- [end:test-precision-errors]


# --8<-- [start:test-torch-default]
def test_torch_float32_matmul_default_is_highest():
    assert torch.get_float32_matmul_precision() == "highest"   # torch.backends.cuda.matmul.allow_tf32 is False
# --8<-- [end:test-torch-default]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
def test_interpreter_ignores_input_precision():
    a, b = fresh_randn(64, 64), fresh_randn(64, 64)
    results = [matmul(a, b, p) for p in ("default", "tf32", "tf32x3", "ieee")]
    assert all(torch.equal(results[0], r) for r in results[1:])   # bit for bit


@pytest.mark.interpreter
def test_interpreter_default_precision_matches_float64():
    a, b = fresh_randn(64, 64), fresh_randn(64, 64)
    assert_matches_float64(matmul(a, b), a.double() @ b.double())


@pytest.mark.interpreter
def test_interpreter_reads_triton_f32_default(monkeypatch):
    monkeypatch.setenv("TRITON_F32_DEFAULT", "not-a-precision")
    a, b = fresh_randn(16, 16), fresh_randn(16, 16)
    with pytest.raises(Exception, match=r"input_precision must be one of .*Got not-a-precision"):
        matmul(a, b, block_m=16, block_n=16, block_k=16)       # no input_precision in the call
# --8<-- [end:test-interpreter]


# --8<-- [start:test-gpu-precision]
GPU_SIZE = 512


def gpu_errors(precisions, size=GPU_SIZE):
    a, b = fresh_randn(size, size), fresh_randn(size, size)
    reference = a.double() @ b.double()
    return {p: relative_error(matmul(a, b, p, 64, 64, 32), reference) for p in precisions}


@pytest.mark.gpu
def test_gpu_default_precision_has_a_tf32_sized_error():
    error = gpu_errors(["default"])["default"]
    assert 1e-4 < error < 1e-2, error


@pytest.mark.gpu
def test_gpu_default_is_exactly_tf32():
    a, b = fresh_randn(GPU_SIZE, GPU_SIZE), fresh_randn(GPU_SIZE, GPU_SIZE)
    assert torch.equal(matmul(a, b, "default", 64, 64, 32), matmul(a, b, "tf32", 64, 64, 32))


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["ieee", "tf32x3"])
def test_gpu_ieee_and_tf32x3_stay_at_float32_accuracy(precision):
    assert gpu_errors([precision])[precision] < 1e-5


@pytest.mark.gpu
def test_gpu_allow_tf32_false_means_ieee():
    a, b = fresh_randn(64, 64), fresh_randn(64, 64)
    c = poisoned(64, 64)
    dot_tile_allow_tf32_false[(1,)](a, b, c, 64, 64, 64)
    assert_matches_float64(c, a.double() @ b.double())
# --8<-- [end:test-gpu-precision]


BENCH_SIZE = 4096


def _torch_matmul(a, b, precision):
    """torch.matmul with float32 matmul precision 'highest' (allow_tf32=False) or 'high' (allow_tf32=True)."""
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:
        return torch.matmul(a, b), median_ms(lambda: torch.matmul(a, b))
    finally:
        torch.set_float32_matmul_precision(previous)


@gpu_evidence("dot-precision")
def measure_dot_precision():
    """Error vs float64 and speed of a 4096^3 float32 matmul, per input_precision, next to torch.matmul.

    Compute-bound: the ceiling is cuBLAS (torch.matmul) at the same precision, measured in this run;
    TF32-class rows are compared with torch's TF32 matmul, full-float32 rows with torch's float32 one.
    """
    n = BENCH_SIZE
    a, b = fresh_randn(n, n), fresh_randn(n, n)
    reference = a.double() @ b.double()
    flops = 2 * n ** 3
    torch_rows, ceiling = [], {}
    for precision, flag in (("highest", "False"), ("high", "True")):
        result, timing = _torch_matmul(a, b, precision)
        ceiling[flag] = timing["median_ms"]
        torch_rows.append([f"torch.matmul, allow_tf32={flag}", relative_error(result, reference),
                           timing["median_ms"], flops / (timing["median_ms"] * 1e-3) / 1e12, 1.0])
    rows = []
    for precision in ("default", "tf32", "tf32x3", "ieee"):
        out = poisoned(n, n)
        run = lambda: matmul(a, b, precision, 128, 128, 32, num_warps=8, num_stages=3, out=out)  # noqa: E731
        run()
        error = relative_error(out, reference)
        timing = median_ms(run)
        same_precision = ceiling["True" if precision in ("default", "tf32") else "False"]
        rows.append([f"tl.dot, input_precision={precision}" if precision != "default" else "tl.dot (default)",
                     error, timing["median_ms"], flops / (timing["median_ms"] * 1e-3) / 1e12,
                     same_precision / timing["median_ms"]])
    return table(
        [label("product", "乘法", "product"),
         label("relative error vs float64", "相对 float64 的误差", "relative_error"),
         label("time ms (median)", "耗时 毫秒（中位数）", "time_ms"),
         label("TFLOP/s", "TFLOP/s", "tflops"),
         label("speed vs torch.matmul at the same precision", "相对同精度 torch.matmul 的速度", "vs_torch")],
        rows + torch_rows, size=n,
    )


def main():
    print(describe())
    a, b = fresh_randn(128, 128), fresh_randn(128, 128)
    reference = a.double() @ b.double()
    for precision in ("default", "tf32", "tf32x3", "ieee"):
        print(f"input_precision={precision:8s} relative error vs float64: {relative_error(matmul(a, b, precision), reference):.2e}")
    try:
        dot_8x8()
        print("an 8x8x8 tl.dot ran")
    except Exception as error:  # the GPU rejects it; printed, not hidden
        print("an 8x8x8 tl.dot was rejected:", str(error).strip().splitlines()[-1])


if __name__ == "__main__":
    main()
