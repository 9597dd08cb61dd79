"""TP050: a Python float passed to a compiled kernel arrives as float32.

Run it: python float_arguments_become_float32.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def scale(x_ptr, out_ptr, s, n, BLOCK: tl.constexpr):  # s: a Python float
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * s, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scale_fp64(x_ptr, out_ptr, s: tl.float64, n, BLOCK: tl.constexpr):  # the fix: type the argument as float64
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * s, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:tensor]
@triton.jit
def scale_from_tensor(x_ptr, out_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(s_ptr)  # a one-element float64 tensor keeps every bit of the value
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * s, mask=mask)
# --8<-- [end:tensor]


# --8<-- [start:launch]
def launch(kernel, x, s, block=64):
    """out = x * s for a 1-D tensor x; the output starts as NaN, which no program writes."""
    out = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), block),)](x, out, s, x.numel(), BLOCK=block)
    return out
# --8<-- [end:launch]


def main():
    ones = torch.ones(4, dtype=torch.float64, device=DEVICE)
    for s in (0.1, 1e39):
        print(f"float64 ones * {s}")
        print("  plain float argument :", launch(scale, ones, s)[:2].tolist())
        print("  s: tl.float64        :", launch(scale_fp64, ones, s)[:2].tolist())
        s_tensor = torch.tensor([s], dtype=torch.float64, device=DEVICE)
        print("  one-element tensor   :", launch(scale_from_tensor, ones, s_tensor)[:2].tolist())


if __name__ == "__main__":
    main()
