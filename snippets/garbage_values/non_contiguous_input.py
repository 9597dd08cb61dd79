"""TP026: a kernel written for flat contiguous memory, given a transposed, sliced, expanded or
channels_last tensor.

Run it: python non_contiguous_input.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def double_flat(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # element i is at x_ptr + i: no strides
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def double_pitfall(x):
    out = torch.full(x.shape, float("nan"), device=x.device)  # contiguous, NaN until written
    n = x.numel()
    double_flat[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)  # Triton receives x.data_ptr() only
    return out
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def double_contiguous(x):
    x = x.contiguous()  # the fix: a copy in row-major order; no copy if x already is contiguous
    out = torch.full(x.shape, float("nan"), device=x.device)
    n = x.numel()
    double_flat[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
# --8<-- [end:fix]


# --8<-- [start:fix-strides]
@triton.jit
def double_2d(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, 2.0 * x, mask=mask)


def double_strided(x, out=None, block=16):
    """2 * x for a 2-D x of any strides (transposed, sliced, expanded), into out of any strides."""
    M, N = x.shape
    out = torch.full((M, N), float("nan"), device=x.device) if out is None else out
    grid = (triton.cdiv(M, block), triton.cdiv(N, block))
    double_2d[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                    BLOCK_M=block, BLOCK_N=block)
    return out
# --8<-- [end:fix-strides]


# --8<-- [start:guard]
def double_checked(x):
    if not x.is_contiguous():  # a raise, not an assert: `python -O` strips asserts
        raise ValueError(f"double_flat needs a contiguous tensor, got shape {tuple(x.shape)} with strides "
                         f"{x.stride()}; call .contiguous() first")
    return double_pitfall(x)  # safe now: storage order is row-major order
# --8<-- [end:guard]


# --8<-- [start:layouts]
def layouts(randn=lambda *shape: torch.randn(*shape, device=DEVICE)):
    """Four non-contiguous tensors, each with the tensor whose storage it shares."""
    a = randn(6, 10)
    w = randn(6, 20)
    buffer = torch.full((60,), 1000.0, device=DEVICE)  # a row of 10, then 50 elements of 1000.0
    buffer[:10] = randn(10)
    nchw = randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
    return {
        "transpose": (a.t(), a),                          # (10, 6), strides (1, 10)
        "every other column": (w[:, ::2], w),             # (6, 10), strides (20, 2)
        "expand": (buffer[:10].expand(6, 10), buffer),    # (6, 10), strides (0, 1)
        "channels_last": (nchw, nchw),                    # NCHW shape, NHWC storage
    }
# --8<-- [end:layouts]


def main():
    for name, (x, _) in layouts().items():
        print(f"{name:20s} shape {tuple(x.shape)} strides {x.stride()}: flat kernel right? "
              f"{torch.equal(double_pitfall(x), 2 * x)}; after .contiguous() right? "
              f"{torch.equal(double_contiguous(x), 2 * x)}")
    a = torch.arange(6.0, device=DEVICE).view(2, 3)
    print("a =", a.tolist(), "; a.t() =", a.t().tolist())
    print("flat kernel on a.t():", double_pitfall(a.t()).tolist(), " (2 * a.t() is", (2 * a.t()).tolist(), ")")
    print("stride-aware kernel on a.t():", double_strided(a.t()).tolist())


if __name__ == "__main__":
    main()
