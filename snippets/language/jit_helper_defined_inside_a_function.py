"""TP071: a @triton.jit helper defined inside a function (a closure, a factory) is not found.

Run it: python jit_helper_defined_inside_a_function.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def make_scaled_copy(scale):
    """A kernel factory: the helper and the kernel live inside it and read `scale` from the closure."""
    @triton.jit
    def apply(x):
        return x * scale

    @triton.jit
    def scaled_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, apply(tl.load(x_ptr + offs, mask=mask)), mask=mask)

    return scaled_copy
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def times(x, factor):  # helpers live at module level, like the kernel
    return x * factor


@triton.jit
def plus(x, term):
    return x + term


@triton.jit
def scaled_copy(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, OP: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # the fix: the value is an argument and the helper is a constexpr argument, not a closure
    tl.store(out_ptr + offs, OP(tl.load(x_ptr + offs, mask=mask), scale), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def run(kernel, x, *args, BLOCK=128, **meta):
    """Launch `kernel` over a 1-D float32 tensor; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), *args, BLOCK=BLOCK, **meta)
    return out
# --8<-- [end:launch]


# --8<-- [start:late-binding]
KERNELS = {}
for _factor in (2.0, 3.0):
    FACTOR = tl.constexpr(_factor)

    @triton.jit
    def scale_by_factor(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)  # FACTOR is read at compile time

    KERNELS[_factor] = scale_by_factor
# --8<-- [end:late-binding]


def main():
    x = torch.arange(1.0, 6.0, device=DEVICE)
    try:
        print("factory:", run(make_scaled_copy(2.0), x).tolist())
    except Exception as error:  # the interpreter: NameError; compiled: the closure's float is refused
        print("factory:", type(error).__name__, str(error).strip().splitlines()[-1][:120])
    print("fixed, times 2:", run(scaled_copy, x, 2.0, OP=times).tolist())
    print("fixed, plus 2: ", run(scaled_copy, x, 2.0, OP=plus).tolist())
    print("the kernel made for 2.0:", run(KERNELS[2.0], x).tolist())


if __name__ == "__main__":
    main()
