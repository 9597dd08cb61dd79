"""TP002: reading row i as `ptr + row_idx` instead of `ptr + row_idx * stride_row`.

Run it: python forgot_row_stride.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def copy_rows_pitfall(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row_idx = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    row_start_ptr = x_ptr + row_idx  # forgot `* stride_row`
    x = tl.load(row_start_ptr + cols * stride_col, mask=mask)
    tl.store(out_ptr + row_idx * n_cols + cols, x, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def copy_rows(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row_idx = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    row_start_ptr = x_ptr + row_idx * stride_row  # the fix: row i starts i * stride_row elements on
    x = tl.load(row_start_ptr + cols * stride_col, mask=mask)  # and a row steps by stride_col
    tl.store(out_ptr + row_idx * n_cols + cols, x, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x):
    """Copy each row of the 2-D tensor `x` into a new contiguous output, one program per row."""
    n_rows, n_cols = x.shape
    out = torch.full((n_rows, n_cols), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


def main():
    x = torch.arange(24, dtype=torch.float32, device=DEVICE).view(4, 6)
    print("x = arange(24).view(4, 6)")
    print("pitfall (ptr + row_idx):            ", launch(copy_rows_pitfall, x).tolist())
    print("fix     (ptr + row_idx * stride_row):", launch(copy_rows, x).tolist())
    t = torch.arange(24, dtype=torch.float32, device=DEVICE).view(6, 4).t()
    print("fix on a transposed view, strides", t.stride(), ":", torch.equal(launch(copy_rows, t), t))


if __name__ == "__main__":
    main()
