"""TP084: tl.sqrt(HEAD_DIM) of an integer tl.constexpr crashes the compiler ('math.sqrt' op operand #0 must be floating-point-like).

Run it: python math_function_of_an_integer_constant.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def scale_pitfall(x_ptr, out_ptr, HEAD_DIM: tl.constexpr):
    """out = x / sqrt(HEAD_DIM) per row, the scale of attention scores."""
    row = tl.program_id(0)
    cols = tl.arange(0, HEAD_DIM)
    sm_scale = 1.0 / tl.sqrt(HEAD_DIM)  # tl.sqrt of an int constant: the compiler fails
    x = tl.load(x_ptr + row * HEAD_DIM + cols)
    tl.store(out_ptr + row * HEAD_DIM + cols, x * sm_scale)


@triton.jit
def scale_by_argument_pitfall(x_ptr, out_ptr, head_dim, BLOCK: tl.constexpr):
    """The same with the size as a run-time int: a clear error this time."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < head_dim
    sm_scale = 1.0 / tl.sqrt(head_dim)  # an int32 scalar: refused
    x = tl.load(x_ptr + row * head_dim + cols, mask=mask)
    tl.store(out_ptr + row * head_dim + cols, x * sm_scale, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scale_fixed(x_ptr, out_ptr, HEAD_DIM: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, HEAD_DIM)
    sm_scale = HEAD_DIM ** -0.5  # the fix: Python computes it when compiling, a float constant
    x = tl.load(x_ptr + row * HEAD_DIM + cols)
    tl.store(out_ptr + row * HEAD_DIM + cols, x * sm_scale)
# --8<-- [end:fix]


# --8<-- [start:fix-argument]
@triton.jit
def scale_by_argument_fixed(x_ptr, out_ptr, head_dim, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < head_dim
    sm_scale = 1.0 / tl.sqrt(tl.cast(head_dim, tl.float32))  # the fix: a float first (tl.cast: .to fails for a 1)
    x = tl.load(x_ptr + row * head_dim + cols, mask=mask)
    tl.store(out_ptr + row * head_dim + cols, x * sm_scale, mask=mask)
# --8<-- [end:fix-argument]


# --8<-- [start:launch]
def scale(kernel, x):
    """x / sqrt(x.shape[1]) for a contiguous 2-D float32 x, one program per row; output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](x, out, HEAD_DIM=x.shape[1])
    return out


def scale_by_argument(kernel, x):
    out = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out
# --8<-- [end:launch]


def main():
    x = torch.randn(4, 64, device=DEVICE)
    for name, call in (("int constexpr", lambda: scale(scale_pitfall, x)),
                       ("int argument", lambda: scale_by_argument(scale_by_argument_pitfall, x))):
        try:
            call()
            print(f"pitfall, {name}: ran (the interpreter of Triton 3.5 and older computes it)")
        except Exception as error:  # RuntimeError or CompilationError compiled, InterpreterError on the interpreter
            print(f"pitfall, {name}:", type(error).__name__, str(error).strip().splitlines()[-1][:150])
    print("fix equals x / 8:", torch.allclose(scale(scale_fixed, x), x / 8))
    print("fix for an int argument equals x / 8:", torch.allclose(scale_by_argument(scale_by_argument_fixed, x), x / 8))


if __name__ == "__main__":
    main()
