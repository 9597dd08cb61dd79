"""TP037: "Triton Error [CUDA]: invalid argument" from a grid whose axis 1 or 2 is above 65535.

Run it: python grid_axis_above_65535.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def scale_rows_kernel_pitfall(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(1)  # one program per row, on axis 1
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, x * tl.load(s_ptr + row), mask=mask)


def scale_rows_pitfall(x, s, block=32):  # y[r, :] = x[r, :] * s[r]
    n_rows, n_cols = x.shape
    y = torch.full_like(x, float("nan"))  # NaN until a program writes it
    scale_rows_kernel_pitfall[(triton.cdiv(n_cols, block), n_rows)](x, s, y, n_cols, BLOCK=block)
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scale_rows_kernel(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)  # rows on axis 0, which takes up to 2**31 - 1 programs
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, x * tl.load(s_ptr + row), mask=mask)


def scale_rows(x, s, block=32):
    n_rows, n_cols = x.shape
    y = torch.full_like(x, float("nan"))
    scale_rows_kernel[(n_rows, triton.cdiv(n_cols, block))](x, s, y, n_cols, BLOCK=block)  # the large dimension first
    return y
# --8<-- [end:fix]


# --8<-- [start:loop]
MAX_AXIS_1 = 65535  # CUDA's limit for grid axes 1 and 2


@triton.jit
def scale_rows_kernel_looped(x_ptr, s_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    for row in range(tl.program_id(1), n_rows, tl.num_programs(1)):  # every num_programs(1)-th row
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, x * tl.load(s_ptr + row), mask=mask)


def scale_rows_looped(x, s, block=32, programs=MAX_AXIS_1):
    n_rows, n_cols = x.shape
    y = torch.full_like(x, float("nan"))
    grid = (triton.cdiv(n_cols, block), min(n_rows, programs))  # axis 1 stays within the limit
    scale_rows_kernel_looped[grid](x, s, y, n_rows, n_cols, BLOCK=block)
    return y
# --8<-- [end:loop]


# --8<-- [start:count]
@triton.jit
def count_programs_kernel(count_ptr):
    tl.atomic_add(count_ptr, 1)  # each program adds one


def programs_run(grid):
    """Launch a kernel on `grid`; return how many of its programs ran."""
    count = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    count_programs_kernel[grid](count)
    return int(count.item())
# --8<-- [end:count]


def main():
    try:
        print("grid (1, 65536): programs run:", programs_run((1, 65536)))
    except RuntimeError as error:
        print("grid (1, 65536):", error)
    rows = 65536 if DEVICE == "cuda" else 64  # the interpreter runs programs one at a time: few rows there
    x = torch.randn(rows, 50, device=DEVICE)
    s = torch.randn(rows, device=DEVICE)
    for name, scale_rows_with in (("pitfall, rows on axis 1", scale_rows_pitfall), ("fix, rows on axis 0", scale_rows),
                                  ("loop, axis 1 bounded", scale_rows_looped)):
        try:
            print(f"{name}, {rows} rows: equal to x * s[:, None]:", torch.equal(scale_rows_with(x, s), x * s[:, None]))
        except RuntimeError as error:
            print(f"{name}, {rows} rows:", error)

if __name__ == "__main__":
    main()
