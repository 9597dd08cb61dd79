"""TP011: "slower than PyTorch?" Time both sides with the same function, in the same run.

Run it: python compare_with_pytorch.py  (without a GPU, Triton's interpreter runs the kernel on the
CPU and the timings are skipped: they need a GPU)
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


# --8<-- [start:fused]
@triton.jit
def scale_shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)  # one read, one write


def scale_shift_triton(x, y):
    n = x.numel()
    scale_shift_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
    return y
# --8<-- [end:fused]


# --8<-- [start:pitfall]
def scale_shift_eager(x):
    return x * 2 + 1  # the PyTorch side: x * 2 writes a temporary, + 1 reads it back
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def timings(n=2**28):
    """Median ms of the Triton kernel, eager PyTorch and torch's copy_ of the same bytes, in one run."""
    x = torch.randn(n, device="cuda")  # float32, 1 GiB at the default n: far beyond L2
    y = torch.empty_like(x)

    def median_ms(fn):
        return triton.testing.do_bench(fn, return_mode="median")  # the fix: the median, the same timer for all

    return {
        "copy": median_ms(lambda: y.copy_(x)),  # torch's copy (reference): one read and one write per element
        "triton": median_ms(lambda: scale_shift_triton(x, y)),
        "eager": median_ms(lambda: scale_shift_eager(x)),
    }
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def gbps(ms, n=2**28):
    return 2 * n * 4 / (ms * 1e-3) / 1e9  # the bytes of one pass: n floats read, n written
# --8<-- [end:fix-more]


def main():
    x = torch.randn(5000, device=DEVICE)
    y = torch.full_like(x, float("nan"))
    same = torch.equal(scale_shift_triton(x, y), scale_shift_eager(x))
    print("Triton kernel and eager PyTorch give the same 5000 values:", same)
    if DEVICE != "cuda":
        print("timings skipped: triton.testing.do_bench needs a GPU")
        return
    t = timings()
    for name in ("copy", "triton", "eager"):
        ratio = gbps(t[name]) / gbps(t["copy"])
        print(f"{name:>7}: {t[name]:.3f} ms (median), {gbps(t[name]):6.0f} GB/s, {ratio:.2f} of torch's copy")


if __name__ == "__main__":
    main()
