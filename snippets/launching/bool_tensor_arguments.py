"""TP053: a `torch.bool` tensor as a kernel argument: what loads see, and what a store writes.

Run it: python bool_tensor_arguments.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def row_has_positive_pitfall(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
    count = tl.sum((x > 0).to(tl.int32), axis=0)
    tl.store(out_ptr + row, count)  # out_ptr is a torch.bool tensor: int32 -> one byte, 256 -> 0 (False)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_has_positive(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
    count = tl.sum((x > 0).to(tl.int32), axis=0)
    tl.store(out_ptr + row, count != 0)  # the fix: store a comparison (tl.int1), which writes 0 or 1
# --8<-- [end:fix]


# --8<-- [start:launch]
def row_has_positive_values(kernel, x):
    """One bool per row of a 2-D float32 tensor: does the row hold a value > 0?"""
    n_rows, n_cols = x.shape
    out = torch.full((n_rows,), 7, dtype=torch.uint8, device=x.device).view(torch.bool)  # byte 7: unwritten
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:what-the-kernel-sees]
@triton.jit
def load_and_store_bytes(flags_ptr, as_int_ptr, values_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.static_assert(flags_ptr.dtype.element_ty == tl.int1)  # a torch.bool tensor arrives as a pointer to int1
    flags = tl.load(flags_ptr + offs)
    tl.static_assert(flags.dtype == tl.int1)  # and a load from it gives int1: each byte compared with 0
    tl.store(as_int_ptr + offs, flags.to(tl.int32))
    tl.store(out_ptr + offs, tl.load(values_ptr + offs))  # a store into bool: cast to int8, no comparison


def bytes_in_and_out(stored_bytes, values):
    """Load a bool tensor whose bytes are `stored_bytes`; store `values` into another bool tensor.

    Returns what the kernel saw for each loaded byte, and the bytes the store wrote.
    """
    n = len(stored_bytes)
    flags = torch.tensor(stored_bytes, dtype=torch.uint8, device=DEVICE).view(torch.bool)
    as_int = torch.full((n,), -1, dtype=torch.int32, device=DEVICE)
    out = torch.full((n,), 7, dtype=torch.uint8, device=DEVICE).view(torch.bool)
    load_and_store_bytes[(1,)](flags, as_int, values.to(DEVICE), out, N=n)
    return as_int.tolist(), out.view(torch.uint8).tolist()
# --8<-- [end:what-the-kernel-sees]


def main():
    x = torch.ones(3, 256, device=DEVICE)  # every row: 256 positive values
    x[1, 100:] = -1.0  # row 1: 100 positive values
    print("rows with 256, 100 and 256 positive values; does the row hold a value > 0?")
    print("  pitfall (store the count):", row_has_positive_values(row_has_positive_pitfall, x).tolist())
    print("  fix (store count != 0)   :", row_has_positive_values(row_has_positive, x).tolist())
    seen, written = bytes_in_and_out([0, 1, 2, 255], torch.tensor([0, 2, 256, -1], dtype=torch.int32))
    print("bool bytes 0, 1, 2, 255 load as:", seen)
    print("int32 0, 2, 256, -1 stored into a bool tensor write the bytes:", written)


if __name__ == "__main__":
    main()
