"""TP020: where register counts, spills, shared memory and per-config timings come from.

Run it: ``python snippets/autotuning/registers_and_spills.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:kernel]
@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # One BLOCK_M x BLOCK_N tile: A is BLOCK_M x K, B is K x BLOCK_N, K a multiple of BLOCK_K.
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # lives in registers
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)


def launch_tile(block, num_warps, K=64):
    """Launch one tile on fresh fp16 inputs; return what the launch returned, the output, A and B."""
    a, b = fresh_randn(block, K, dtype=torch.float16), fresh_randn(K, block, dtype=torch.float16)
    c = poisoned(block, block)
    ret = matmul_tile[(1,)](a, b, c, K, BLOCK_M=block, BLOCK_N=block, BLOCK_K=32, num_warps=num_warps)
    return ret, c, a, b
# --8<-- [end:kernel]


# --8<-- [start:test-compiled-kernel]
@pytest.mark.gpu
def test_cuda_launch_returns_registers_spills_and_shared_memory():
    ret, _, _, _ = launch_tile(block=64, num_warps=4)
    assert isinstance(ret, triton.compiler.CompiledKernel)
    assert isinstance(ret.n_regs, int) and 0 < ret.n_regs <= 255  # per thread
    assert isinstance(ret.n_spills, int) and ret.n_spills >= 0
    max_shared = triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"]
    assert isinstance(ret.metadata.shared, int) and 0 < ret.metadata.shared <= max_shared  # bytes
    assert (ret.metadata.num_warps, ret.metadata.num_stages) == (4, 3)  # 3: the default


@pytest.mark.interpreter
def test_interpreter_launch_and_warmup_return_none():
    ret, _, _, _ = launch_tile(block=16, num_warps=4)
    assert ret is None
    a = torch.empty(16, 32, dtype=torch.float16)
    assert matmul_tile.warmup(a, a, a, K=32, BLOCK_M=16, BLOCK_N=16, BLOCK_K=32, grid=(1,)) is None
# --8<-- [end:test-compiled-kernel]


# --8<-- [start:test-spills]
@pytest.mark.gpu
def test_a_128x128_accumulator_spills_with_one_warp():
    ret, _, _, _ = launch_tile(block=128, num_warps=1)  # 16384 fp32 accumulators on 32 threads
    assert ret.n_spills > 0


@pytest.mark.gpu
def test_the_same_tile_with_eight_warps_does_not_spill():
    ret, _, _, _ = launch_tile(block=128, num_warps=8)  # 64 accumulators per thread
    assert ret.n_spills == 0


@pytest.mark.parametrize("num_warps", [1, 8])
def test_spilling_costs_speed_not_correctness(num_warps):
    block = 128 if BACKEND == "cuda" else 32  # tiny on the interpreter
    _, c, a, b = launch_tile(block=block, num_warps=num_warps)
    assert_matches_float64(c, a.double() @ b.double())
# --8<-- [end:test-spills]


# --8<-- [start:compile]
def compile_tile(block=64, num_warps=4):
    """Compile without launching: the route the advice suggests."""
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "constexpr",
                 "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
    constexprs = {"K": 64, "BLOCK_M": block, "BLOCK_N": block, "BLOCK_K": 32}
    source = triton.compiler.ASTSource(fn=matmul_tile, signature=signature, constexprs=constexprs)
    return triton.compile(source, options={"num_warps": num_warps})
# --8<-- [end:compile]


# --8<-- [start:test-compile]
@pytest.mark.gpu
def test_triton_compile_gives_shared_num_warps_and_num_stages():
    compiled = compile_tile()
    assert isinstance(compiled, triton.compiler.CompiledKernel)
    assert compiled.metadata.shared > 0
    assert (compiled.metadata.num_warps, compiled.metadata.num_stages) == (4, 3)


@pytest.mark.gpu
def test_register_count_appears_once_the_kernel_is_loaded():
    compiled = compile_tile()
    assert not hasattr(compiled, "n_regs")  # compiled, not yet loaded on the GPU
    compiled._init_handles()  # what the first launch does (a private method)
    assert 0 < compiled.n_regs <= 255 and compiled.n_spills >= 0
# --8<-- [end:test-compile]


def registers_of_an_interpreter_launch():
    ret, _, _, _ = launch_tile(block=16, num_warps=4)
    return ret.n_regs  # the interpreter's launch returned None


def registers_before_loading():
    return compile_tile().n_regs  # compiled by triton.compile, not yet loaded on the GPU


# --8<-- [start:timings]
def wall_clock_bench(fn, quantiles):
    """A benchmarker for the interpreter, which has no CUDA events."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return [float(torch.tensor(times).quantile(q)) for q in quantiles]


CONFIGS = [triton.Config({"BLOCK": 64}, num_warps=1), triton.Config({"BLOCK": 128}, num_warps=2)]


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 3.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def tuned_scale(x, out):
    """Autotune `scale` for x; return the Autotuner, which keeps its measurements."""
    bench = None if BACKEND == "cuda" else wall_clock_bench
    tuner = triton.autotune(configs=CONFIGS, key=["n"], do_bench=bench)(scale)
    n = x.numel()
    tuner[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return tuner
# --8<-- [end:timings]


# --8<-- [start:test-timings]
def test_the_autotuner_keeps_every_configs_timings():
    x, out = fresh_randn(1000), poisoned(1000)
    tuner = tuned_scale(x, out)
    timings = tuner.configs_timings  # {Config: [median, 20th, 80th percentile] in ms}
    assert set(timings) == set(CONFIGS)
    assert all(len(t) == 3 and all(v > 0 for v in t) for t in timings.values())
    assert tuner.best_config == min(timings, key=timings.get)
    assert_matches_float64(out, 3.0 * x.double())
# --8<-- [end:test-timings]


@gpu_evidence("compiled-kernel-resources")
def observe_compiled_kernel_resources():
    """What the CompiledKernel returned by a launch of matmul_tile reports, per tile and num_warps."""
    rows = []
    for block, num_warps in [(64, 4), (128, 1), (128, 4), (128, 8)]:
        ret, _, _, _ = launch_tile(block=block, num_warps=num_warps)
        rows.append([f"{block}×{block}", num_warps, ret.n_regs, ret.n_spills, ret.metadata.shared,
                     ret.metadata.num_warps, ret.metadata.num_stages])
    return table(
        [label("tile (fp32 accumulator)", "tile（fp32 累加器）"), label("num_warps asked", "传入的 num_warps"),
         label("n_regs", "n_regs"), label("n_spills", "n_spills"), label("metadata.shared (bytes)", "metadata.shared（字节）"),
         label("metadata.num_warps", "metadata.num_warps"), label("metadata.num_stages", "metadata.num_stages")],
        rows,
    )


@gpu_evidence("configs-timings")
def observe_configs_timings():
    """The Autotuner's configs_timings after tuning `scale` on the test's 1000 elements."""
    tuner = tuned_scale(fresh_randn(1000), poisoned(1000))
    rows = [[str(config), *timing, config == tuner.best_config] for config, timing in tuner.configs_timings.items()]
    return table(
        [label("Config", "Config"), label("[0]: median ms", "[0]：中位数 毫秒"), label("[1]: p20 ms", "[1]：p20 毫秒"),
         label("[2]: p80 ms", "[2]：p80 毫秒"), label("== best_config", "== best_config")],
        rows,
    )


def main():
    print(describe())
    ret, c, a, b = launch_tile(block=128 if BACKEND == "cuda" else 32, num_warps=1)
    print("a launch returned:", type(ret).__name__)
    if ret is not None:
        for num_warps in (1, 8):
            ret, _, _, _ = launch_tile(block=128, num_warps=num_warps)
            print(f"128x128 tile, num_warps={num_warps}: n_regs={ret.n_regs} n_spills={ret.n_spills} "
                  f"shared={ret.metadata.shared} num_stages={ret.metadata.num_stages}")
    tuner = tuned_scale(fresh_randn(1000), poisoned(1000))
    for config, timing in tuner.configs_timings.items():
        print(f"config {config}: median {timing[0]:.3f} ms")
    print("best config:", tuner.best_config)


if __name__ == "__main__":
    main()
