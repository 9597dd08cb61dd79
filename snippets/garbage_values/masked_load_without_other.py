"""TP001: `tl.max` returns 0 because a masked `tl.load` had no `other`.

Run it: python masked_load_without_other.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def row_max_pitfall(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols)  # no `other`
    tl.store(out_ptr + row, tl.max(x, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_max_fixed(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    # the fix: masked lanes get the identity of max (-inf for max, +inf for min, 0 for sum)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))
# --8<-- [end:fix]


# --8<-- [start:launch]
def row_max(kernel, x):
    """Max of each row of a 2-D float32 tensor, one program per row."""
    n_rows, n_cols = x.shape
    out = torch.full((n_rows,), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:min-sum]
@triton.jit
def row_min_sum(x_ptr, min_ptr, sum_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ptrs = x_ptr + row * stride_row + cols
    mask = cols < n_cols
    tl.store(min_ptr + row, tl.min(tl.load(ptrs, mask=mask, other=float("inf")), axis=0))
    tl.store(sum_ptr + row, tl.sum(tl.load(ptrs, mask=mask, other=0.0), axis=0))
# --8<-- [end:min-sum]


# --8<-- [start:masked-lanes]
@triton.jit
def copy_block_masked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # lanes n..BLOCK-1 are masked off, no `other`
    tl.store(out_ptr + offs, x)  # store every lane, the masked ones too


def masked_lane_values(dtype=torch.float32, n=5, block=16, sentinel=77):
    """What a masked load without `other` leaves in the masked lanes.

    The input is a view of the first `n` elements of a buffer filled with `sentinel`,
    so a lane that read memory anyway would show the sentinel.
    """
    buffer = torch.full((block,), sentinel, dtype=dtype, device=DEVICE)
    out = torch.full((block,), sentinel + 1, dtype=dtype, device=DEVICE)
    copy_block_masked[(1,)](buffer[:n], out, n, BLOCK=block)
    return out[n:].cpu()
# --8<-- [end:masked-lanes]


def main():
    x = -torch.rand(4, 100, device=DEVICE) - 0.5  # every value below -0.5; 100 columns in a block of 128
    print("rows of 100 negative values, in a block of 128 lanes")
    print("  torch  max:", [round(v, 4) for v in x.amax(dim=1).tolist()])
    print("  pitfall max:", row_max(row_max_pitfall, x).tolist())
    print("  fixed   max:", [round(v, 4) for v in row_max(row_max_fixed, x).tolist()])
    print("masked lanes without `other` hold:", masked_lane_values().tolist())


if __name__ == "__main__":
    main()
