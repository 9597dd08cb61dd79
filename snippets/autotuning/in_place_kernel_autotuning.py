"""TP028: an autotuned in-place kernel adds more than 1: `restore_value`, `reset_to_zero`, and
"Conflicting meta-parameters".

Run it: python in_place_kernel_autotuning.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import time  # noqa: E402  (wall_clock_bench)
# --8<-- [end:prelude]


# --8<-- [start:bench]
def wall_clock_bench(fn, quantiles):
    """TP010's CPU timer for the interpreter: runs the kernel 3 times per config."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return [times[round(q * (len(times) - 1))] for q in quantiles]


BENCH = None if DEVICE == "cuda" else wall_clock_bench  # None: Triton's do_bench on the GPU
CONFIGS = [
    triton.Config({"BLOCK_SIZE": 64}, num_warps=1),
    triton.Config({"BLOCK_SIZE": 128}, num_warps=2),
    triton.Config({"BLOCK_SIZE": 256}, num_warps=4),
]
# --8<-- [end:bench]


# --8<-- [start:pitfall]
@triton.jit
def add_one_kernel(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x + 1, mask=mask)  # x += 1, in place


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # out += partial sum, one per program


add_one_tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=BENCH)(add_one_kernel)
sum_tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=BENCH)(sum_kernel)


def grid(n):
    return lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
add_one_restored = triton.autotune(
    configs=CONFIGS, key=["n"], do_bench=BENCH,
    restore_value=["x_ptr"],  # the fix: copy x before each benchmark run, copy it back after
)(add_one_kernel)

sum_reset = triton.autotune(
    configs=CONFIGS, key=["n"], do_bench=BENCH,
    reset_to_zero=["out_ptr"],  # the fix: zero out before each benchmark run and before the real launch
)(sum_kernel)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def add_one_in_place(x):
    add_one_restored[grid(x.numel())](x, x.numel())
    return x


def tensor_sum(x):
    out = torch.zeros(1, device=DEVICE)  # an accumulator starts at 0 on every call
    sum_reset[grid(x.numel())](x, out, x.numel())
    return out
# --8<-- [end:fix-more]


# --8<-- [start:conflict]
def pass_block_size_to_the_autotuned_kernel():
    x = torch.zeros(300, device=DEVICE)
    add_one_tuned[(3,)](x, 300, BLOCK_SIZE=128)  # BLOCK_SIZE is what the autotuner chooses


def pass_block_size_to_the_plain_kernel():
    x = torch.zeros(300, device=DEVICE)
    add_one_kernel[(3,)](x, 300, BLOCK_SIZE=128)  # to fix BLOCK_SIZE yourself, skip the autotuner
    return x
# --8<-- [end:conflict]


def main():
    x = torch.zeros(1000, device=DEVICE)
    add_one_tuned[grid(1000)](x, 1000)
    print("x = zeros; ONE call of the autotuned x += 1 ->", x[0].item())
    add_one_tuned[grid(1000)](x, 1000)
    print("second call, same n (cached config)         ->", x[0].item())
    print("with restore_value=['x_ptr'], one call       ->", add_one_in_place(torch.zeros(1000, device=DEVICE))[0].item())
    ones = torch.ones(1000, device=DEVICE)
    out = torch.zeros(1, device=DEVICE)
    sum_tuned[grid(1000)](ones, out, 1000)
    print("atomic sum of 1000 ones without reset_to_zero:", out.item())
    print("with reset_to_zero=['out_ptr']:               ", tensor_sum(ones).item())
    try:
        pass_block_size_to_the_autotuned_kernel()
    except ValueError as error:
        print("passing BLOCK_SIZE= to the autotuned kernel: ValueError:", error)


if __name__ == "__main__":
    main()
