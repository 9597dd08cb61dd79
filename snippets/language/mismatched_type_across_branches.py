"""TP042: "Mismatched type for y between then block (fp32) and else block (fp16)", and its loop sibling.

Run it: python mismatched_type_across_branches.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def scale_pitfall(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # float16
    if scale != 1.0:
        y = x * scale  # float16 * a float32 argument: float32
    else:
        y = x  # still float16
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def row_sum_pitfall(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK,), 0.0, tl.float16)  # the input's dtype
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        acc += x * scale  # float32 from the second line of the loop on
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:then-only]
@triton.jit
def scale_in_place_pitfall(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask)  # float16 before the `if`
    if scale != 1.0:
        y = y * scale  # float32 inside it
    tl.store(y_ptr + offs, y, mask=mask)
# --8<-- [end:then-only]


# --8<-- [start:fix]
@triton.jit
def scale_fixed(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)  # the fix: one type on every path
    if scale != 1.0:
        y = x * scale
    else:
        y = x
    tl.store(y_ptr + offs, y, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def row_sum_fixed(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK,), 0.0, tl.float32)  # the fix: start with the loop's type (= tl.zeros((BLOCK,), tl.float32))
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0).to(tl.float32)  # and say so
        acc += x * scale
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def scale(kernel, x, factor, block=128):
    """factor * x for a float16 x, written to a float32 output (NaN until a program writes it)."""
    y = torch.full(x.shape, float("nan"), device=x.device)
    kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), factor, BLOCK=block)
    return y


def row_sum(kernel, x, factor, block=64):
    """factor * x.sum(dim=1) for a contiguous float16 matrix x, in float32 (NaN until written)."""
    out = torch.full((x.shape[0],), float("nan"), device=x.device)
    kernel[(x.shape[0],)](x, out, x.shape[1], factor, BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
SIGNATURES = {"scale": {"x_ptr": "*fp16", "y_ptr": "*fp32", "n": "i32", "scale": "fp32", "BLOCK": "constexpr"},
              "row_sum": {"x_ptr": "*fp16", "out_ptr": "*fp32", "n_cols": "i32", "scale": "fp32", "BLOCK": "constexpr"}}


def compile_for_h200(kernel, block=128):
    """Compile a kernel for sm_90 without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: nothing cached in this process
    signature = SIGNATURES["row_sum" if "n_cols" in fn.arg_names else "scale"]
    return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": block}), target=H200)
# --8<-- [end:offline]


def main():
    for kernel in (scale_pitfall, scale_in_place_pitfall, row_sum_pitfall, scale_fixed):
        try:
            compile_for_h200(kernel)
            print(f"{kernel.fn.__name__:24} compiles for sm_90")
        except Exception as error:  # triton.compiler.errors.CompilationError
            print(f"{kernel.fn.__name__:24} {str(error).splitlines()[-1]}")
    x = torch.arange(-4.0, 4.0, 0.25, device=DEVICE).half().reshape(4, 8)
    print("scale 0.5, fixed:   ", scale(scale_fixed, x.flatten(), 0.5)[:4].tolist())
    print("row sums x 0.5, fixed:", row_sum(row_sum_fixed, x, 0.5, block=4).tolist())
    print("float64 reference:    ", (x.double().sum(dim=1) * 0.5).tolist())


if __name__ == "__main__":
    main()
