"""TP041: "NameError: mean is not defined": a variable assigned only inside a loop or one branch.

Run it: python variable_defined_in_one_branch.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def column_mean_pitfall(x_ptr, y_ptr, n_rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for r in range(n_rows):
        acc += tl.load(x_ptr + r * BLOCK + cols)
        mean = acc / n_rows  # indented one level too deep: assigned only inside the loop
    tl.store(y_ptr + cols, mean)  # compiled: NameError('mean is not defined')


@triton.jit
def shift_pitfall(x_ptr, y_ptr, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if shift != 0:
        y = x + shift  # assigned in one branch only
    tl.store(y_ptr + offs, y, mask=mask)  # compiled: NameError('y is not defined')
# --8<-- [end:pitfall]


# --8<-- [start:loop-variable]
@triton.jit
def column_mean_last_row_pitfall(x_ptr, y_ptr, last_ptr, n_rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for r in range(n_rows):
        acc += tl.load(x_ptr + r * BLOCK + cols)
    tl.store(y_ptr + cols, acc / n_rows)
    tl.store(last_ptr, r)  # the loop variable after the loop: no error, and no defined value when compiled


@triton.jit
def column_mean_last_row_prebound(x_ptr, y_ptr, last_ptr, n_rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    r = -1  # binding it before the loop does not help the compiled kernel
    for r in range(n_rows):
        acc += tl.load(x_ptr + r * BLOCK + cols)
    tl.store(y_ptr + cols, acc / n_rows)
    tl.store(last_ptr, r)
# --8<-- [end:loop-variable]


# --8<-- [start:fix]
@triton.jit
def column_mean_fixed(x_ptr, y_ptr, n_rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for r in range(n_rows):
        acc += tl.load(x_ptr + r * BLOCK + cols)
    mean = acc / n_rows  # the fix: assign it where every path reaches (after the loop)
    tl.store(y_ptr + cols, mean)


@triton.jit
def shift_fixed(x_ptr, y_ptr, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x  # the fix: a value on every path before the `if`
    if shift != 0:
        y = x + shift
    tl.store(y_ptr + offs, y, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def column_mean_last_row_fixed(x_ptr, y_ptr, last_ptr, n_rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    last = -1  # the fix: a variable of its own, carried by the loop
    for r in range(n_rows):
        acc += tl.load(x_ptr + r * BLOCK + cols)
        last = r
    tl.store(y_ptr + cols, acc / n_rows)
    tl.store(last_ptr, last)
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def column_mean(kernel, x):
    """Mean over the rows of a contiguous float32 (n_rows, BLOCK) matrix (NaN until written)."""
    n_rows, block = x.shape
    y = torch.full((block,), float("nan"), device=x.device)
    kernel[(1,)](x, y, n_rows, BLOCK=block)
    return y


def column_mean_and_last_row(kernel, x):
    """The column means, and the index of the last row the loop visited (-7 until written)."""
    n_rows, block = x.shape
    y = torch.full((block,), float("nan"), device=x.device)
    last = torch.full((1,), -7, dtype=torch.int32, device=x.device)
    kernel[(1,)](x, y, last, n_rows, BLOCK=block)
    return y, int(last.item())


def shift(kernel, x, amount, block=128):
    y = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), amount, BLOCK=block)
    return y
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU


def compile_for_h200(kernel, block=16):
    """Compile a kernel for sm_90 without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: nothing cached in this process
    signature = {name: "*fp32" for name in ("x_ptr", "y_ptr")}
    signature.update({"last_ptr": "*i32", "n_rows": "i32", "n": "i32", "shift": "fp32", "BLOCK": "constexpr"})
    signature = {name: signature[name] for name in fn.arg_names}
    return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": block}), target=H200)


def stored_last_row(kernel):
    """The operation that makes the value `tl.store(last_ptr, ...)` writes, in the kernel compiled for sm_90."""
    import re

    ttir = compile_for_h200(kernel).asm["ttir"]
    value = re.search(r"tt\.store %last_ptr, %([\w]+)", ttir).group(1)  # %0, or %2 of a loop result %2#1
    return re.search(rf"^\s*%{value}(:\d+)? = ([\w.]+)", ttir, re.M).group(2)


# --8<-- [end:offline]


def main():
    for kernel in (column_mean_pitfall, shift_pitfall):
        try:
            compile_for_h200(kernel)
        except Exception as error:  # triton.compiler.errors.CompilationError
            print(f"{kernel.fn.__name__}, compiled for sm_90: {str(error).splitlines()[-1]}")
    print("stored as the last row, compiled for sm_90:", stored_last_row(column_mean_last_row_pitfall))
    x = torch.arange(12.0, device=DEVICE).reshape(3, 4)
    print("column means, fixed:", column_mean(column_mean_fixed, x).tolist())
    print("last row, pitfall:", column_mean_and_last_row(column_mean_last_row_pitfall, x)[1],
          "| fixed:", column_mean_and_last_row(column_mean_last_row_fixed, x)[1])


if __name__ == "__main__":
    main()
