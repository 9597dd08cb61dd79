"""TP076: a kernel that reads a global Python list or NumPy array.

Run it: python global_list_or_numpy_array.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import numpy as np  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
WEIGHTS = [0.5, 1.0, 2.0, 4.0]  # a per-channel table, as a list
WEIGHTS_NP = np.array(WEIGHTS, dtype=np.float32)  # or as a NumPy array


@triton.jit
def weigh_list(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * WEIGHTS[1], mask=mask)


@triton.jit
def weigh_numpy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * WEIGHTS_NP[offs % 4], mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def weigh(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.load(w_ptr + offs % 4, mask=mask)  # the fix: the table is a tensor argument, indexed like any other
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * w, mask=mask)


W = torch.tensor([0.5, 1.0, 2.0, 4.0], device=DEVICE)  # the table, made once, next to the kernel
# --8<-- [end:fix]


# --8<-- [start:constexpr-tuple]
WEIGHTS_CONST = tl.constexpr((0.5, 1.0, 2.0, 4.0))  # a small table known when compiling


@triton.jit
def weigh_const(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.zeros((BLOCK,), tl.float32)
    for i in tl.static_range(4):  # a compile-time index into a constexpr tuple
        w = tl.where(offs % 4 == i, WEIGHTS_CONST[i], w)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * w, mask=mask)
# --8<-- [end:constexpr-tuple]


# --8<-- [start:launch]
def run(kernel, x, *tables, BLOCK=128):
    """out[i] = x[i] * weight of channel i % 4; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    args = (x, *tables, out, x.numel())
    kernel[(triton.cdiv(x.numel(), BLOCK),)](*args, BLOCK=BLOCK)
    return out
# --8<-- [end:launch]


def main():
    x = torch.ones(8, device=DEVICE)
    for name, kernel in (("list", weigh_list), ("numpy", weigh_numpy)):
        try:
            print(name, run(kernel, x).tolist())
        except Exception as error:
            print(name, type(error).__name__, str(error).strip().splitlines()[-1][:100])
    print("tensor argument:", run(weigh, x, W).tolist())
    print("constexpr tuple:", run(weigh_const, x).tolist())


if __name__ == "__main__":
    main()
