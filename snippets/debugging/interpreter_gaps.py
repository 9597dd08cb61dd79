"""TP078: kernels that compile but fail on Triton's interpreter: a float argument, libdevice.

Run it: python interpreter_gaps.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl
from triton.language.extra import libdevice

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def rms_norm_pitfall(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    inv = libdevice.rsqrt(mean_sq + eps.to(tl.float32))  # eps: a Python float on the interpreter; rsqrt: libdevice
    tl.store(y_ptr + row * n_cols + cols, x * inv, mask=cols < n_cols)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def rms_norm_fixed(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    inv = tl.rsqrt(mean_sq + tl.cast(eps, tl.float32))  # the fix: tl.cast and tl.rsqrt run on both backends
    tl.store(y_ptr + row * n_cols + cols, x * inv, mask=cols < n_cols)
# --8<-- [end:fix]


# --8<-- [start:launch]
def rms_norm(kernel, x, eps=1e-6):
    """RMS-normalise each row of a contiguous 2-D float32 tensor; the output starts as NaN."""
    y = torch.full_like(x, float("nan"))
    kernel[(x.shape[0],)](x, y, x.shape[1], eps, BLOCK=triton.next_power_of_2(x.shape[1]))
    return y
# --8<-- [end:launch]




def main():
    x = torch.randn(4, 100, device=DEVICE)
    try:
        print("pitfall:", rms_norm(rms_norm_pitfall, x)[0, :3].tolist())
    except Exception as error:  # only the interpreter gets here
        print("pitfall:", type(error).__name__, str(error).strip().splitlines()[-1][:100])
    print("fixed:  ", rms_norm(rms_norm_fixed, x)[0, :3].tolist())
    print("torch:  ", (x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6))[0, :3].tolist())


if __name__ == "__main__":
    main()
