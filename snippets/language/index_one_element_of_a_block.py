"""TP089: `x[i]` on a block: Triton has no element indexing; load the element, or keep it with tl.where and sum.

Run it: python index_one_element_of_a_block.py  (without a GPU, Triton's interpreter runs the kernels on
the CPU; the compiler's errors come from compiling for an sm_90 GPU, an H100 or H200, on any machine)
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
def scale_by_element_pitfall(x_ptr, out_ptr, n, i, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * x[i], mask=mask)  # element i of a block: Triton has no such indexing


@triton.jit
def row_of_tile_pitfall(x_ptr, out_ptr, r, ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    tile = tl.load(x_ptr + rows[:, None] * COLS + cols[None, :])
    tl.store(out_ptr + cols, tile[r, :])  # row r of a 2-D block: the same


@triton.jit
def first_element_pitfall(x_ptr, out_ptr, n, i, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * x[0], mask=mask)  # a constant index is refused too
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scale_by_element_fixed(x_ptr, out_ptr, n, i, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    x_i = tl.load(x_ptr + i)  # the fix: load the one element from memory, a scalar (i in [0, n))
    tl.store(out_ptr + offs, x * x_i, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def row_of_tile_fixed(x_ptr, out_ptr, r, ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    tile = tl.load(x_ptr + rows[:, None] * COLS + cols[None, :])
    row = tl.sum(tl.where(rows[:, None] == r, tile, 0), axis=0)  # the fix: zero the other rows and sum
    tl.store(out_ptr + cols, row)


@triton.jit
def scale_by_element_in_registers(x_ptr, out_ptr, n, i, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    x_i = tl.sum(tl.where(offs == i, x, 0), axis=0)  # in this program's block, not in memory; i in [0, n)
    tl.store(out_ptr + offs, x * x_i, mask=mask)


@triton.jit
def permute(x_ptr, index_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    index = tl.load(index_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(x, index, axis=0))  # many indices at once (Triton 3.3 on)
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def scale_by_element(kernel, x, i):
    """x * x[i] for a float tensor x of at most 2**20 elements, in one program; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(1,)](x, out, x.numel(), i, BLOCK=triton.next_power_of_2(x.numel()))
    return out


def row_of_tile(kernel, tile, r):
    """Row r of a contiguous 2-D float32 tensor whose sides are powers of 2, read as one block; the output
    starts as NaN."""
    out = torch.full((tile.shape[1],), float("nan"), device=tile.device)
    kernel[(1,)](tile, out, r, ROWS=tile.shape[0], COLS=tile.shape[1])
    return out


def gather(x, index):
    """x[index] for a float tensor of a power-of-2 length and int32 indices in range (Triton 3.3 on)."""
    out = torch.full_like(x, float("nan"))
    permute[(1,)](x, index, out, BLOCK=x.numel())
    return out
# --8<-- [end:launch]


# --8<-- [start:offline]
SM_90 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # an H100 or H200; no GPU needed to compile
SIGNATURES = {
    "element": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "i": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64}),
    "row": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "r": "i32", "ROWS": "constexpr", "COLS": "constexpr"},
            {"ROWS": 16, "COLS": 16}),
}


def compile_error(kernel, kind):
    """The last line of the error compiling `kernel` for sm_90 raises, or "compiles"."""
    signature, constants = SIGNATURES[kind]
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    try:
        triton.compile(triton.compiler.ASTSource(fn, signature, constants), target=SM_90)
    except Exception as error:
        return str(error).strip().splitlines()[-1]
    return "compiles"
# --8<-- [end:offline]


def main():
    print("the pitfalls, compiled for sm_90:")  # compile first, before any interpreted launch
    for kernel, kind in ((scale_by_element_pitfall, "element"), (row_of_tile_pitfall, "row"),
                         (first_element_pitfall, "element")):
        print(f"  {kernel.__name__:32} {compile_error(kernel, kind)}")
    x = torch.arange(1.0, 9.0, device=DEVICE)
    for kernel in (scale_by_element_pitfall, scale_by_element_fixed, scale_by_element_in_registers):
        try:
            print(f"{kernel.__name__}: {scale_by_element(kernel, x, 2).tolist()}")
        except Exception as error:
            print(f"{kernel.__name__}: {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
    tile = torch.arange(256.0, device=DEVICE).reshape(16, 16)
    print("row 3 of the tile:", row_of_tile(row_of_tile_fixed, tile, 3)[:4].tolist(), "...")


if __name__ == "__main__":
    main()
