"""TP083: `x ** 2` on a Triton tensor fails: 'tensor' object has no attribute '__pow__'.

Run it: python power_operator_on_a_tensor.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def rms_norm_pitfall(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    """out = x / sqrt(mean(x ** 2) + eps) per row of a contiguous 2-D float32 tensor."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean_sq = tl.sum(x ** 2, axis=0) / n_cols  # ** on a tensor: refused on both backends
    rstd = (mean_sq + eps) ** -0.5
    tl.store(out_ptr + row * n_cols + cols, x * rstd, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def rms_norm_fixed(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / n_cols  # the fix: a square is a product
    rstd = tl.rsqrt(mean_sq + eps)  # and a power of -0.5 is tl.rsqrt
    tl.store(out_ptr + row * n_cols + cols, x * rstd, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-general]
from triton.language.extra import libdevice  # noqa: E402  (CUDA's math library; not on the interpreter)


@triton.jit
def power_exp2(x_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    """out = x ** p for x > 0 and any p, on both backends: 2 ** (p * log2(x))."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, tl.exp2(p * tl.log2(x)), mask=mask)


@triton.jit
def power_static(x_ptr, out_ptr, n, P: tl.constexpr, BLOCK: tl.constexpr):
    """out = x ** P for a small integer P known when compiling: P - 1 products, any sign of x."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    result = x
    for _ in tl.static_range(P - 1):  # unrolled when compiled
        result = result * x
    tl.store(out_ptr + offs, result, mask=mask)


@triton.jit
def power_libdevice(x_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    """out = x ** p with CUDA's pow (negative x with an integer p too); not on the interpreter."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, libdevice.pow(x, p), mask=mask)
# --8<-- [end:fix-general]


# --8<-- [start:launch]
def rms_norm(kernel, x, eps=1e-6):
    """One program per row of a contiguous 2-D float32 tensor; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](x, out, x.shape[1], eps, BLOCK=triton.next_power_of_2(x.shape[1]))
    return out


def power(kernel, x, p, block=256):
    """x ** p element-wise for a 1-D float32 tensor and a Python number p; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), p, BLOCK=block)
    return out
# --8<-- [end:launch]


def main():
    x = torch.randn(4, 1000, device=DEVICE)
    try:
        rms_norm(rms_norm_pitfall, x)
    except Exception as error:  # CompilationError compiled, InterpreterError on the interpreter
        print("pitfall:", str(error).strip().splitlines()[-1][:120])
    reference = x / torch.sqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6)
    print("fixed RMSNorm matches torch:", torch.allclose(rms_norm(rms_norm_fixed, x), reference, atol=1e-5))
    y = torch.rand(1000, device=DEVICE) + 0.1
    print("x ** 2.5 through exp2/log2 matches torch:", torch.allclose(power(power_exp2, y, 2.5), y ** 2.5, rtol=1e-5))


if __name__ == "__main__":
    main()
