"""TP025: "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)": a CPU tensor passed to a kernel.

Run it: python cpu_tensor_passed_to_kernel.py  (without a GPU, Triton's interpreter runs it on the CPU)
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


# --8<-- [start:kernel]
@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2, mask=mask)


def launch(x, y, block=128):
    n = y.numel()
    double_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block)
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
def double_pitfall(x):
    y = torch.empty(x.shape)  # no device=: this output lives on the CPU
    launch(x, y)
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def double(x, out=None):
    out = torch.empty_like(x) if out is None else out  # the fix: empty_like allocates on x's device
    for name, t in (("x", x), ("out", out)):
        if t.device.type != DEVICE or not t.is_contiguous():
            raise ValueError(f"double(): {name} must be a contiguous tensor on {DEVICE!r}, "
                             f"got one on {t.device} with strides {t.stride()}")
    if x.is_cuda:
        with torch.cuda.device(x.device):  # Triton launches on the *current* GPU: make it x's
            launch(x, out)
    else:
        launch(x, out)  # the interpreter
    return out
# --8<-- [end:fix]


def main():
    x = torch.arange(8.0, device=DEVICE)
    try:
        print("pitfall (output on the CPU):", double_pitfall(x).tolist())
    except ValueError as error:
        print(f"pitfall (output on the CPU): ValueError: {error}")
    print("fix:", double(x).tolist())
    try:
        double(torch.arange(8.0, device=DEVICE).reshape(2, 4).t())
    except ValueError as error:
        print(f"fix, given a transposed view: ValueError: {error}")


if __name__ == "__main__":
    main()
