"""TP082: stride.to(tl.int64) fails to compile when the stride is 1: Triton compiled it as a constant.

Run it: python to_on_an_argument_equal_to_1.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def scale_rows_pitfall(x_ptr, out_ptr, n_cols, stride_row, stride_col, scale, BLOCK: tl.constexpr):
    """out = scale * x for a 2-D x of any strides, with 64-bit offsets; out is contiguous."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # 64-bit offsets for large tensors; .to() fails to compile when a stride is 1
    offsets = row * stride_row.to(tl.int64) + cols * stride_col.to(tl.int64)
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x * scale, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scale_rows_fixed(x_ptr, out_ptr, n_cols, stride_row, stride_col, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # the fix: tl.cast takes a constant as well as a tensor
    offsets = row * tl.cast(stride_row, tl.int64) + cols * tl.cast(stride_col, tl.int64)
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x * scale, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def scale_rows(kernel, x, scale=2.0):
    """scale * x for a 2-D float32 x of any strides (a transposed view too); the output starts as NaN."""
    n_rows, n_cols = x.shape
    out = torch.full((n_rows, n_cols), float("nan"), device=x.device)
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), scale, BLOCK=triton.next_power_of_2(n_cols))
    return out
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)


def compile_for_h200(kernel, stride_row, stride_col, do_not_specialize=()):
    """Compile `kernel` for sm_90 without a GPU, its int arguments typed as the launcher types them:
    a value of 1 becomes a constant unless do_not_specialize names it. Returns the compiled kernel."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: nothing cached in this process
    ints = {"n_cols": 100, "stride_row": stride_row, "stride_col": stride_col}
    types = {"x_ptr": "*fp32", "out_ptr": "*fp32", "scale": "fp32", "BLOCK": "constexpr"}
    constants = {"BLOCK": 128} | {name: 1 for name, value in ints.items() if value == 1 and name not in do_not_specialize}
    signature = {name: "constexpr" if name in constants else types.get(name, "i32") for name in fn.arg_names}
    return triton.compile(triton.compiler.ASTSource(fn, signature, constants), target=H200)
# --8<-- [end:offline]


def main():
    for kernel in (scale_rows_pitfall, scale_rows_fixed):
        for strides in ((100, 1), (1, 50), (200, 2)):  # contiguous, transposed, every other column
            try:
                compile_for_h200(kernel, *strides)
                print(f"{kernel.fn.__name__}, strides {strides}: compiles for sm_90")
            except Exception as error:  # triton.compiler.errors.CompilationError
                print(f"{kernel.fn.__name__}, strides {strides}: {str(error).strip().splitlines()[-1]}")
    x = torch.randn(50, 100, device=DEVICE)
    if DEVICE == "cuda":  # a real launch of the pitfall on a contiguous tensor
        try:
            scale_rows(scale_rows_pitfall, x)
        except Exception as error:
            print("pitfall launched on a contiguous tensor:", str(error).strip().splitlines()[-1])
    print("fixed equals 2 * x:", torch.equal(scale_rows(scale_rows_fixed, x), 2 * x))
    print("fixed equals 2 * x.t():", torch.equal(scale_rows(scale_rows_fixed, x.t()), 2 * x.t()))


if __name__ == "__main__":
    main()
