"""TP033: "NameError: Cannot access global variable BLOCK from within @jit'ed function".

Run it: python global_variable_in_jit.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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
BLOCK = 128  # a plain Python int at module level


@triton.jit
def double_global_block(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # reads the global BLOCK
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:annotated]
BLOCK_ANNOTATED: tl.constexpr = 128  # only an annotation: the value is still the int 128


@triton.jit
def double_annotated_block(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * BLOCK_ANNOTATED + tl.arange(0, BLOCK_ANNOTATED)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
# --8<-- [end:annotated]


# --8<-- [start:fix]
BLOCK_CONST = tl.constexpr(128)  # the fix, if it must be a global: an instance of tl.constexpr


@triton.jit
def double_constexpr_global(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * BLOCK_CONST + tl.arange(0, BLOCK_CONST)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


@triton.jit
def _twice(x):  # a global @jit function: allowed
    return x * 2


@triton.jit
def double_block_argument(x_ptr, y_ptr, n, BLOCK: tl.constexpr):  # the clean fix: an argument
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # `tl` is a global module: allowed
    mask = offs < n
    tl.store(y_ptr + offs, _twice(tl.load(x_ptr + offs, mask=mask)), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x, **constexprs):
    n, block = x.numel(), constexprs.get("BLOCK", 128)  # 128: the globals' block
    y = torch.full_like(x, float("nan"))  # NaN until a program writes it
    kernel[(triton.cdiv(n, block),)](x, y, n, **constexprs)
    return y
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}


def compile_for_h200(kernel, constexprs=None, signature=SIGNATURE):
    """Compile a kernel for sm_90 without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process: its cache key is computed afresh
    signature = dict(signature, **{name: "constexpr" for name in constexprs or {}})
    return triton.compile(triton.compiler.ASTSource(fn, signature, constexprs or {}), target=H200)
# --8<-- [end:offline]


# --8<-- [start:changed]
FACTOR = tl.constexpr(2.0)


@triton.jit
def scale_by_factor(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)


def scale_twice_changing_factor(x):
    """Launch, set FACTOR to 3.0, launch again; FACTOR is restored afterwards."""
    global FACTOR
    first = launch(scale_by_factor, x, BLOCK=128)
    FACTOR = tl.constexpr(3.0)
    try:
        second = launch(scale_by_factor, x, BLOCK=128)
    finally:
        FACTOR = tl.constexpr(2.0)
    return first, second
# --8<-- [end:changed]


def main():
    x = torch.arange(1.0, 301.0, device=DEVICE)
    try:
        compile_for_h200(double_global_block)
    except Exception as error:  # triton.compiler.errors.CompilationError
        print("plain global, compiled for sm_90:", type(error).__name__, str(error).splitlines()[-1][:70], "...")
    for kernel in (double_global_block, double_constexpr_global):
        try:
            print(f"{kernel.fn.__name__}, launched: y[:3] =", launch(kernel, x)[:3].tolist())
        except Exception as error:
            print(f"{kernel.fn.__name__}, launched: {type(error).__name__}")
    print("argument BLOCK=64: y[-3:] =", launch(double_block_argument, x, BLOCK=64)[-3:].tolist())
    try:
        first, second = scale_twice_changing_factor(x)
        print("FACTOR 2.0, then 3.0: y[0] =", first[0].item(), second[0].item())
    except RuntimeError as error:
        print("FACTOR 2.0, then 3.0: RuntimeError:", error)


if __name__ == "__main__":
    main()
