"""TP003: N is not a multiple of BLOCK_SIZE and the loads and stores have no mask.

Run it: python missing_tail_mask.py  (without a GPU, Triton's interpreter runs it on the CPU)

The overrun is shown safely: input and output are views at the start of larger tensors, so
the elements the last block runs into belong to us and hold known values.
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
def add_one_pitfall(x_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # no mask
    tl.store(out_ptr + offsets, x + 1.0)  # no mask
# --8<-- [end:pitfall]


# --8<-- [start:load-only]
@triton.jit
def add_one_load_masked(x_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    x = tl.load(x_ptr + offsets, mask=mask)  # the load is masked...
    tl.store(out_ptr + offsets, x + 1.0)  # ...the store is not
# --8<-- [end:load-only]


# --8<-- [start:fix]
@triton.jit
def add_one(x_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N  # the fix: the last block's lanes past N are masked off
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + 1.0, mask=mask)  # the store too
# --8<-- [end:fix]


# --8<-- [start:guarded]
SENTINEL = 1000.0  # the input's neighbours hold 1000, 1001, 1002, ...


def guarded_launch(kernel, values, block_size, spare=32):
    """Launch `kernel` on x = xbuf[:n] (a copy of `values`) and out = outbuf[:n].

    xbuf[n:] holds SENTINEL + 0, 1, 2, ... and outbuf[n:] holds NaN, so whatever the kernel
    reads or writes past element n shows up, and it stays inside memory we own.
    Returns x and the whole output buffer.
    """
    n = values.numel()
    xbuf = torch.empty(n + spare, device=DEVICE)
    xbuf[:n] = values
    xbuf[n:] = SENTINEL + torch.arange(spare, device=DEVICE)
    outbuf = torch.full((n + spare,), float("nan"), device=DEVICE)  # NaN until a program writes it
    x, out = xbuf[:n], outbuf[:n]
    kernel[(triton.cdiv(n, block_size),)](x, out, n, BLOCK_SIZE=block_size)
    return x, outbuf
# --8<-- [end:guarded]


def main():
    values = torch.arange(10.0, device=DEVICE)
    print("N = 10, BLOCK_SIZE = 8; outbuf[10:] starts as NaN, xbuf[10:] holds 1000, 1001, ...")
    for name, kernel in [("pitfall", add_one_pitfall), ("load-only mask", add_one_load_masked), ("fix", add_one)]:
        x, outbuf = guarded_launch(kernel, values, block_size=8, spare=8)
        print(f"  {name:15} outbuf[:10] = {outbuf[:10].tolist()}")
        print(f"  {'':15} outbuf[10:] = {outbuf[10:].tolist()}")


if __name__ == "__main__":
    main()
