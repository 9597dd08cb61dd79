"""TP019: what `TRITON_PRINT_AUTOTUNING=1` prints, and when.

Run it: python print_autotuning.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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


# --8<-- [start:pitfall]
@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):  # bare @triton.jit: TRITON_PRINT_AUTOTUNING prints nothing
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:bench]
def wall_clock_bench(fn, quantiles):
    """A benchmarker for the interpreter, which has no CUDA events: the same shape as do_bench's."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return [float(torch.tensor(times).quantile(q)) for q in quantiles]


BENCH = None if DEVICE == "cuda" else wall_clock_bench  # None: Triton's do_bench on the GPU
# --8<-- [end:bench]


# --8<-- [start:fix]
CONFIGS = [
    triton.Config({"BLOCK": 64}, num_warps=1),
    triton.Config({"BLOCK": 128}, num_warps=2),
]


@triton.autotune(configs=CONFIGS, key=["n"], do_bench=BENCH)  # the autotuner is what prints
@triton.jit
def add_one_tuned(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:demo]
MARKER = "=== above: bare @triton.jit; below: @triton.autotune ==="


def print_demo():
    """Launch the bare kernel twice, print MARKER, then the autotuned one for n = 1000, 1000, 2000."""
    x = torch.zeros(2000, device=DEVICE)
    add_one[(16,)](x, 1000, BLOCK=64)
    add_one[(16,)](x, 1000, BLOCK=64)
    print(MARKER, flush=True)
    for n in (1000, 1000, 2000):  # tunes for n=1000, reuses that choice, tunes for n=2000
        add_one_tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, n)
# --8<-- [end:demo]


def main():
    os.environ["TRITON_PRINT_AUTOTUNING"] = "1"  # read when the autotuner runs, so setting it here works
    print_demo()


if __name__ == "__main__":
    main()
