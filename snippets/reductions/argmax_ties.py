"""TP034: which index tl.argmax returns when the maximum appears more than once, or is NaN.

Run it: python argmax_ties.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def row_argmax_fast(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0, tie_break_left=False))  # any of the tied indices
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_argmax(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))  # the fix: default tie_break_left=True, the first one
# --8<-- [end:fix]


# --8<-- [start:launch]
def argmax_rows(kernel, x):
    """The argmax of each row of a contiguous 2-D float32 tensor, one program per row, as a list."""
    out = torch.full((x.shape[0],), -1, dtype=torch.int32, device=x.device)  # -1 until a program writes it
    kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out.tolist()
# --8<-- [end:launch]


# --8<-- [start:nan]
WITH_NAN = [[1.0, float("nan"), 5.0, 2.0], [5.0, 1.0, 5.0, float("nan")]]  # torch.argmax: [1, 3]
# --8<-- [end:nan]


def main():
    x = torch.tensor([[1.0, 5.0, 5.0, 2.0], [5.0, 1.0, 5.0, 5.0]], device=DEVICE)
    print("rows:", x.tolist())
    print("  tl.argmax (default)       :", argmax_rows(row_argmax, x))
    print("  tl.argmax tie_break_left=F:", argmax_rows(row_argmax_fast, x))
    print("  torch.argmax              :", torch.argmax(x, dim=1).tolist())
    x = torch.tensor(WITH_NAN, device=DEVICE)
    print("rows:", x.tolist())
    print("  tl.argmax (default)       :", argmax_rows(row_argmax, x))
    print("  torch.argmax              :", torch.argmax(x, dim=1).tolist())


if __name__ == "__main__":
    main()
