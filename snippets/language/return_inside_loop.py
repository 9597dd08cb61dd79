"""TP043: "Cannot have `return` statements inside `while` or `for` statements in triton".

Run it: python return_inside_loop.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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
def first_above_pitfall(x_ptr, out_ptr, n, threshold):
    """Index of the first element of a row above `threshold` (n if none)."""
    row = tl.program_id(0)
    for i in range(0, n):
        if tl.load(x_ptr + row * n + i) > threshold:
            tl.store(out_ptr + row, i)
            return  # an early return inside the loop: refused when compiled
    tl.store(out_ptr + row, n)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def first_above_fixed(x_ptr, out_ptr, n, threshold):
    row = tl.program_id(0)
    first = n  # n: not found yet
    i = 0
    while (i < n) & (first == n):  # the fix: the loop's condition stops it, no return inside
        if tl.load(x_ptr + row * n + i) > threshold:
            first = i
        i += 1
    tl.store(out_ptr + row, first)  # the one store, after the loop
# --8<-- [end:fix]


# --8<-- [start:launch]
def first_above(kernel, x, threshold):
    """For each row of a contiguous 2-D float32 tensor: the index of its first element > threshold."""
    n_rows, n = x.shape
    out = torch.full((n_rows,), -1, dtype=torch.int32, device=x.device)  # -1 until a program writes it
    kernel[(n_rows,)](x, out, n, threshold)
    return out
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*i32", "n": "i32", "threshold": "fp32"}


def compile_for_h200(kernel):
    """Compile a kernel for sm_90 without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    return triton.compile(triton.compiler.ASTSource(fn, SIGNATURE), target=H200)
# --8<-- [end:offline]


def main():
    x = torch.tensor([[0.0, 1.0, 5.0, 2.0, 7.0] + [0.0] * 35, [0.0] * 40], device=DEVICE)
    for kernel in (first_above_pitfall, first_above_fixed):
        try:
            compile_for_h200(kernel)
            print(f"{kernel.fn.__name__}: compiles for sm_90")
        except Exception as error:  # triton.compiler.errors.UnsupportedLanguageConstruct
            print(f"{kernel.fn.__name__}: {type(error).__name__}: {str(error).splitlines()[-1]}")
        try:
            print(f"  launched: first index above 4.0 = {first_above(kernel, x, 4.0).tolist()}")
        except Exception as error:
            print(f"  launched: {type(error).__name__}")


if __name__ == "__main__":
    main()
