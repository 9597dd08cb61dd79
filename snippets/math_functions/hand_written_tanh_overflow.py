"""TP022: the hand-written tanh (exp(2x) - 1) / (exp(2x) + 1) returns NaN for x above about 44.36.

Run it: python hand_written_tanh_overflow.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import math  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = (tl.exp(2 * x) - 1) / (tl.exp(2 * x) + 1)  # exp(2x) overflows to inf: inf / inf
    tl.store(out_ptr + offs, y, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def tanh_stable_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = tl.exp(-2 * tl.abs(x))  # the fix: in [0, 1], cannot overflow; exp(-inf) = 0
    y = (1 - t) / (1 + t)  # tanh(|x|)
    y = tl.where(x < 0, -y, y)  # tanh is odd
    tl.store(out_ptr + offs, y, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:libdevice]
from triton.language.extra import libdevice  # noqa: E402  (runs in compiled code only)


@triton.jit
def tanh_libdevice_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.tanh(x), mask=mask)
# --8<-- [end:libdevice]


# --8<-- [start:launch]
def launch(kernel, x, block=128):
    """Run an element-wise kernel on a 1-D float32 tensor; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK_SIZE=block)
    return out


EDGES = [-math.inf, -100.0, -45.0, -44.0, 44.0, 44.3, 44.4, 45.0, 100.0, math.inf]


def edges():
    return torch.tensor(EDGES, dtype=torch.float32, device=DEVICE)
# --8<-- [end:launch]


def main():
    x = edges()
    hand_written = launch(tanh_kernel, x).tolist()  # on the interpreter NumPy warns: overflow, invalid value
    stable = launch(tanh_stable_kernel, x).tolist()
    print("x, hand-written, stable, torch.tanh")
    for row in zip(EDGES, hand_written, stable, torch.tanh(x).tolist()):
        print(", ".join(f"{v:.4g}" for v in row))
    sweep = torch.linspace(44.0, 45.0, 101, device=DEVICE)
    first_nan = sweep[torch.isnan(launch(tanh_kernel, sweep))].min().item()
    print(f"first NaN of the hand-written tanh in steps of 0.01: x = {first_nan:.2f}")


if __name__ == "__main__":
    main()
