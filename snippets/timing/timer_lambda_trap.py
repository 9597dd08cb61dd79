"""TP017: `timer.measure(kernel[grid](...))` times nothing: the kernel already ran.

Run it: python timer_lambda_trap.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import functools  # noqa: E402
import statistics  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:timer]
class GpuTimer:
    """Median time in milliseconds of fn(), measured with CUDA events (the usual hand-written timer)."""

    def measure(self, fn, warmup=5, repeat=50):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)
# --8<-- [end:timer]


# --8<-- [start:pitfall]
@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    # x += 1 in place, so x counts how many times the kernel ran
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def time_the_launch_pitfall(x, block=1024):
    grid = (triton.cdiv(x.numel(), block),)
    return GpuTimer().measure(add_one[grid](x, x.numel(), BLOCK=block))  # the kernel runs here, once
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def time_the_launch(x, block=1024):
    grid = (triton.cdiv(x.numel(), block),)
    return GpuTimer().measure(lambda: add_one[grid](x, x.numel(), BLOCK=block))  # the fix: `lambda:`
# --8<-- [end:fix]


# --8<-- [start:forms]
def three_forms(x, block=1024):
    """The same launch wrapped three ways; each is a zero-argument callable."""
    n = x.numel()
    grid = (triton.cdiv(n, block),)

    def run():
        add_one[grid](x, n, BLOCK=block)

    return {
        "lambda": lambda: add_one[grid](x, n, BLOCK=block),
        "partial": functools.partial(add_one[grid], x, n, BLOCK=block),
        "named": run,
    }
# --8<-- [end:forms]


def main():
    x = torch.zeros(1000, device=DEVICE)
    try:
        time_the_launch_pitfall(x, block=256)
    except TypeError as error:
        print("pitfall: GpuTimer().measure(kernel[grid](...)) ->", f"{type(error).__name__}: {error}")
    print("  yet the kernel ran before measure() started; x[0] =", x[0].item())
    for form, fn in three_forms(x, block=256).items():
        fn()
        print(f"fix: calling the {form} form launches the kernel; x[0] =", x[0].item())
    if DEVICE == "cuda":
        big = torch.zeros(2**28, device=DEVICE)  # 1 GiB, read and written by every launch
        print(f"fix: GpuTimer().measure(lambda: ...) on 1 GiB: {time_the_launch(big):.3f} ms")


if __name__ == "__main__":
    main()
