"""TP052: `x.to(tl.int8)` of inf, NaN or 510.0 gives a different integer on each backend.

Run it: python out_of_range_float_to_int_cast.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def to_int8_pitfall(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x.to(tl.int8), mask=mask)  # inf, NaN, 510.0: no defined result
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def to_int8_saturating(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    x = tl.where(x != x, 0.0, x)  # the fix, 1: NaN becomes 0 (NaN is the only value not equal to itself)
    x = tl.clamp(x, -128.0, 127.0)  # the fix, 2: saturate to int8's range, inf included, before the cast
    tl.store(out_ptr + offs, x.to(tl.int8), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def to_int8(kernel, x, fill=-99):
    """Cast a 1-D float tensor to int8 with `kernel`; `fill` marks elements no program wrote."""
    out = torch.full(x.shape, fill, dtype=torch.int8, device=x.device)
    n = x.numel()
    kernel[(triton.cdiv(n, 64),)](x, out, n, BLOCK=64)
    return out


def saturating_reference(x):
    """What the fix computes, in float64: NaN -> 0, clamp to [-128, 127], truncate toward zero."""
    x = x.detach().to("cpu", torch.float64)
    return torch.where(x.isnan(), 0.0, x).clamp(-128, 127).trunc().to(torch.int8)
# --8<-- [end:launch]


# --8<-- [start:ptx]
def cast_instructions(x_type="*fp32"):
    """The PTX opcodes that convert and store in to_int8_pitfall, compiled for sm_90 (no GPU needed)."""
    source = triton.compiler.ASTSource(
        triton.runtime.jit.JITFunction(to_int8_pitfall.fn),
        {"x_ptr": x_type, "out_ptr": "*i8", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64})
    ptx = triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32)).asm["ptx"]
    return sorted({word for word in ptx.split() if word.startswith(("cvt.rzi", "st.global"))})
# --8<-- [end:ptx]


SPECIAL = [float("inf"), 510.0, -200.0, float("nan"), float("-inf"), 300.0, 127.9, -128.9]


def main():
    import warnings

    x = torch.tensor(SPECIAL, device=DEVICE)
    print("input             :", x.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the interpreter's NumPy warns "invalid value encountered in cast"
        print("x.to(tl.int8)     :", to_int8(to_int8_pitfall, x).tolist())
    print("clamped, NaN -> 0 :", to_int8(to_int8_saturating, x).tolist())


if __name__ == "__main__":
    main()
