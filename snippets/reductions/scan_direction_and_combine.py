"""TP054: `tl.associative_scan` with a non-commutative combine: which argument is which, and `reverse=True`.

Run it: python scan_direction_and_combine.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def combine_swapped(a_cur, x_cur, a_acc, x_acc):  # reads the FIRST pair as the current element
    return a_acc * a_cur, a_cur * x_acc + x_cur


@triton.jit
def recurrence_pitfall(a_ptr, x_ptr, h_ptr, N: tl.constexpr):
    """Meant: h[i] = a[i] * h[i-1] + x[i], one row per program."""
    offs = tl.program_id(0) * N + tl.arange(0, N)
    a, x = tl.load(a_ptr + offs), tl.load(x_ptr + offs)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=combine_swapped)
    tl.store(h_ptr + offs, h)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def combine(a_left, x_left, a_right, x_right):  # the fix: left is the earlier part of the scan, right the later
    return a_left * a_right, a_right * x_left + x_right


@triton.jit
def recurrence(a_ptr, x_ptr, h_ptr, N: tl.constexpr, REVERSE: tl.constexpr):
    """h[i] = a[i] * h[i-1] + x[i]; with REVERSE, h[i] = a[i] * h[i+1] + x[i]."""
    idx = tl.arange(0, N)
    if REVERSE:
        idx = N - 1 - idx  # walk the row backwards with index math; the scan itself runs forward
    offs = tl.program_id(0) * N + idx
    a, x = tl.load(a_ptr + offs), tl.load(x_ptr + offs)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=combine)
    tl.store(h_ptr + offs, h)
# --8<-- [end:fix]


# --8<-- [start:reverse-flag]
@triton.jit
def recurrence_reverse_flag(a_ptr, x_ptr, h_ptr, N: tl.constexpr):
    """reverse=True with the same combine: the left argument is then the part to the RIGHT (the later indices)."""
    offs = tl.program_id(0) * N + tl.arange(0, N)
    a, x = tl.load(a_ptr + offs), tl.load(x_ptr + offs)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=combine, reverse=True)
    tl.store(h_ptr + offs, h)


@triton.jit
def cumsums(x_ptr, forward_ptr, backward_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(forward_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(backward_ptr + offs, tl.cumsum(x, axis=0, reverse=True))  # suffix sums: x[i] + ... + x[N-1]
# --8<-- [end:reverse-flag]


# --8<-- [start:launch]
def run_recurrence(kernel, a, x, **constexprs):
    """One row of a 2-D float32 (a, x) per program; h starts as NaN so an unwritten element shows."""
    h = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](a, x, h, N=x.shape[1], **constexprs)
    return h


def recurrence_reference(a, x, reverse=False):
    """The recurrence in float64, one step at a time."""
    a, x = a.detach().cpu().double(), x.detach().cpu().double()
    h = torch.empty_like(x)
    steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    previous = torch.zeros(x.shape[0], dtype=torch.float64)
    for i in steps:
        previous = a[:, i] * previous + x[:, i]
        h[:, i] = previous
    return h
# --8<-- [end:launch]


def main():
    a = torch.tensor([[1.0, 2.0, 1.0, 2.0]], device=DEVICE)
    x = torch.tensor([[1.0, 1.0, 1.0, 1.0]], device=DEVICE)
    print("a =", a[0].tolist(), " x =", x[0].tolist())
    print("h[i] = a[i]*h[i-1] + x[i]")
    print("  float64         :", recurrence_reference(a, x)[0].tolist())
    print("  swapped combine :", run_recurrence(recurrence_pitfall, a, x)[0].tolist())
    print("  fixed combine   :", run_recurrence(recurrence, a, x, REVERSE=False)[0].tolist())
    print("h[i] = a[i]*h[i+1] + x[i]")
    print("  float64         :", recurrence_reference(a, x, reverse=True)[0].tolist())
    print("  index math      :", run_recurrence(recurrence, a, x, REVERSE=True)[0].tolist())
    print("  reverse=True    :", run_recurrence(recurrence_reverse_flag, a, x)[0].tolist())


if __name__ == "__main__":
    main()
