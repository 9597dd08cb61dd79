"""TP021: `tl.math.tanh` does not exist in Triton 3.x; tanh lives in libdevice.

Run it: python where_is_tanh.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def tanh_math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.math.tanh(x), mask=mask)  # Triton 2.x spelling
# --8<-- [end:pitfall]


# --8<-- [start:launch]
def launch(kernel, x, block=128):
    """Run an element-wise kernel on a 1-D float32 tensor; the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:fix]
from triton.language.extra import libdevice  # noqa: E402  (Triton 3.x)


@triton.jit
def tanh_libdevice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.tanh(x), mask=mask)  # the fix: libdevice.tanh
# --8<-- [end:fix]


# --8<-- [start:cuda-path]
from triton.language.extra.cuda import libdevice as cuda_libdevice  # noqa: E402


@triton.jit
def tanh_cuda_libdevice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, cuda_libdevice.tanh(x), mask=mask)
# --8<-- [end:cuda-path]


# --8<-- [start:portable]
@triton.jit
def tanh_by_exp(x):
    # overflow-safe on every input; see the page on the hand-written formula
    t = tl.exp(-2.0 * tl.abs(x))
    y = (1.0 - t) / (1.0 + t)
    return tl.where(x < 0, -y, y)


tanh = libdevice.tanh if DEVICE == "cuda" else tanh_by_exp  # chosen once, at import


@triton.jit
def tanh_portable_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tanh(x), mask=mask)
# --8<-- [end:portable]


def main():
    x = torch.tensor([-50.0, -1.0, -0.5, 0.0, 0.5, 1.0, 50.0], device=DEVICE)
    for kernel in (tanh_math_kernel, tanh_libdevice_kernel):
        try:
            launch(kernel, x)
            print(f"{kernel.__name__}: ran")
        except Exception as error:  # a TritonError: CompilationError on CUDA, InterpreterError on the CPU
            print(f"{kernel.__name__}: {type(error).__name__}: {str(error).splitlines()[-1]}")
    y = launch(tanh_portable_kernel, x)
    print("portable tanh:", [round(v, 6) for v in y.tolist()])
    print("torch.tanh:   ", [round(v, 6) for v in torch.tanh(x).tolist()])


if __name__ == "__main__":
    main()
