"""TP092: a second tl.store to the same address in one program does not always win.

Run it: python overlapping_stores_in_one_program.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def double_the_tail_racy(x_ptr, out_ptr, BLOCK: tl.constexpr, TAIL: tl.constexpr):
    row = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row + offs, tl.load(x_ptr + row + offs))  # 1. the whole row as it is
    tail = BLOCK - TAIL + tl.arange(0, TAIL)
    tl.store(out_ptr + row + tail, 2 * tl.load(x_ptr + row + tail))  # 2. its tail again, doubled: may lose to 1.
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def double_the_tail(x_ptr, out_ptr, BLOCK: tl.constexpr, TAIL: tl.constexpr):
    row = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row + offs)
    y = tl.where(offs >= BLOCK - TAIL, 2 * x, x)  # the fix: each element's final value first...
    tl.store(out_ptr + row + offs, y)  # ...then one store per address
# --8<-- [end:fix]


# --8<-- [start:barrier]
@triton.jit
def double_the_tail_after_a_barrier(x_ptr, out_ptr, BLOCK: tl.constexpr, TAIL: tl.constexpr):
    row = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row + offs, tl.load(x_ptr + row + offs))
    tl.debug_barrier()  # every thread of the program has stored before any stores again
    tail = BLOCK - TAIL + tl.arange(0, TAIL)
    tl.store(out_ptr + row + tail, 2 * tl.load(x_ptr + row + tail))
# --8<-- [end:barrier]


# --8<-- [start:read-back]
@triton.jit
def reverse_plus_one_racy(x_ptr, tmp_ptr, out_ptr, BLOCK: tl.constexpr, BARRIER: tl.constexpr):
    row = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    tl.store(tmp_ptr + row + offs, tl.load(x_ptr + row + offs) + 1)  # each thread writes its elements
    if BARRIER:
        tl.debug_barrier()  # the fix: every write is done before any thread reads
    tl.store(out_ptr + row + offs, tl.load(tmp_ptr + row + BLOCK - 1 - offs))  # reads other threads' elements
# --8<-- [end:read-back]


# --8<-- [start:launch]
def run(kernel, x, tail, **options):
    """``kernel`` on each row of ``x`` (rows x BLOCK, BLOCK a power of 2); the output starts as NaN."""
    rows, block = x.shape
    out = torch.full_like(x, float("nan"))
    kernel[(rows,)](x, out, BLOCK=block, TAIL=tail, **options)
    return out


def expected(x, tail):
    """What the kernels mean: the row as it is, its last ``tail`` elements doubled."""
    y = x.clone()
    y[:, -tail:] *= 2
    return y


def lost(out, x, tail):
    """How many tail elements are not doubled: kept the first store's value (the second store lost), or unwritten."""
    return int((out[:, -tail:] != 2 * x[:, -tail:]).sum())


def reverse_plus_one(x, barrier):
    """Each row of ``x`` plus one, reversed, through a scratch buffer written and read back in one program."""
    rows, block = x.shape
    tmp = torch.full_like(x, float("nan"))
    out = torch.full_like(x, float("nan"))
    reverse_plus_one_racy[(rows,)](x, tmp, out, BLOCK=block, BARRIER=barrier)
    return out
# --8<-- [end:launch]


def main():
    rows = 4096 if DEVICE == "cuda" else 8  # the interpreter runs one program after another: keep it short
    x = torch.randn(rows, 1024, device=DEVICE)
    total = rows * 256
    print(f"racy:    {lost(run(double_the_tail_racy, x, 256), x, 256)} of {total} tail elements kept the first store")
    print(f"where:   {lost(run(double_the_tail, x, 256), x, 256)} of {total}")
    print(f"barrier: {lost(run(double_the_tail_after_a_barrier, x, 256), x, 256)} of {total}")
    want = (x + 1).flip(1)
    for barrier in (False, True):
        wrong = int((reverse_plus_one(x, barrier) != want).sum())
        print(f"read back {'after a barrier' if barrier else 'without a barrier'}: {wrong} of {x.numel()} wrong")


if __name__ == "__main__":
    main()
