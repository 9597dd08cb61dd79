"""TP008: summing float16 / bfloat16: what `tl.sum` accumulates in, and the running-sum trap.

Run it: python low_precision_sum.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def running_sum_pitfall(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=x_ptr.dtype.element_ty)  # float16 input -> float16 accumulator
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + offs)
    tl.store(out_ptr, tl.sum(acc, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def running_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)  # the fix: accumulate in float32 whatever the input
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + offs).to(tl.float32)
    tl.store(out_ptr, tl.sum(acc, axis=0))
# --8<-- [end:fix]


# --8<-- [start:launch]
def total(kernel, x, block):
    """The sum of a 1-D tensor whose length is a multiple of `block` (these kernels have no mask)."""
    assert x.numel() % block == 0, "these kernels have no mask: the length must be a multiple of block"
    out = torch.full((1,), float("nan"), device=x.device)  # float32, NaN until the kernel writes it
    kernel[(1,)](x, out, x.numel(), BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:fix-scalar]
@triton.jit
def running_sum_scalar(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.sum(tl.load(x_ptr + start + offs), axis=0, dtype=tl.float32)  # each block's sum in float32
    tl.store(out_ptr, acc)
# --8<-- [end:fix-scalar]


# --8<-- [start:sum-dtype]
@triton.jit
def block_sum_two_ways(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))            # float16
    default = tl.sum(x, axis=0)
    tl.static_assert(default.dtype == tl.float16)        # no upcast: the result is float16
    wide = tl.sum(x, axis=0, dtype=tl.float32)
    tl.static_assert(wide.dtype == tl.float32)
    tl.store(out_ptr + 0, default)                       # out is float32
    tl.store(out_ptr + 1, wide)
# --8<-- [end:sum-dtype]


# --8<-- [start:block-sums]
@triton.jit
def block_sum_default(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x, axis=0))                    # summed in the input's dtype


@triton.jit
def block_sum_upcast(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x.to(tl.float32), axis=0))     # any Triton version


@triton.jit
def block_sum_dtype(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x, axis=0, dtype=tl.float32))  # needs tl.sum's dtype parameter


def block_total(kernel, x):
    """One block-sum kernel on all of `x` (a power-of-two length), stored as float32."""
    out = torch.full((1,), float("nan"), device=x.device)
    kernel[(1,)](x, out, BLOCK=x.numel())
    return out
# --8<-- [end:block-sums]


# --8<-- [start:bfloat16-dtype]
@triton.jit
def bfloat16_sum_stays_bfloat16(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))               # bfloat16
    tl.static_assert(tl.sum(x, axis=0).dtype == tl.bfloat16)
    tl.store(out_ptr, tl.sum(x.to(tl.float32), axis=0))    # reached only if the assert holds
# --8<-- [end:bfloat16-dtype]


# --8<-- [start:mixed]
@triton.jit
def running_sum_mixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((), dtype=x_ptr.dtype.element_ty)    # float16 accumulator ...
    for start in range(0, n, BLOCK):
        x = tl.load(x_ptr + start + offs)
        acc += tl.sum(x, axis=0, dtype=tl.float32)      # ... plus a float32 sum: acc becomes float32
    tl.store(out_ptr, acc)
# --8<-- [end:mixed]


def main():
    x = torch.ones(2**14, dtype=torch.float16, device=DEVICE)
    print("sum of 2**14 float16 ones")
    print("  float16 running sum (4 lanes):", total(running_sum_pitfall, x, block=4).item())
    print("  float32 running sum          :", total(running_sum, x, block=64).item())
    x = torch.zeros(64, dtype=torch.float16, device=DEVICE)
    x[0], x[1] = 1024.0, 0.5
    print("tl.sum of [1024, 0.5, 0, ...] (the exact sum is 1024.5):",
          "float16", block_total(block_sum_default, x).item(),
          "| x.to(tl.float32)", block_total(block_sum_upcast, x).item(),
          "| dtype=tl.float32", block_total(block_sum_dtype, x).item())


if __name__ == "__main__":
    main()
