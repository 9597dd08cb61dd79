"""TP006: `tl.max(x)` without `axis` reduces over every axis, on 1-D and 2-D blocks.

Run it: python max_without_axis.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def row_max_pitfall(x_ptr, out_ptr, n_rows, n_cols, stride_row,
                    ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=-float("inf"))
    row_max = tl.max(x)  # meant: one max per row; got: the max of the whole tile
    tl.store(out_ptr + rows, row_max, mask=rows < n_rows)  # a scalar, broadcast to every row
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_max(x_ptr, out_ptr, n_rows, n_cols, stride_row,
            ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=-float("inf"))
    row_max = tl.max(x, axis=1)  # the fix: name the axis that runs along a row; shape [ROWS]
    tl.store(out_ptr + rows, row_max, mask=rows < n_rows)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch_rows(kernel, x):
    """One program loads the whole 2-D tensor as one tile; returns what it stored per row."""
    n_rows, n_cols = x.shape
    out = torch.full((n_rows,), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(1,)](x, out, n_rows, n_cols, x.stride(0),
                 ROWS=triton.next_power_of_2(n_rows), COLS=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:one-d]
@triton.jit
def max_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    no_axis = tl.max(x)
    tl.static_assert(len(no_axis.shape) == 0)  # checked at compile time: a scalar, no axes left
    tl.store(out_ptr + 0, no_axis)
    tl.store(out_ptr + 1, tl.max(x, axis=0))
    tl.store(out_ptr + 2, tl.sum(tl.where(offs < n, x, 0.0)))  # tl.sum without axis, too


def launch_1d(x):
    """[tl.max(x), tl.max(x, axis=0), tl.sum(x)] of a 1-D tensor, in one block."""
    out = torch.full((3,), float("nan"), device=x.device)
    max_1d[(1,)](x, out, x.numel(), BLOCK=triton.next_power_of_2(x.numel()))
    return out
# --8<-- [end:one-d]


def main():
    x = torch.arange(32.0, device=DEVICE).reshape(4, 8)
    print("4 rows of 8 values:", x.tolist())
    print("  torch amax(dim=1)  :", x.amax(dim=1).tolist())
    print("  tl.max(x)          :", launch_rows(row_max_pitfall, x).tolist())
    print("  tl.max(x, axis=1)  :", launch_rows(row_max, x).tolist())
    x = torch.tensor([3.0, -1.0, 7.0, 2.0, 5.0], device=DEVICE)
    print("1-D", x.tolist(), "-> tl.max(x), tl.max(x, axis=0), tl.sum(x):", launch_1d(x).tolist())


if __name__ == "__main__":
    main()
