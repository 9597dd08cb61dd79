"""TP046: Python's `max`, `min` and `abs` inside a kernel, against `tl.maximum`, `tl.minimum` and `tl.abs`.

Run it: python builtin_min_max_abs.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def relu_pitfall(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, max(x, 0.0), mask=mask)  # Python's max on a block
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def relu_fixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL)  # the fix: elementwise, and NaN stays NaN
    tl.store(out_ptr + offs, y, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x, block=64):
    n = x.numel()
    out = torch.full_like(x, float("nan"))  # NaN until a program writes it
    kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:abs]
@triton.jit
def abs_pitfall(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, abs(tl.load(x_ptr + offs, mask=mask)), mask=mask)  # Python's abs


@triton.jit
def abs_fixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs, mask=mask)), mask=mask)
# --8<-- [end:abs]


# --8<-- [start:nan]
@triton.jit
def relu_nan_dropped(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)  # propagate_nan left at its default, NONE
# --8<-- [end:nan]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}


def compile_for_h200(kernel, block=64):
    """Compile a kernel for sm_90 without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    return triton.compile(triton.compiler.ASTSource(fn, SIGNATURE, {"BLOCK": block}), target=H200)
# --8<-- [end:offline]


def main():
    x = torch.tensor([-2.0, -0.5, 1.0, 3.0, float("nan")], device=DEVICE)
    print("x:                   ", x.tolist())
    print("torch.relu:          ", torch.relu(x).tolist())
    print("max(x, 0.0):         ", launch(relu_pitfall, x).tolist())
    print("tl.maximum, NONE:    ", launch(relu_nan_dropped, x).tolist())
    print("tl.maximum, ALL:     ", launch(relu_fixed, x).tolist())
    try:
        launch(abs_pitfall, x)
    except Exception as error:  # CompilationError on a GPU, InterpreterError on the interpreter
        print("abs(x):              ", type(error).__name__, str(error).splitlines()[-1])
    print("tl.abs:              ", launch(abs_fixed, x).tolist())


if __name__ == "__main__":
    main()
