"""TP015: compute-sanitizer sees no overrun in a PyTorch tensor until the caching allocator is off.

Run it: python compute_sanitizer.py  (without a GPU, Triton's interpreter runs it on the CPU)
On a GPU, compare:
    compute-sanitizer --tool memcheck python compute_sanitizer.py --overrun
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck python compute_sanitizer.py --overrun
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
def sum_without_mask(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # OVERRUN: reads BLOCK elements, whatever the size of x
    tl.store(out_ptr, tl.sum(x, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def sum_with_mask(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)  # the fix: n elements, 0 for the rest
    tl.store(out_ptr, tl.sum(x, axis=0))
# --8<-- [end:fix]


# --8<-- [start:overrun]
N, BLOCK = 1000, 2048  # 1000 floats; the pitfall reads 2048 of them


def overrun():
    """The pitfall on 1000 floats: it reads past the end of x (run only on CUDA)."""
    x = torch.ones(N, device=DEVICE)
    out = torch.zeros(1, device=DEVICE)
    sum_without_mask[(1,)](x, out, BLOCK=BLOCK)
    torch.cuda.synchronize()
    print("overrun kernel finished", flush=True)
# --8<-- [end:overrun]


# --8<-- [start:same-allocation]
ROWS, COLS = 8, 4


@triton.jit
def row_sums(x_ptr, out_ptr, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * stride_row + tl.arange(0, BLOCK))
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def preallocated_buffer():
    return torch.arange(2 * ROWS * COLS, dtype=torch.float32, device=DEVICE).reshape(2 * ROWS, COLS)


def rows_of_a_buffer():
    """The first ROWS rows of a preallocated (2 * ROWS, COLS) buffer: a view, one allocation."""
    return preallocated_buffer()[:ROWS]


def row_sums_wrong_stride(x, out):
    row_sums[(ROWS,)](x, out, x.shape[0], BLOCK=COLS)  # BUG: x.shape[0] (8) where x.stride(0) (4) belongs


def row_sums_right_stride(x, out):
    row_sums[(ROWS,)](x, out, x.stride(0), BLOCK=COLS)
# --8<-- [end:same-allocation]


# --8<-- [start:wrong-stride]
def wrong_stride():
    """The wrong row stride on a view: it reads past the view, but not past the buffer."""
    x = rows_of_a_buffer()
    out = torch.zeros(ROWS, device=DEVICE)
    row_sums_wrong_stride(x, out)
    torch.cuda.synchronize()
    print("wrong-stride kernel finished:", out.tolist(), flush=True)
# --8<-- [end:wrong-stride]


def main():
    import sys

    if "--overrun" in sys.argv or "--wrong-stride" in sys.argv:
        if DEVICE != "cuda":
            raise SystemExit("--overrun and --wrong-stride read out of bounds; run them on a CUDA GPU "
                             "under compute-sanitizer")
        overrun() if "--overrun" in sys.argv else wrong_stride()
        return
    x = torch.rand(N, device=DEVICE)
    out = torch.full((1,), float("nan"), device=DEVICE)
    sum_with_mask[(1,)](x, out, N, BLOCK=BLOCK)
    print(f"fix, masked sum of {N} floats: {out.item():.4f} (torch: {x.sum().item():.4f})")
    x = rows_of_a_buffer()
    out = torch.full((ROWS,), float("nan"), device=DEVICE)
    row_sums_wrong_stride(x, out)
    print("row sums of the view, wrong row stride:", out.tolist())
    print("row sums of the view, torch           :", x.sum(dim=1).tolist())
    print("on a CUDA GPU: PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck "
          "python compute_sanitizer.py --overrun")


if __name__ == "__main__":
    main()
