"""TP013: what `tl.device_print` prints, what it accepts, and how to keep it short.

Run it: python device_print.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def print_offsets(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.device_print("My Offsets:", offsets)  # every program prints its whole block
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def print_offsets_pid0(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    if pid == 0:  # the fix: one program prints
        tl.device_print("My Offsets:", offsets)
# --8<-- [end:fix]


# --8<-- [start:small]
@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if pid == 0:  # one program only
        tl.device_print("first 4", tl.load(x_ptr + tl.arange(0, 4)))  # a small block of its own
        tl.device_print("max", tl.max(x, axis=0))  # a scalar summary instead of the block
    tl.store(out_ptr + offs, 2 * x, mask=offs < n)


@triton.jit
def print_sum(x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.device_print("sum", tl.sum(tl.load(x_ptr + offs), axis=0))  # one value per program
# --8<-- [end:small]


# --8<-- [start:scalars]
@triton.jit
def print_scalars(x_ptr, n, BLOCK: tl.constexpr):
    tl.device_print("three", 3)  # a Python int literal
    tl.device_print("half", 0.5)  # a Python float literal
    tl.device_print("BLOCK", BLOCK)  # a constexpr
    tl.device_print("n", n)  # an int argument of the launch


@triton.jit
def print_a_string(x_ptr):
    tl.device_print("s", "hello")
# --8<-- [end:scalars]


# --8<-- [start:timing]
@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr, PRINT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if PRINT:
        tl.device_print("x", x)
    tl.store(out_ptr + offs, 2 * x, mask=offs < n)


def seconds_per_launch(with_print, n=8 * 1024, repeats=20):
    """Median wall time of one launch + synchronize on the GPU (8 programs of 1024; 8192 lines printed)."""
    import statistics
    import time

    x, out = torch.ones(n, device=DEVICE), torch.empty(n, device=DEVICE)
    double[(8,)](x, out, n, BLOCK=1024, PRINT=with_print)  # compile and warm up
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        double[(8,)](x, out, n, BLOCK=1024, PRINT=with_print)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
# --8<-- [end:timing]


def main():
    x = torch.zeros(1, device=DEVICE)
    print("pitfall: every program prints (2 programs of 8 offsets):", flush=True)
    print_offsets[(2,)](x, 16, BLOCK_SIZE=8)
    if DEVICE == "cuda":
        torch.cuda.synchronize()  # the GPU's printf buffer is flushed here
    print("fix: only program 0 prints:", flush=True)
    print_offsets_pid0[(2,)](x, 16, BLOCK_SIZE=8)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    print("Python scalars, a constexpr and an int argument print too:", flush=True)
    print_scalars[(1,)](x, 6, BLOCK=8)
    if DEVICE == "cuda":
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
