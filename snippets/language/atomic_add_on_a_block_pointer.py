"""TP085: tl.atomic_add on a block pointer (tl.make_block_ptr) fails on every release, each with another message.

Run it: python atomic_add_on_a_block_pointer.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def split_sum_pitfall(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """out[r, c] = sum over s of x[s, r, c]: program (tile, s) adds slice s's tile into out."""
    tile, split = tl.program_id(0), tl.program_id(1)
    x_block = tl.make_block_ptr(x_ptr + split * n_rows * n_cols, (n_rows, n_cols), (n_cols, 1),
                                (tile * BLOCK_R, 0), (BLOCK_R, BLOCK_C), (1, 0))
    out_block = tl.make_block_ptr(out_ptr, (n_rows, n_cols), (n_cols, 1),
                                  (tile * BLOCK_R, 0), (BLOCK_R, BLOCK_C), (1, 0))
    x = tl.load(x_block, boundary_check=(0, 1), padding_option="zero")
    tl.atomic_add(out_block, x)  # an atomic takes a tensor of pointers, not a block pointer
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def split_sum_fixed(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    tile, split = tl.program_id(0), tl.program_id(1)
    rows = tile * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    cols = tl.arange(0, BLOCK_C)[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    offsets = rows * n_cols + cols
    x = tl.load(x_ptr + split * n_rows * n_cols + offsets, mask=mask)
    tl.atomic_add(out_ptr + offsets, x, mask=mask)  # the fix: a tensor of pointers and a mask
# --8<-- [end:fix]


# --8<-- [start:fix-descriptor]
@triton.jit
def split_sum_descriptor(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """From Triton 3.4, compiled: a tensor descriptor has an atomic_add of its own (a GPU needs
    triton.set_allocator for descriptors made in the kernel)."""
    tile, split = tl.program_id(0), tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(x_ptr + split * n_rows * n_cols, [n_rows, n_cols], [n_cols, 1], [BLOCK_R, BLOCK_C])
    out_desc = tl.make_tensor_descriptor(out_ptr, [n_rows, n_cols], [n_cols, 1], [BLOCK_R, BLOCK_C])
    out_desc.atomic_add([tile * BLOCK_R, 0], x_desc.load([tile * BLOCK_R, 0]))
# --8<-- [end:fix-descriptor]


# --8<-- [start:launch]
def split_sum(kernel, x, block_r=16):
    """x.sum(0) for a contiguous (splits, rows, cols) float32 x; the output starts at zero (atomics add
    into it), so a program that never runs shows as a missing slice."""
    splits, n_rows, n_cols = x.shape
    out = torch.zeros(n_rows, n_cols, device=x.device)
    grid = (triton.cdiv(n_rows, block_r), splits)
    kernel[grid](x, out, n_rows, n_cols, BLOCK_R=block_r, BLOCK_C=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


def main():
    x = torch.randn(4, 50, 70, device=DEVICE)
    try:
        split_sum(split_sum_pitfall, x)
    except Exception as error:  # the message depends on the release and the backend
        cause = error.__cause__ if error.__cause__ is not None else error
        print("pitfall:", type(error).__name__, repr(cause)[:150])
    print("fix matches x.sum(0):", torch.allclose(split_sum(split_sum_fixed, x), x.sum(0), atol=1e-5))


if __name__ == "__main__":
    main()
