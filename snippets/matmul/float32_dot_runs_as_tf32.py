"""TP035: `tl.dot` on float32 inputs runs as TF32 on NVIDIA GPUs unless you say otherwise.

Run it: python float32_dot_runs_as_tf32.py  (without a GPU, Triton's interpreter runs it on the CPU,
where every precision computes in full float32)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):  # K is constexpr: a plain int for the interpreter
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if PRECISION == "default":
            acc = tl.dot(a, b, acc)  # float32 inputs: TF32 on NVIDIA GPUs
        else:
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, precision="default", block_m=32, block_n=32, block_k=32, num_warps=4, num_stages=None, out=None):
    (m, k), n = a.shape, b.shape[1]
    c = torch.full((m, n), float("nan"), device=a.device) if out is None else out  # NaN until written
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    extra = {} if num_stages is None else {"num_stages": num_stages}
    matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                        PRECISION=precision, num_warps=num_warps, **extra)
    return c
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def matmul_float32(a, b):
    return matmul(a, b, precision="ieee")  # the fix: tl.dot(..., input_precision="ieee"), or "tf32x3"
# --8<-- [end:fix]


# --8<-- [start:error]
def relative_error(actual, reference):
    """‖actual − reference‖ / ‖reference‖, computed in float64."""
    actual64, reference64 = actual.double(), reference.double()
    return (torch.linalg.vector_norm(actual64 - reference64) / torch.linalg.vector_norm(reference64)).item()
# --8<-- [end:error]


def main():
    torch.manual_seed(0)
    a, b = torch.randn(64, 64, device=DEVICE), torch.randn(64, 64, device=DEVICE)
    reference = a.double() @ b.double()
    for precision in ("default", "tf32", "tf32x3", "ieee"):
        error = relative_error(matmul(a, b, precision), reference)
        print(f"input_precision={precision:8s} relative error vs float64: {error:.1e}")
    print(f"torch.matmul             relative error vs float64: {relative_error(a @ b, reference):.1e}")


if __name__ == "__main__":
    main()
