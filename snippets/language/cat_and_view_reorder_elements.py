"""TP051: `tl.cat`, `tl.view` and `tl.reshape(can_reorder=True)` may put the elements in another order.

Run it: python cat_and_view_reorder_elements.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def cat_pitfall(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    both = tl.cat(x, y, can_reorder=True)  # the only tl.cat this Triton accepts: the order is not promised
    tl.store(out_ptr + tl.program_id(0) * 2 * N + tl.arange(0, 2 * N), both)


@triton.jit
def flatten_pitfall(x_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    tile = tl.load(x_ptr + tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :])
    flat = tl.reshape(tile, (ROWS * COLS,), can_reorder=True)  # tl.view(tile, ...) does the same
    tl.store(out_ptr + tl.arange(0, ROWS * COLS), flat)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def cat_in_order(x, y):
    """[x..., y...] for two 1-D blocks of the same size, in this order on every backend."""
    pairs = tl.join(x, y)  # (N, 2): column 0 is x, column 1 is y
    return tl.reshape(tl.permute(pairs, (1, 0)), (2 * x.shape[0],))  # the fix: no can_reorder, row-major order


@triton.jit
def cat_fixed(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    both = cat_in_order(tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    tl.store(out_ptr + tl.program_id(0) * 2 * N + tl.arange(0, 2 * N), both)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def flatten_fixed(x_ptr, out_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    tile = tl.load(x_ptr + tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :])
    tl.store(out_ptr + tl.arange(0, ROWS * COLS), tl.reshape(tile, (ROWS * COLS,)))  # the fix: plain reshape
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def cat_rows(kernel, x, y):
    """Concatenate each row of x with the same row of y (2-D float32, one program per row)."""
    rows, n = x.shape
    out = torch.full((rows, 2 * n), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(rows,)](x, y, out, N=n)
    return out


def flatten(kernel, tile):
    """A (ROWS, COLS) float32 tile as a 1-D block of ROWS * COLS."""
    out = torch.full((tile.numel(),), float("nan"), device=tile.device)
    kernel[(1,)](tile, out, ROWS=tile.shape[0], COLS=tile.shape[1])
    return out
# --8<-- [end:launch]


# --8<-- [start:legitimate]
@triton.jit
def sum_of_cat(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    """What can_reorder is for: a result that does not depend on the order, such as a sum."""
    offs = tl.program_id(0) * N + tl.arange(0, N)
    both = tl.cat(tl.load(x_ptr + offs), tl.load(y_ptr + offs), can_reorder=True)
    tl.store(out_ptr + tl.program_id(0), tl.sum(both, axis=0))


@triton.jit
def cat_without_flag(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + tl.arange(0, 2 * N), tl.cat(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))
# --8<-- [end:legitimate]


def main():
    x = torch.arange(0.0, 8.0, device=DEVICE).reshape(1, 8)
    y = torch.arange(100.0, 108.0, device=DEVICE).reshape(1, 8)
    print("tl.cat(x, y, can_reorder=True):", cat_rows(cat_pitfall, x, y)[0].tolist())
    print("join, permute, reshape        :", cat_rows(cat_fixed, x, y)[0].tolist())
    tile = torch.arange(32.0, device=DEVICE).reshape(4, 8)
    print("reshape(can_reorder=True)     :", flatten(flatten_pitfall, tile).tolist())
    print("reshape                       :", flatten(flatten_fixed, tile).tolist())
    print("(the interpreter keeps the order in every case; compiled code need not)")


if __name__ == "__main__":
    main()
