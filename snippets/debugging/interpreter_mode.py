"""TP012: `TRITON_INTERPRET=1` does not catch an out-of-bounds access.

Run it: python interpreter_mode.py  (without a GPU, Triton's interpreter runs it on the CPU)
`python -X faulthandler interpreter_mode.py --far-load` loads far outside any allocation:
on the interpreter that kills the process on purpose, and faulthandler prints the kernel line.
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
def copy_without_mask(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # no mask: reads BLOCK elements, whatever n is


@triton.jit
def fill_without_mask(x_ptr, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK,), tl.float32) + value)  # no mask: writes BLOCK elements
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def copy_with_mask(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n  # the fix: only the n elements x has
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:neighbours]
def neighbours(n=4, block=8, sentinel=-7.0):
    """`x` holds 0, 1, ..., n-1 and is followed in memory by its neighbour, full of `sentinel`.

    Both are views of one buffer, so going past the end of `x` stays inside memory we own.
    """
    buffer = torch.full((2 * block,), sentinel, device=DEVICE)
    x, neighbour = buffer[:n], buffer[n:]
    x.copy_(torch.arange(n, dtype=torch.float32))
    return x, neighbour


def copy_block(kernel, n=4, block=8):
    """Copy a block of `block` lanes from an `x` of `n` elements into a NaN-filled output."""
    x, _ = neighbours(n, block)
    out = torch.full((block,), float("nan"), device=DEVICE)  # NaN until a program writes it
    kernel[(1,)](x, out, n, BLOCK=block)
    return out
# --8<-- [end:neighbours]


# --8<-- [start:caught]
@triton.jit
def add_mismatched_blocks(x_ptr, out_ptr):
    a = tl.load(x_ptr + tl.arange(0, 4))
    b = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(out_ptr + tl.arange(0, 4), a + b)  # shapes (4,) and (8,)


@triton.jit
def arange_of_100(out_ptr):
    offs = tl.arange(0, 100)  # not a power of two
    tl.store(out_ptr + offs, offs)
# --8<-- [end:caught]


# --8<-- [start:print-breakpoint]
@triton.jit
def inspect_me(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    print("pid", pid, "x", x)  # plain Python print: the interpreter runs this line as Python
    breakpoint()  # stops here with pid, offs, x as local variables
# --8<-- [end:print-breakpoint]


# --8<-- [start:far]
@triton.jit
def far_load(x_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + shift + offs)  # FAR-LOAD: 2**40 elements past the start of x
    tl.store(out_ptr + offs, x)


def run_far_load():
    x, out = torch.zeros(4, device=DEVICE), torch.zeros(4, device=DEVICE)
    far_load[(1,)](x, out, 2**40, BLOCK=4)
    print("far load returned", out.cpu().tolist(), flush=True)
# --8<-- [end:far]


def main():
    import sys

    if "--far-load" in sys.argv:
        run_far_load()
        return
    print("x holds [0, 1, 2, 3]; its neighbour in memory holds -7.0; a block of 8 lanes:")
    print("  pitfall, no mask:", copy_block(copy_without_mask).tolist(), "(no error)")
    print("  fix, masked     :", copy_block(copy_with_mask).tolist())
    try:
        add_mismatched_blocks[(1,)](torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE))
    except Exception as error:  # InterpreterError on the interpreter, CompilationError on CUDA
        print("blocks of shapes (4,) and (8,):", type(error).__name__)


if __name__ == "__main__":
    main()
