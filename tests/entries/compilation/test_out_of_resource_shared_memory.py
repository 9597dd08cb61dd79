"""TP027's claims, one test each: snippets/compilation/out_of_resource_shared_memory.py.

The error itself needs a GPU: those tests are `gpu`-marked. The message format, the fix's
results and the interpreter's behaviour run everywhere.
"""

import re
import time

import pytest
import torch
import triton
import triton.language as tl
from triton.runtime.errors import OutOfResources

from snippets.compilation import out_of_resource_shared_memory as entry
from triton_faq.backend import BACKEND
from triton_faq.testing import assert_matches_float64, fresh_randn

MESSAGE = re.compile(r"out of resource: shared memory, Required: (\d+), Hardware limit: (\d+)\. "
                     r"Reducing block sizes or `num_stages` may help\.")


def fp16_inputs(M, N, K):
    return fresh_randn(M, K, dtype=torch.float16), fresh_randn(K, N, dtype=torch.float16)


def launch_too_big_config():
    """The reproducer of the page's `errors:` item: raises OutOfResources on a GPU."""
    a, b = fp16_inputs(512, 512, 512)
    return entry.run_matmul(a, b, **entry.TOO_BIG)


def test_message_is_built_from_required_limit_and_name():
    error = OutOfResources(300000, 200000, "shared memory")  # required, limit, name: bytes
    assert str(error) == ("out of resource: shared memory, Required: 300000, Hardware limit: 200000. "
                          "Reducing block sizes or `num_stages` may help.")
    assert (error.required, error.limit, error.name) == (300000, 200000, "shared memory")


def test_pipeline_buffers_of_the_three_configs():
    """The arithmetic the page and main() show: A+B tile bytes times num_stages."""
    assert [entry.tile_bytes(**c) * c["num_stages"] for c in (entry.TOO_BIG, entry.FEWER_STAGES, entry.SMALLER_K)] \
        == [4 * 98304, 98304, 4 * 24576]


@pytest.mark.gpu
def test_gpu_too_big_config_raises_out_of_resources():
    with pytest.raises(OutOfResources, match=MESSAGE):
        launch_too_big_config()


@pytest.mark.gpu
def test_gpu_error_carries_required_limit_and_name():
    with pytest.raises(OutOfResources) as caught:
        launch_too_big_config()
    error = caught.value
    limit = entry.max_shared_mem(torch.cuda.current_device())
    assert error.name == "shared memory"
    assert error.limit == limit  # the device's opt-in maximum per block
    assert error.required == entry.shared_bytes(entry.TOO_BIG) > limit  # metadata.shared of the compiled kernel
    assert MESSAGE.fullmatch(str(error)).groups() == (str(error.required), str(error.limit))


@pytest.mark.gpu
def test_gpu_the_error_comes_at_launch_not_at_compile():
    assert entry.shared_bytes(entry.TOO_BIG) > 0  # warmup compiles it and returns a CompiledKernel: no error yet
    with pytest.raises(OutOfResources):
        launch_too_big_config()  # the first launch loads it (_init_handles) and checks the limit


@pytest.mark.gpu
def test_gpu_max_shared_mem_is_what_the_error_reports():
    with pytest.raises(OutOfResources) as caught:
        launch_too_big_config()
    assert entry.max_shared_mem(torch.cuda.current_device()) == caught.value.limit


@pytest.mark.gpu
def test_gpu_a_single_step_loop_fits_where_a_longer_one_does_not():
    limit = entry.max_shared_mem(torch.cuda.current_device())
    assert entry.shared_bytes(entry.TOO_BIG, K=128) <= limit < entry.shared_bytes(entry.TOO_BIG, K=512)
    a, b = fp16_inputs(512, 512, 128)  # K == BLOCK_K: one step, nothing to pipeline
    c, _ = entry.run_matmul(a, b, **entry.TOO_BIG)
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)


@triton.jit
def matmul_runtime_k(a_ptr, b_ptr, c_ptr, M, N, K,  # K a plain argument, as in the usual matmul
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.gpu
def test_gpu_with_a_runtime_k_the_config_fails_for_k_128_too():
    # one compiled kernel serves every K, with the shared memory of a pipelined loop
    config = {k: v for k, v in entry.TOO_BIG.items() if k != "num_stages"}
    for K in (128, 512):
        a, b = fp16_inputs(512, 512, K)
        c = torch.full((512, 512), float("nan"), device=a.device)
        grid = (triton.cdiv(512, config["BLOCK_M"]), triton.cdiv(512, config["BLOCK_N"]))
        with pytest.raises(OutOfResources, match=MESSAGE):
            matmul_runtime_k[grid](a, b, c, 512, 512, K, **config, num_stages=entry.TOO_BIG["num_stages"],
                                   num_warps=8)
        assert torch.isnan(c).all()  # nothing ran


@pytest.mark.gpu
def test_gpu_shared_memory_grows_with_num_stages():
    used = [entry.shared_bytes(dict(entry.TOO_BIG, num_stages=s)) for s in (1, 2, 3, 4)]
    assert used == sorted(used) and used[0] < used[-1]


@pytest.mark.gpu
def test_gpu_each_extra_pipelined_stage_adds_at_least_one_a_and_b_tile():
    config = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64)
    used = [entry.shared_bytes(dict(config, num_stages=s)) for s in (2, 3, 4)]
    assert all(later - earlier >= entry.tile_bytes(**config) for earlier, later in zip(used, used[1:]))


@pytest.mark.gpu
def test_gpu_shared_memory_grows_with_block_k():
    used = [entry.shared_bytes(dict(entry.TOO_BIG, BLOCK_K=bk, num_stages=3)) for bk in (32, 64, 128)]
    assert used[0] < used[1] < used[2]


@pytest.mark.parametrize("config", [entry.FEWER_STAGES, entry.SMALLER_K], ids=["fewer-stages", "smaller-block-k"])
def test_fix_config_fits_and_matches_float64(config):
    a, b = fp16_inputs(512, 256, 256) if BACKEND == "cuda" else fp16_inputs(256, 128, 128)
    c, _ = entry.run_matmul(a, b, **config)
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)  # fp16 inputs, fp32 accumulation


@pytest.mark.gpu
@pytest.mark.parametrize("config", [entry.FEWER_STAGES, entry.SMALLER_K], ids=["fewer-stages", "smaller-block-k"])
def test_gpu_fix_config_is_under_the_limit(config):
    limit = entry.max_shared_mem(torch.cuda.current_device())
    _, ret = entry.run_matmul(*fp16_inputs(512, 256, 256), **config)
    assert 0 < ret.metadata.shared <= limit


@pytest.mark.gpu
def test_gpu_autotuner_times_the_too_big_config_as_inf_and_never_picks_it(monkeypatch, capsys):
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    a, b = fp16_inputs(512, 512, 512)
    c, tuner = entry.tuned_matmul(a, b)
    assert capsys.readouterr().out == ""  # silently
    assert tuner.configs_timings[entry.CONFIGS[0]] == [float("inf")] * 3
    assert tuner.best_config != entry.CONFIGS[0]
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)


@pytest.mark.gpu
def test_gpu_print_autotuning_shows_the_error_of_the_skipped_config(monkeypatch, capsys):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    entry.tuned_matmul(*fp16_inputs(512, 512, 256))  # a new key: tunes again
    printed = capsys.readouterr().out
    assert re.search(r"Autotuning failed with " + MESSAGE.pattern, printed)


@pytest.mark.gpu
def test_gpu_autotuner_raises_when_every_config_is_too_big():
    with pytest.raises(OutOfResources, match=MESSAGE):  # all timed inf; the "best" is launched anyway
        entry.tuned_matmul(*fp16_inputs(512, 512, 512), configs=[
            entry.CONFIGS[0],
            triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128}, num_stages=5, num_warps=8)])


@pytest.mark.interpreter
def test_interpreter_runs_the_too_big_config():
    a, b = fp16_inputs(256, 128, 128)  # one program, one step of K: the block shape is the config
    start = time.perf_counter()
    c, ret = entry.run_matmul(a, b, **entry.TOO_BIG)  # no shared memory to run out of
    assert time.perf_counter() - start < 5
    assert ret is None
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)
