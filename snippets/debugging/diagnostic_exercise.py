"""TP016: the diagnostic exercise: a kernel with a stride bug, a mask/other gap and a bad BLOCK_SIZE.

Run it: python diagnostic_exercise.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
# Exercise: this kernel is wrong on purpose (y = x + 1)
@triton.jit
def broken_kernel(x_ptr, y_ptr, stride_x, stride_y, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    # TODO: fix the strides and other
    x = tl.load(x_ptr + offsets, mask=mask)
    y = x + 1.0
    tl.store(y_ptr + offsets, y, mask=mask)


def run_broken(x: torch.Tensor, BLOCK_SIZE=100) -> torch.Tensor:
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    N = x.numel()
    broken_kernel[(triton.cdiv(N, BLOCK_SIZE),)](x, y, x.stride(0), y.stride(0), N, BLOCK_SIZE=BLOCK_SIZE)
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def fixed_kernel(x_ptr, y_ptr, stride_x, stride_y, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)  # one row per program along axis 0 ...
    cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # ... column blocks along axis 1
    mask = cols < N  # N is the number of columns of one row
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)  # row stride, not numel
    tl.store(y_ptr + row * stride_y + cols, x + 1.0, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def run_fixed(x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
    if x.dim() != 2 or x.stride(1) != 1:
        raise ValueError("rows may be strided; the elements of a row must be adjacent")
    M, N = x.shape
    y = torch.full((M, N), float("nan"), device=x.device) if y is None else y  # NaN until written
    if y.shape != x.shape or y.stride(1) != 1:
        raise ValueError("y must have x's shape, with adjacent elements in a row")
    BLOCK_SIZE = min(triton.next_power_of_2(N), 1024)  # a power of two that covers a row
    fixed_kernel[(M, triton.cdiv(N, BLOCK_SIZE))](x, y, x.stride(0), y.stride(0), N, BLOCK_SIZE=BLOCK_SIZE)
    return y
# --8<-- [end:fix-more]


# --8<-- [start:strided-rows]
def strided_rows(rows=3, cols=5, row_stride=8, start=2):
    """x = base[:, start:start+cols], base holding 0, 1, 2, ... (exact in float32)."""
    base = torch.arange(rows * row_stride, dtype=torch.float32, device=DEVICE).view(rows, row_stride)
    return base, base[:, start:start + cols]
# --8<-- [end:strided-rows]


def main():
    base, x = strided_rows()
    print("x = base[:, 2:7] of a 3x8 arange:", x.tolist())
    try:
        run_broken(x, BLOCK_SIZE=100)
    except Exception as error:  # InterpreterError on the interpreter, CompilationError on CUDA
        print("broken, BLOCK_SIZE=100:", type(error).__name__, str(error).splitlines()[-1])
    print("broken, BLOCK_SIZE=128:", run_broken(x, BLOCK_SIZE=128).tolist())
    print("fixed:                 ", run_fixed(x).tolist())
    print("torch, x + 1:          ", (x + 1).tolist())


if __name__ == "__main__":
    main()
