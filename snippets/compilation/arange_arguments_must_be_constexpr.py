"""TP077: ValueError: arange's arguments must be of type tl.constexpr.

Run it: python arange_arguments_must_be_constexpr.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def double_pitfall(x_ptr, out_ptr, n_cols, BLOCK):  # BLOCK has no tl.constexpr annotation
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=mask) * 2, mask=mask)


@triton.jit
def double_runtime_length(x_ptr, out_ptr, n_cols):
    row = tl.program_id(0)
    cols = tl.arange(0, n_cols)  # a block as long as a run-time value
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols) * 2)


@triton.jit
def double_local_block(x_ptr, out_ptr, n_cols):
    BLOCK = 128  # a plain int assigned in the kernel is not a tl.constexpr either
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=mask) * 2, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def double_fixed(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):  # the fix: the block size is a tl.constexpr
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)  # BLOCK >= n_cols, a power of 2; the mask covers the rest
    mask = cols < n_cols
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=mask) * 2, mask=mask)


@triton.jit
def double_local_fixed(x_ptr, out_ptr, n_cols):
    BLOCK: tl.constexpr = 128  # the fix for a block size set inside the kernel: annotate it
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=mask) * 2, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def double_rows(kernel, x, **meta):
    """2 * x for a contiguous 2-D float32 tensor, one program per row; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](x, out, x.shape[1], **meta)
    return out
# --8<-- [end:launch]


def main():
    x = torch.randn(3, 100, device=DEVICE)
    for name, kernel, meta in (("no annotation", double_pitfall, {"BLOCK": 128}),
                               ("run-time length", double_runtime_length, {})):
        try:
            double_rows(kernel, x, **meta)
        except Exception as error:
            print(f"{name}:", type(error).__name__, str(error).strip().splitlines()[-1][:100])
    fixed = double_rows(double_fixed, x, BLOCK=triton.next_power_of_2(x.shape[1]))
    print("fixed equals 2 * x:", torch.equal(fixed, 2 * x))


if __name__ == "__main__":
    main()
