"""TP020's claims, one test each: snippets/autotuning/registers_and_spills.py."""

import pytest
import torch
import triton

from snippets.autotuning import registers_and_spills as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# -- reproducers of the messages in the page's `errors:` front matter

def registers_of_an_interpreter_launch():
    ret, _, _, _ = entry.launch_tile(block=16, num_warps=4)
    return ret.n_regs  # the interpreter's launch returned None


def registers_before_loading():
    return entry.compile_tile().n_regs  # compiled by triton.compile, not yet loaded on the GPU


# -- from a launch

@pytest.mark.gpu
def test_cuda_launch_returns_registers_spills_and_shared_memory():
    ret, _, _, _ = entry.launch_tile(block=64, num_warps=4)
    assert isinstance(ret, triton.compiler.CompiledKernel)
    assert isinstance(ret.n_regs, int) and 0 < ret.n_regs <= 255  # per thread
    assert isinstance(ret.n_spills, int) and ret.n_spills >= 0
    max_shared = triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"]
    assert isinstance(ret.metadata.shared, int) and 0 < ret.metadata.shared <= max_shared  # bytes
    assert (ret.metadata.num_warps, ret.metadata.num_stages) == (4, 3)  # 3: the default


@pytest.mark.interpreter
def test_interpreter_launch_and_warmup_return_none():
    ret, _, _, _ = entry.launch_tile(block=16, num_warps=4)
    assert ret is None
    a = torch.empty(16, 32, dtype=torch.float16)
    assert entry.matmul_tile.warmup(a, a, a, K=32, BLOCK_M=16, BLOCK_N=16, BLOCK_K=32, grid=(1,)) is None


# -- spills

@pytest.mark.gpu
def test_a_128x128_accumulator_spills_with_one_warp():
    ret, _, _, _ = entry.launch_tile(block=128, num_warps=1)  # 16384 fp32 accumulators on 32 threads
    assert ret.n_spills > 0


@pytest.mark.gpu
def test_the_same_tile_with_eight_warps_does_not_spill():
    ret, _, _, _ = entry.launch_tile(block=128, num_warps=8)  # 64 accumulators per thread
    assert ret.n_spills == 0


@pytest.mark.parametrize("num_warps", [1, 8])
def test_spilling_costs_speed_not_correctness(num_warps):
    block = 128 if entry.DEVICE == "cuda" else 32  # tiny on the interpreter
    _, c, a, b = entry.launch_tile(block=block, num_warps=num_warps)
    assert_matches_float64(c, a.double() @ b.double())


# -- without launching: triton.compile

@pytest.mark.gpu
def test_triton_compile_gives_shared_num_warps_and_num_stages():
    compiled = entry.compile_tile()
    assert isinstance(compiled, triton.compiler.CompiledKernel)
    assert compiled.metadata.shared > 0
    assert (compiled.metadata.num_warps, compiled.metadata.num_stages) == (4, 3)


@pytest.mark.gpu
def test_register_count_appears_once_the_kernel_is_loaded():
    compiled = entry.compile_tile()
    assert not hasattr(compiled, "n_regs")  # compiled, not yet loaded on the GPU
    compiled._init_handles()  # what the first launch does (a private method)
    assert 0 < compiled.n_regs <= 255 and compiled.n_spills >= 0


# -- per-config timings

def test_the_autotuner_keeps_every_configs_timings():
    x, out = fresh_randn(1000), poisoned(1000)
    tuner = entry.tuned_scale(x, out)
    timings = tuner.configs_timings  # {Config: [median, 20th, 80th percentile] in ms}
    assert set(timings) == set(entry.CONFIGS)
    assert all(len(t) == 3 and all(v > 0 for v in t) for t in timings.values())
    assert tuner.best_config == min(timings, key=timings.get)
    assert_matches_float64(out, 3.0 * x.double())
