"""TP081: a name assigned from a tl.constexpr (HALF = HEAD_DIM // 2) is a run-time value, not a constant.

Run it: python name_assigned_from_a_constexpr.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def rotate_half_pitfall(x_ptr, out_ptr, HEAD_DIM: tl.constexpr):
    """out = cat(-x[:, HALF:], x[:, :HALF]) per row, the rotation of rotary embeddings."""
    row = tl.program_id(0)
    HALF = HEAD_DIM // 2  # a plain assignment: HALF is a run-time scalar from here on
    tl.static_assert(2 * HALF == HEAD_DIM)  # refused when compiled
    cols = tl.arange(0, HALF)  # refused on both backends
    x1 = tl.load(x_ptr + row * HEAD_DIM + cols)
    x2 = tl.load(x_ptr + row * HEAD_DIM + HALF + cols)
    tl.store(out_ptr + row * HEAD_DIM + cols, -x2)
    tl.store(out_ptr + row * HEAD_DIM + HALF + cols, x1)


@triton.jit
def fold_halves_pitfall(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """out = x[:, :HALF] + x[:, HALF:] per row."""
    row = tl.program_id(0)
    HALF = BLOCK // 2
    x = tl.load(x_ptr + row * BLOCK + tl.arange(0, BLOCK))
    halves = tl.reshape(x, (2, HALF))  # a shape needs constants: refused on both backends
    tl.store(out_ptr + row * (BLOCK // 2) + tl.arange(0, BLOCK // 2), tl.sum(halves, axis=0))


@triton.jit
def chunk_sums_pitfall(x_ptr, out_ptr, BLOCK: tl.constexpr, CHUNK: tl.constexpr):
    """out[:, c] = the sum of chunk c of each row, chunk by chunk in an unrolled loop."""
    row = tl.program_id(0)
    N_CHUNKS = BLOCK // CHUNK
    for c in tl.static_range(N_CHUNKS):  # refused when compiled; the interpreter runs it
        part = tl.load(x_ptr + row * BLOCK + c * CHUNK + tl.arange(0, CHUNK))
        tl.store(out_ptr + row * (BLOCK // CHUNK) + c, tl.sum(part, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def rotate_half_fixed(x_ptr, out_ptr, HEAD_DIM: tl.constexpr):
    row = tl.program_id(0)
    HALF: tl.constexpr = HEAD_DIM // 2  # the fix: annotated, HALF stays a compile-time constant
    tl.static_assert(2 * HALF == HEAD_DIM)
    cols = tl.arange(0, HALF)
    x1 = tl.load(x_ptr + row * HEAD_DIM + cols)
    x2 = tl.load(x_ptr + row * HEAD_DIM + HALF + cols)
    tl.store(out_ptr + row * HEAD_DIM + cols, -x2)
    tl.store(out_ptr + row * HEAD_DIM + HALF + cols, x1)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def fold_halves_fixed(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    HALF: tl.constexpr = BLOCK // 2  # the fix
    x = tl.load(x_ptr + row * BLOCK + tl.arange(0, BLOCK))
    halves = tl.reshape(x, (2, HALF))
    tl.store(out_ptr + row * HALF + tl.arange(0, HALF), tl.sum(halves, axis=0))


@triton.jit
def chunk_sums_fixed(x_ptr, out_ptr, BLOCK: tl.constexpr, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    for c in tl.static_range(BLOCK // CHUNK):  # the fix: the expression itself, where it is used
        part = tl.load(x_ptr + row * BLOCK + c * CHUNK + tl.arange(0, CHUNK))
        tl.store(out_ptr + row * (BLOCK // CHUNK) + c, tl.sum(part, axis=0))
# --8<-- [end:fix-more]


# --8<-- [start:fix-bare-annotation]
@triton.jit
def rotate_half_bare_annotation(x_ptr, out_ptr, HEAD_DIM: tl.constexpr):
    row = tl.program_id(0)
    HALF: tl.constexpr  # from Triton 3.8: a bare annotation makes the next assignment a constant
    HALF = HEAD_DIM // 2
    tl.static_assert(2 * HALF == HEAD_DIM)
    cols = tl.arange(0, HALF)
    x1 = tl.load(x_ptr + row * HEAD_DIM + cols)
    x2 = tl.load(x_ptr + row * HEAD_DIM + HALF + cols)
    tl.store(out_ptr + row * HEAD_DIM + cols, -x2)
    tl.store(out_ptr + row * HEAD_DIM + HALF + cols, x1)
# --8<-- [end:fix-bare-annotation]


# --8<-- [start:launch]
def rotate_half(kernel, x):
    """One program per row of a contiguous (rows, HEAD_DIM) float32 tensor; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](x, out, HEAD_DIM=x.shape[1])
    return out


def fold_halves(kernel, x):
    out = torch.full((x.shape[0], x.shape[1] // 2), float("nan"), device=x.device)
    kernel[(x.shape[0],)](x, out, BLOCK=x.shape[1])
    return out


def chunk_sums(kernel, x, chunk):
    out = torch.full((x.shape[0], x.shape[1] // chunk), float("nan"), device=x.device)
    kernel[(x.shape[0],)](x, out, BLOCK=x.shape[1], CHUNK=chunk)
    return out
# --8<-- [end:launch]


def main():
    x = torch.randn(4, 64, device=DEVICE)
    try:
        rotate_half(rotate_half_pitfall, x)
    except Exception as error:  # CompilationError compiled, InterpreterError on the interpreter
        print("pitfall:", str(error).strip().splitlines()[-1])
        if DEVICE == "cpu":
            print("  (the interpreter checked the static_assert on the value, which holds, and stopped at tl.arange)")
    expected = torch.cat((-x[:, 32:], x[:, :32]), dim=1)
    print("fix equals torch.cat((-x2, x1)):", torch.equal(rotate_half(rotate_half_fixed, x), expected))


if __name__ == "__main__":
    main()
