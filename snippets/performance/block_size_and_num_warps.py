"""TP010: BLOCK_SIZE, num_warps and @triton.autotune for a memory-bound kernel.

Run it: python block_size_and_num_warps.py  (without a GPU, Triton's interpreter runs it on the CPU
and the timings are skipped)
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
def scale_shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)


def scale_shift_fixed(x, block=256, num_warps=16, y=None):
    """A launch configuration picked once and never measured."""
    y = torch.full_like(x, float("nan")) if y is None else y  # NaN until a program writes it
    scale_shift_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block, num_warps=num_warps)
    return y
# --8<-- [end:pitfall]


# --8<-- [start:wall-clock]
def wall_clock_bench(fn, quantiles):
    """A CPU timer with the signature @triton.autotune expects, for the interpreter."""
    import time

    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return [times[round(q * (len(times) - 1))] for q in quantiles]
# --8<-- [end:wall-clock]


# --8<-- [start:fix]
CONFIGS = [
    triton.Config({"BLOCK": 1024}, num_warps=4),
    triton.Config({"BLOCK": 2048}, num_warps=8),
    triton.Config({"BLOCK": 4096}, num_warps=8),
]


@triton.autotune(  # the fix: time a few configs on the first call for each new n, keep the fastest
    configs=CONFIGS,
    key=["n"],
    do_bench=None if DEVICE == "cuda" else wall_clock_bench,  # None: Triton's GPU timer
)
@triton.jit
def scale_shift_tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def scale_shift(x, y=None):
    y = torch.full_like(x, float("nan")) if y is None else y
    n = x.numel()
    scale_shift_tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y
# --8<-- [end:fix-more]


def main():
    x = torch.randn(5000, device=DEVICE)
    print("fixed config (256, 16 warps) right:", torch.equal(scale_shift_fixed(x), x * 2 + 1))
    print("autotuned right:", torch.equal(scale_shift(x), x * 2 + 1), "| picked", scale_shift_tuned.best_config)
    if DEVICE != "cuda":
        print("timings skipped: they need a GPU")
        return
    x = torch.randn(2**28, device=DEVICE)  # 1 GiB of float32, far beyond L2
    y = torch.empty_like(x)

    def gbps(fn):
        return 2 * x.numel() * 4 / (triton.testing.do_bench(fn, return_mode="median") * 1e-3) / 1e9

    copy = gbps(lambda: y.copy_(x))
    print(f"torch's copy (reference): {copy:6.0f} GB/s")
    for block, warps in [(256, 16), (256, 4), (512, 4), (1024, 4), (4096, 16)]:
        rate = gbps(lambda: scale_shift_fixed(x, block, warps, y))
        print(f"BLOCK={block:5d}, num_warps={warps:2d}: {rate:6.0f} GB/s = {rate / copy:.2f} of torch's copy")
    rate = gbps(lambda: scale_shift(x, y))
    print(f"autotuned {scale_shift_tuned.best_config}: {rate:6.0f} GB/s = {rate / copy:.2f} of torch's copy")


if __name__ == "__main__":
    main()
