"""TP049: integer `//` and `%` on tensors round toward zero (C), not toward minus infinity (Python).

Run it: python integer_division_and_modulo.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def div_mod_cdiv(a_ptr, b_ptr, q_ptr, r_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, a // b, mask=mask)  # rounds toward zero: -7 // 2 == -3
    tl.store(r_ptr + offs, a % b, mask=mask)  # takes the sign of a: -7 % 2 == -1
    tl.store(c_ptr + offs, tl.cdiv(a, b), mask=mask)  # (a + b - 1) // b: wrong when a < 0
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def floor_div_mod(a, b):
    """Python's // and % for integer tensors, from Triton's C-style ones."""
    q = a // b
    r = a % b
    adjust = (r != 0) & ((r < 0) != (b < 0))  # the fix: a remainder whose sign differs from b's
    return tl.where(adjust, q - 1, q), tl.where(adjust, r + b, r)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def div_mod_cdiv_fixed(a_ptr, b_ptr, q_ptr, r_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    q, r = floor_div_mod(a, b)
    neg_q, _ = floor_div_mod(-a, b)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(r_ptr + offs, r, mask=mask)
    tl.store(c_ptr + offs, -neg_q, mask=mask)  # ceil(a / b) == -floor(-a / b), for any signs
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def divide(kernel, a, b, block=64):
    """Run `kernel` on two int32 tensors; returns (a // b, a % b, cdiv(a, b)) as the kernel computes them."""
    q, r, c = (torch.full_like(a, -999) for _ in range(3))  # -999: no kernel writes it for these inputs
    kernel[(triton.cdiv(a.numel(), block),)](a, b, q, r, c, a.numel(), BLOCK=block)
    return q, r, c
# --8<-- [end:launch]


# --8<-- [start:scalars]
@triton.jit
def scalar_div_mod(out_ptr, a, b, A: tl.constexpr, B: tl.constexpr):
    tl.store(out_ptr + 0, a // b)  # a, b: int arguments, 0-d tensors in the kernel: C rounding
    tl.store(out_ptr + 1, a % b)
    tl.store(out_ptr + 2, A // B)  # A, B: constexprs, folded by Python: Python rounding
    tl.store(out_ptr + 3, A % B)


def scalar_results(a, b):
    out = torch.full((4,), -999, dtype=torch.int32, device=DEVICE)
    scalar_div_mod[(1,)](out, a, b, A=a, B=b)
    return out.tolist()
# --8<-- [end:scalars]


def main():
    a = torch.tensor([7, -7, 7, -7, -5, -8], dtype=torch.int32, device=DEVICE)
    b = torch.tensor([2, 2, -2, -2, 4, 4], dtype=torch.int32, device=DEVICE)
    print("a      =", a.tolist())
    print("b      =", b.tolist())
    for name, kernel in (("pitfall", div_mod_cdiv), ("fixed", div_mod_cdiv_fixed)):
        q, r, c = divide(kernel, a, b)
        print(f"{name:7} a // b = {q.tolist()}   a % b = {r.tolist()}   cdiv = {c.tolist()}")
    print("Python  a // b =", [x // y for x, y in zip(a.tolist(), b.tolist())],
          "  a % b =", [x % y for x, y in zip(a.tolist(), b.tolist())],
          "  ceil =", [-(-x // y) for x, y in zip(a.tolist(), b.tolist())])
    print("-7 and 2 as int arguments, then as constexprs: [a // b, a % b, A // B, A % B] =", scalar_results(-7, 2))


if __name__ == "__main__":
    main()
