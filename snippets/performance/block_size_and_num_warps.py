"""TP010: BLOCK_SIZE, num_warps and @triton.autotune for a memory-bound kernel.

Run it: ``python snippets/performance/block_size_and_num_warps.py``
(on a machine without a GPU it runs through Triton's interpreter and skips the benchmark).
"""

import functools
import re
import statistics
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import triton.testing
import pytest
from triton.backends.nvidia.compiler import CUDAOptions

from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:wall-clock]
def wall_clock_bench(fn, quantiles):
    """A CPU timer with the signature @triton.autotune expects, for the interpreter."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return [times[round(q * (len(times) - 1))] for q in quantiles]
# --8<-- [end:wall-clock]


# --8<-- [start:autotuned]
CONFIGS = [
    triton.Config({"BLOCK": 1024}, num_warps=4),
    triton.Config({"BLOCK": 2048}, num_warps=8),
    triton.Config({"BLOCK": 4096}, num_warps=8),
]


@triton.autotune(
    configs=CONFIGS,
    key=["n"],  # tune again when n changes
    do_bench=None if BACKEND == "cuda" else wall_clock_bench,  # None: Triton's GPU timer
)
@triton.jit
def scale_shift_tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)


def scale_shift(x: torch.Tensor) -> torch.Tensor:
    y = poisoned(*x.shape)
    n = x.numel()
    scale_shift_tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y
# --8<-- [end:autotuned]


# --8<-- [start:plain]
@triton.jit
def scale_shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)
# --8<-- [end:plain]


# --8<-- [start:no-driver]
scale_shift_no_timer = triton.autotune(configs=CONFIGS, key=["n"])(scale_shift_kernel)


def autotune_without_do_bench():
    x = fresh_randn(1000)
    y = poisoned(1000)
    scale_shift_no_timer[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, y, 1000)  # benchmarks the configs
# --8<-- [end:no-driver]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_autotuned_kernel_matches_float64(n):
    x = fresh_randn(n)
    assert_matches_float64(scale_shift(x), x.double() * 2 + 1)
    assert scale_shift_tuned.best_config in CONFIGS


def test_autotune_benchmarks_again_for_every_new_n():
    for n in (1234, 1235):
        scale_shift(fresh_randn(n))
    keys = {key[0] for key in scale_shift_tuned.cache}  # key: (n, dtype of x, dtype of y)
    assert {1234, 1235} <= keys
# --8<-- [end:test-fix]


# --8<-- [start:test-no-driver]
NO_DRIVER = "0 active drivers ([]). There should only be one."


@pytest.mark.interpreter
def test_autotune_without_a_gpu_and_without_do_bench_fails():
    if torch.cuda.is_available():
        pytest.skip("a CUDA driver is present, so Triton's GPU timer works")
    with pytest.raises(RuntimeError, match=re.escape(NO_DRIVER)):
        autotune_without_do_bench()
# --8<-- [end:test-no-driver]


# --8<-- [start:test-defaults]
def test_cuda_default_num_warps_is_4_and_num_stages_is_3():
    options = CUDAOptions()
    assert (options.num_warps, options.num_stages) == (4, 3)


@pytest.mark.gpu
def test_a_launch_without_num_warps_compiles_with_4_warps():
    x = fresh_randn(4096)
    compiled = scale_shift_kernel[(4,)](x, torch.empty_like(x), 4096, BLOCK=1024)
    assert compiled.metadata.num_warps == 4
# --8<-- [end:test-defaults]


# --8<-- [start:tile]
@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)  # 128 x 128 floats live in registers
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def matmul_tile_launch(num_warps, K=64):
    a = fresh_randn(128, K).half()
    b = fresh_randn(K, 128).half()
    c = poisoned(128, 128)
    compiled = matmul_tile[(1,)](a, b, c, K, BM=128, BN=128, BK=32, num_warps=num_warps)
    return compiled, a, b, c
# --8<-- [end:tile]


# --8<-- [start:test-spills]
@pytest.mark.gpu
def test_a_128x128_accumulator_with_one_warp_spills_registers():
    compiled, a, b, c = matmul_tile_launch(num_warps=1)
    assert compiled.n_spills > 0
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)  # slow, not wrong


@pytest.mark.gpu
def test_the_same_tile_with_eight_warps_does_not_spill():
    compiled, a, b, c = matmul_tile_launch(num_warps=8)
    assert compiled.n_spills == 0
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)
# --8<-- [end:test-spills]


# --8<-- [start:benchmark]
N = 2**28  # float32: 1 GiB in, 1 GiB out
SWEEP = [(64, 1), (1024, 32), (1024, 4), (2048, 8), (4096, 4), (4096, 8), (8192, 16)]  # (BLOCK, num_warps)


def gbps(ms, n=N):
    return 2 * n * 4 / (ms * 1e-3) / 1e9  # bytes read + bytes written


@functools.cache
def sweep():
    """Median GB/s of each (BLOCK, num_warps), the autotuned kernel and torch's copy_."""
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)

    def bench(fn):
        return gbps(triton.testing.do_bench(fn, return_mode="median"))

    results = {"copy": bench(lambda: y.copy_(x))}  # the ceiling, measured in the same run
    for block, warps in SWEEP:
        grid = (triton.cdiv(N, block),)
        results[(block, warps)] = bench(lambda: scale_shift_kernel[grid](x, y, N, BLOCK=block, num_warps=warps))
    tuned_grid = lambda meta: (triton.cdiv(N, meta["BLOCK"]),)  # noqa: E731
    results["autotuned"] = bench(lambda: scale_shift_tuned[tuned_grid](x, y, N))
    results["autotuned config"] = str(scale_shift_tuned.best_config)
    return results
# --8<-- [end:benchmark]


def best_in_sweep():
    return max(sweep()[config] for config in SWEEP)


# --8<-- [start:test-benchmark]
@pytest.mark.gpu
def test_the_tensor_is_far_beyond_l2():
    assert N * 4 >= 10 * torch.cuda.get_device_properties(0).L2_cache_size


@pytest.mark.gpu
def test_best_config_reaches_80_percent_of_copy():
    assert best_in_sweep() >= 0.8 * sweep()["copy"]


@pytest.mark.gpu
def test_autotuned_reaches_90_percent_of_the_best_in_the_sweep():
    assert sweep()["autotuned"] >= 0.9 * best_in_sweep()


@pytest.mark.gpu
def test_tiny_block_one_warp_is_below_half_of_the_best():
    assert sweep()[(64, 1)] < 0.5 * best_in_sweep()


@pytest.mark.gpu
def test_32_warps_on_a_block_of_1024_is_below_60_percent_of_the_best():
    assert sweep()[(1024, 32)] < 0.6 * best_in_sweep()
# --8<-- [end:test-benchmark]


# GPU evidence for the pages (run by `triton-faq bench`, not by pytest).
EVIDENCE_BLOCKS = [256, 512, 1024, 2048, 4096, 8192]
EVIDENCE_WARPS = [1, 2, 4, 8, 16]
BYTES_MOVED = 2 * N * 4  # every float32 read once and written once


def tuned_grid(meta):
    return (triton.cdiv(N, meta["BLOCK"]),)


@functools.cache
def measured_sweep():
    """Median timings of every (BLOCK, num_warps) pair, the autotuner's pick on N, and the copy ceiling."""
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    expected = x * 2 + 1
    timings = {}
    for block in EVIDENCE_BLOCKS:
        grid = (triton.cdiv(N, block),)
        for warps in EVIDENCE_WARPS:
            y.fill_(float("nan"))
            timings[(block, warps)] = median_ms(lambda: scale_shift_kernel[grid](x, y, N, BLOCK=block, num_warps=warps))
            if not torch.equal(y, expected):
                raise AssertionError(f"BLOCK={block}, num_warps={warps} wrote a wrong result")
    scale_shift_tuned[tuned_grid](x, y, N)  # the autotuner times its configs on this n
    best = scale_shift_tuned.best_config
    return {"ceiling": ceiling, "timings": timings, "autotuned": (best.kwargs["BLOCK"], best.num_warps)}


@gpu_evidence("block-size-sweep")
def block_size_sweep():
    """GB/s of the plain kernel for each (BLOCK, num_warps) on 2**28 float32, with the autotuner's pick marked."""
    measured = measured_sweep()
    rows = [
        [block, warps, (block, warps) == measured["autotuned"],
         *memory_bound_cells(timing, BYTES_MOVED, measured["ceiling"])]
        for (block, warps), timing in measured["timings"].items()
    ]
    return table(
        [label("BLOCK", "BLOCK", "block"), label("num_warps", "num_warps", "num_warps"),
         label("picked by @triton.autotune", "@triton.autotune 选中的配置", "autotuned"), *memory_bound_columns()],
        rows,
        chart={"x": "block", "y": "gbps", "series": "num_warps", "mark": "autotuned"},
        ceiling_gbps=measured["ceiling"],
        n_elements=N,
    )


@gpu_evidence("autotuned-vs-best")
def autotuned_vs_best():
    """The autotuned kernel, the best pair of the sweep and eager PyTorch, timed again side by side."""
    timings = measured_sweep()["timings"]
    best_block, best_warps = min(timings, key=lambda config: timings[config]["median_ms"])
    tuned_block, tuned_warps = measured_sweep()["autotuned"]
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    candidates = [
        ("scale_shift_tuned (@triton.autotune)", tuned_block, tuned_warps,
         lambda: scale_shift_tuned[tuned_grid](x, y, N)),
        ("scale_shift_kernel (best of the sweep)", best_block, best_warps,
         lambda: scale_shift_kernel[(triton.cdiv(N, best_block),)](x, y, N, BLOCK=best_block, num_warps=best_warps)),
        ("torch eager: x * 2 + 1", "-", "-", lambda: x * 2 + 1),
    ]
    rows = [[name, block, warps, *memory_bound_cells(median_ms(fn), BYTES_MOVED, ceiling)]
            for name, block, warps, fn in candidates]
    return table(
        [label("implementation", "实现", "implementation"), label("BLOCK", "BLOCK", "block"),
         label("num_warps", "num_warps", "num_warps"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=N,
    )


def main():
    print(describe())
    print("CUDAOptions defaults: num_warps =", CUDAOptions().num_warps, "num_stages =", CUDAOptions().num_stages)
    x = fresh_randn(5000)
    y = scale_shift(x)
    print("autotuned, n=5000: best config", scale_shift_tuned.best_config,
          "max error vs float64:", float((y.double() - (x.double() * 2 + 1)).abs().max()))
    if BACKEND != "cuda":
        print("benchmark skipped: it needs a CUDA GPU")
        return
    results = sweep()
    copy = results["copy"]
    print(f"torch copy_ (ceiling): {copy:7.0f} GB/s")
    for config in SWEEP + ["autotuned"]:
        print(f"{str(config):>12}: {results[config]:7.0f} GB/s = {results[config] / copy:5.1%} of copy")
    print("autotuned config:", results["autotuned config"])


if __name__ == "__main__":
    main()
