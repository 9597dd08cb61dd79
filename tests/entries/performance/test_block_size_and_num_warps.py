"""TP010's claims, one test each: snippets/performance/block_size_and_num_warps.py."""

import functools

import pytest
import torch
import triton
import triton.language as tl
import triton.testing

from snippets.performance import block_size_and_num_warps as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves


@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_autotuned_kernel_matches_float64(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.scale_shift(x), x.double() * 2 + 1)
    assert entry.scale_shift_tuned.best_config in entry.CONFIGS


@pytest.mark.parametrize("block, num_warps", [(256, 16), (1024, 4)])
def test_a_fixed_config_is_right_too(block, num_warps):
    x = fresh_randn(5000)
    assert_matches_float64(entry.scale_shift_fixed(x, block, num_warps, poisoned(5000)), x.double() * 2 + 1)


def test_autotune_benchmarks_again_for_every_new_n():
    for n in (1234, 1235):
        entry.scale_shift(fresh_randn(n))
    keys = {key[0] for key in entry.scale_shift_tuned.cache}  # key: (n, dtype of x, dtype of y)
    assert {1234, 1235} <= keys


@pytest.mark.interpreter
def test_autotune_without_a_gpu_and_without_do_bench_fails():
    """Why the fix passes wall_clock_bench on the interpreter (the message: TP012's page)."""
    if torch.cuda.is_available():
        pytest.skip("a CUDA driver is present, so Triton's GPU timer works")
    no_timer = triton.autotune(configs=entry.CONFIGS, key=["n"])(entry.scale_shift_kernel)
    x, y = fresh_randn(1000), poisoned(1000)
    with pytest.raises(RuntimeError, match=r"0 active drivers \(\[\]\)"):
        no_timer[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, y, 1000)  # benchmarks the configs


def test_cuda_default_num_warps_is_4_and_num_stages_is_3():
    from triton.backends.nvidia.compiler import CUDAOptions

    options = CUDAOptions()
    assert (options.num_warps, options.num_stages) == (4, 3)


@pytest.mark.gpu
def test_a_launch_without_num_warps_compiles_with_4_warps():
    x = fresh_randn(4096)
    compiled = entry.scale_shift_kernel[(4,)](x, torch.empty_like(x), 4096, BLOCK=1024)
    assert compiled.metadata.num_warps == 4


# A tile that lives in registers: the spill claim itself is judged on TP020's page.
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


@pytest.mark.gpu
def test_a_128x128_accumulator_with_one_warp_spills_registers():
    compiled, a, b, c = matmul_tile_launch(num_warps=1)
    assert compiled.n_spills > 0
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)  # slow, not wrong


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", [4, 8])
def test_the_same_tile_with_four_or_eight_warps_does_not_spill(num_warps):
    compiled, a, b, c = matmul_tile_launch(num_warps=num_warps)
    assert compiled.n_spills == 0
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)


N = 2**28  # float32: 1 GiB in, 1 GiB out
SWEEP = [(64, 1), (256, 16), (1024, 32), (1024, 4), (2048, 8), (4096, 4), (4096, 8), (8192, 16)]  # (BLOCK, num_warps)


@functools.cache
def sweep():
    """Median GB/s of each (BLOCK, num_warps), the autotuned kernel and torch's copy_ (reference)."""
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)

    def gbps(fn):
        return 2 * N * 4 / (triton.testing.do_bench(fn, return_mode="median") * 1e-3) / 1e9

    results = {"copy": gbps(lambda: y.copy_(x))}
    for block, warps in SWEEP:
        results[(block, warps)] = gbps(lambda: entry.scale_shift_fixed(x, block, warps, y))
    results["autotuned"] = gbps(lambda: entry.scale_shift(x, y))
    return results


def best_in_sweep():
    return max(sweep()[config] for config in SWEEP)


@pytest.mark.gpu
def test_the_tensor_is_far_beyond_l2():
    assert N * 4 >= 10 * torch.cuda.get_device_properties(0).L2_cache_size


@pytest.mark.gpu
def test_best_config_reaches_80_percent_of_torch_copy():
    assert best_in_sweep() >= 0.8 * sweep()["copy"]


@pytest.mark.gpu
def test_autotuned_reaches_90_percent_of_the_best_in_the_sweep():
    assert sweep()["autotuned"] >= 0.9 * best_in_sweep()


@pytest.mark.gpu
def test_tiny_block_one_warp_is_below_half_of_the_best():
    assert sweep()[(64, 1)] < 0.5 * best_in_sweep()


@pytest.mark.gpu
def test_16_warps_on_a_block_of_256_is_below_half_of_the_best():
    assert sweep()[(256, 16)] < 0.5 * best_in_sweep()


@pytest.mark.gpu
def test_32_warps_on_a_block_of_1024_is_below_75_percent_of_the_best():
    assert sweep()[(1024, 32)] < 0.75 * best_in_sweep()  # H200 and H100 both fall below it
