"""TP093: `Cannot broadcast, rank mismatch`: arithmetic adds missing axes, tl.broadcast_to never does, and
tl.load / tl.store did not before Triton 3.5 / 3.6; give a row the tile's rank with `row[None, :]`.

Run it: python broadcast_rank_and_size_mismatch.py  (without a GPU, Triton's interpreter runs the kernels on
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


# Each kernel handles one tile of ROWS rows (all of them in range) and N columns padded to BLOCK_N.

# --8<-- [start:pitfall]
@triton.jit
def add_row_pitfall(x_ptr, row_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    inside = cols < N  # [BLOCK_N]: one flag per column
    offs = rows[:, None] * N + cols[None, :]  # [ROWS, BLOCK_N]
    x = tl.load(x_ptr + offs, mask=inside, other=0.0)  # a 1-D mask on 2-D pointers: refused before Triton 3.5
    row = tl.load(row_ptr + cols, mask=inside, other=0.0)
    tl.store(out_ptr + offs, x + row, mask=inside)  # x + row broadcasts; the 1-D mask here: refused before 3.6


@triton.jit
def repeat_row_pitfall(row_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    row = tl.load(row_ptr + cols, mask=cols < N, other=0.0)  # [BLOCK_N]
    tile = tl.broadcast_to(row, (ROWS, BLOCK_N))  # rank 1 to rank 2: refused by every release
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], tile, mask=(cols < N)[None, :])


@triton.jit
def copy_tile_pitfall(x_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)  # a second block size, by mistake, for the output's columns
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(cols < N)[None, :], other=0.0)
    tl.store(out_ptr + rows[:, None] * N + ks[None, :], tile, mask=(ks < N)[None, :])  # [ROWS, BLOCK_N] into [ROWS, BLOCK_K]
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def add_row_fixed(x_ptr, row_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    inside = (cols < N)[None, :]  # the fix: [1, BLOCK_N], the pointers' rank; it stretches over the rows
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=inside, other=0.0)
    row = tl.load(row_ptr + cols[None, :], mask=inside, other=0.0)  # a [1, BLOCK_N] row
    tl.store(out_ptr + offs, x + row, mask=inside)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def repeat_row_fixed(row_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    row = tl.load(row_ptr + cols, mask=cols < N, other=0.0)
    tile = tl.broadcast_to(row[None, :], (ROWS, BLOCK_N))  # the fix: add the axis first, [1, BLOCK_N]
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], tile, mask=(cols < N)[None, :])


@triton.jit
def copy_tile_fixed(x_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N + cols[None, :]  # the fix: one set of offsets for the load and the store
    tile = tl.load(x_ptr + offs, mask=(cols < N)[None, :], other=0.0)
    tl.store(out_ptr + offs, tile, mask=(cols < N)[None, :])
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def add_row(kernel, x, row):
    """x + row for a contiguous float32 x of shape (ROWS, N), ROWS a power of 2, and row of N elements;
    the output starts as NaN, so an element no program writes shows."""
    out = torch.full_like(x, float("nan"))
    kernel[(1,)](x, row, out, x.shape[1], ROWS=x.shape[0], BLOCK_N=triton.next_power_of_2(x.shape[1]))
    return out


def repeat_row(kernel, row, rows):
    """`rows` copies of `row` (a float32 tensor of N elements), `rows` a power of 2; starts as NaN."""
    out = torch.full((rows, row.numel()), float("nan"), device=row.device)
    kernel[(1,)](row, out, row.numel(), ROWS=rows, BLOCK_N=triton.next_power_of_2(row.numel()))
    return out


def copy_tile(kernel, x, block_k):
    """A copy of a contiguous float32 x of shape (ROWS, N), ROWS a power of 2; starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(1,)](x, out, x.shape[1], ROWS=x.shape[0], BLOCK_N=triton.next_power_of_2(x.shape[1]), BLOCK_K=block_k)
    return out
# --8<-- [end:launch]


# --8<-- [start:offline]
SM_90 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # an H100 or H200; no GPU needed to compile


def compile_error(kernel):
    """The line of the error compiling `kernel` for sm_90 (ROWS=16, BLOCK_N=32, BLOCK_K=64) that holds
    Triton's message, or "compiles"."""
    import traceback

    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    names = list(fn.arg_names)
    pointers = [name for name in names if name.endswith("_ptr")]
    signature = {name: "*fp32" for name in pointers}
    signature.update({"N": "i32", **{name: "constexpr" for name in names if name.isupper() and name != "N"}})
    constants = {name: value for name, value in (("ROWS", 16), ("BLOCK_N", 32), ("BLOCK_K", 64)) if name in names}
    try:
        triton.compile(triton.compiler.ASTSource(fn, signature, constants), target=SM_90)
    except Exception as error:
        told = "".join(traceback.format_exception(error)).splitlines()
        return next((line for line in reversed(told) if "Cannot " in line and "raise" not in line), told[-1]).strip()
    return "compiles"
# --8<-- [end:offline]


def main():
    print(f"Triton {triton.__version__}; the pitfalls, compiled for sm_90:")  # before any interpreted launch
    for kernel in (add_row_pitfall, repeat_row_pitfall, copy_tile_pitfall):
        print(f"  {kernel.__name__:20} {compile_error(kernel)}")
    x = torch.arange(12.0, device=DEVICE).reshape(4, 3)
    row = torch.tensor([100.0, 200.0, 300.0], device=DEVICE)
    for kernel in (add_row_pitfall, add_row_fixed):
        try:
            print(f"{kernel.__name__}: {add_row(kernel, x, row).tolist()}")
        except Exception as error:
            print(f"{kernel.__name__}: {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
    print("repeat_row_fixed:", repeat_row(repeat_row_fixed, row, 2).tolist())
    print("copy_tile_fixed:", copy_tile(copy_tile_fixed, x, 64).tolist())


if __name__ == "__main__":
    main()
