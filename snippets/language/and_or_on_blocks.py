"""TP048: Python `and`, `or` and `if` on block tensors, and the precedence of `&` next to `<`.

Run it: python and_or_on_blocks.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def in_range_and(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inside = (x > 0) and (x < 10)  # Python `and` on two blocks
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=offs < n)


@triton.jit
def outside_or(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    outside = (x <= 0) or (x >= 10)  # Python `or` on two blocks
    tl.store(out_ptr + offs, outside.to(tl.int32), mask=offs < n)
# --8<-- [end:pitfall]


# --8<-- [start:precedence]
@triton.jit
def in_range_no_parentheses(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inside = x > 0 & x < 10  # Python reads: x > (0 & x) < 10, a chained comparison
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=offs < n)


@triton.jit
def abs_with_if(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if x > 0:  # `if` on a block
        y = x
    else:
        y = -x
    tl.store(out_ptr + offs, y, mask=offs < n)
# --8<-- [end:precedence]


# --8<-- [start:fix]
@triton.jit
def in_range_fixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inside = (x > 0) & (x < 10)  # the fix: `&` (`|` for or), each comparison in parentheses
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=offs < n)


@triton.jit
def outside_fixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    outside = (x <= 0) | (x >= 10)
    tl.store(out_ptr + offs, outside.to(tl.int32), mask=offs < n)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def abs_with_where(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.where(x > 0, x, -x), mask=offs < n)  # a per-element `if`: tl.where
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def run(kernel, x, dtype=torch.int32, block=64):
    """Launch an element-wise kernel on a 1-D tensor; the output starts at -99, which no kernel writes."""
    out = torch.full(x.shape, -99, dtype=dtype, device=x.device)
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out
# --8<-- [end:launch]


def main():
    x = torch.tensor([-5, 5, 15, 3], device=DEVICE)
    print("x =", x.tolist())
    for pitfall, fixed in ((in_range_and, in_range_fixed), (outside_or, outside_fixed)):
        print(f"  {pitfall.fn.__name__:24}", run(pitfall, x).tolist(), f"   {fixed.fn.__name__}:", run(fixed, x).tolist())
    for pitfall, fixed, dtype in ((in_range_no_parentheses, in_range_fixed, torch.int32),
                                  (abs_with_if, abs_with_where, x.dtype)):
        try:
            result = run(pitfall, x, dtype).tolist()
        except Exception as error:  # compiled: triton.compiler.errors.UnsupportedLanguageConstruct
            result = f"{type(error).__name__}: {str(error).splitlines()[-1]}"
        print(f"  {pitfall.fn.__name__:24}", result, f"   {fixed.fn.__name__}:", run(fixed, x, dtype).tolist())


if __name__ == "__main__":
    main()
