"""TP027: `OutOfResources: out of resource: shared memory, Required: N, Hardware limit: M`.

Run it: ``python snippets/compilation/out_of_resource_shared_memory.py``
(on a machine without a GPU it runs through Triton's interpreter, which never raises it).
"""

import re
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

from triton.runtime.errors import OutOfResources


# --8<-- [start:kernel]
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr,  # constexpr: a plain int for the interpreter's loop
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A @ B for row-major fp16 A (M x K) and B (K x N), fp32 accumulator and output
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):  # num_stages: how many A and B tiles are in flight at once
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run_matmul(a, b, BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps=8):
    """Launch `matmul` with one config; return the output and what the launch returned."""
    (M, K), (_, N) = a.shape, b.shape
    c = poisoned(M, N)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    ret = matmul[grid](a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                       num_stages=num_stages, num_warps=num_warps)
    return c, ret
# --8<-- [end:kernel]


def fp16_inputs(M, N, K):
    return fresh_randn(M, K, dtype=torch.float16), fresh_randn(K, N, dtype=torch.float16)


# --8<-- [start:pitfall]
TOO_BIG = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=4)  # A+B tiles: 96 KiB per stage


def launch_too_big_config():
    a, b = fp16_inputs(512, 512, 512)
    return run_matmul(a, b, **TOO_BIG)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
FEWER_STAGES = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=1)  # one A and one B tile
SMALLER_K = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, num_stages=4)      # 24 KiB per stage
# --8<-- [end:fix]


def tile_bytes(BLOCK_M, BLOCK_N, BLOCK_K, **_):
    """Bytes of one fp16 A tile plus one fp16 B tile: what each pipeline stage buffers."""
    return (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2


def shared_bytes(config, M=512, N=512, K=512):
    """metadata.shared of a config, compiled without launching (warmup never checks the limit)."""
    a, b = fp16_inputs(M, N, K)
    c = torch.empty(M, N, device=DEVICE)
    compiled = matmul.warmup(a, b, c, M, N, K, num_warps=8, grid=(1,), **config)
    return compiled.metadata.shared


# --8<-- [start:test-pitfall]
MESSAGE = re.compile(r"out of resource: shared memory, Required: (\d+), Hardware limit: (\d+)\. "
                     r"Reducing block sizes or `num_stages` may help\.")


@pytest.mark.gpu
def test_gpu_too_big_config_raises_out_of_resources():
    with pytest.raises(OutOfResources, match=MESSAGE):
        launch_too_big_config()


@pytest.mark.gpu
def test_gpu_error_carries_required_limit_and_name():
    with pytest.raises(OutOfResources) as caught:
        launch_too_big_config()
    error = caught.value
    limit = triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"]
    assert error.name == "shared memory"
    assert error.limit == limit  # the device's opt-in maximum per block
    assert error.required == shared_bytes(TOO_BIG) > limit  # metadata.shared of the compiled kernel
    assert MESSAGE.fullmatch(str(error)).groups() == (str(error.required), str(error.limit))


@pytest.mark.gpu
def test_gpu_the_error_comes_at_launch_not_at_compile():
    assert shared_bytes(TOO_BIG) > 0  # warmup compiles it and returns a CompiledKernel: no error yet
    with pytest.raises(OutOfResources):
        launch_too_big_config()  # the first launch loads it (_init_handles) and checks the limit
# --8<-- [end:test-pitfall]


# --8<-- [start:test-message]
def test_message_is_built_from_required_limit_and_name():
    error = OutOfResources(300000, 200000, "shared memory")  # required, limit, name: bytes
    assert str(error) == ("out of resource: shared memory, Required: 300000, Hardware limit: 200000. "
                          "Reducing block sizes or `num_stages` may help.")
    assert (error.required, error.limit, error.name) == (300000, 200000, "shared memory")
# --8<-- [end:test-message]


# --8<-- [start:test-grows]
@pytest.mark.gpu
def test_gpu_shared_memory_grows_with_num_stages():
    used = [shared_bytes(dict(TOO_BIG, num_stages=s)) for s in (1, 2, 3, 4)]
    assert used == sorted(used) and used[0] < used[-1]


@pytest.mark.gpu
def test_gpu_each_extra_pipelined_stage_adds_at_least_one_a_and_b_tile():
    config = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64)
    used = [shared_bytes(dict(config, num_stages=s)) for s in (2, 3, 4)]
    assert all(later - earlier >= tile_bytes(**config) for earlier, later in zip(used, used[1:]))


@pytest.mark.gpu
def test_gpu_shared_memory_grows_with_block_k():
    used = [shared_bytes(dict(TOO_BIG, BLOCK_K=bk, num_stages=3)) for bk in (32, 64, 128)]
    assert used[0] < used[1] < used[2]
# --8<-- [end:test-grows]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("config", [FEWER_STAGES, SMALLER_K], ids=["fewer-stages", "smaller-block-k"])
def test_fix_config_fits_and_matches_float64(config):
    a, b = fp16_inputs(512, 256, 256) if BACKEND == "cuda" else fp16_inputs(256, 128, 128)
    c, _ = run_matmul(a, b, **config)
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)  # fp16 inputs, fp32 accumulation


@pytest.mark.gpu
@pytest.mark.parametrize("config", [FEWER_STAGES, SMALLER_K], ids=["fewer-stages", "smaller-block-k"])
def test_gpu_fix_config_is_under_the_limit(config):
    limit = triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"]
    _, ret = run_matmul(*fp16_inputs(512, 256, 256), **config)
    assert 0 < ret.metadata.shared <= limit
# --8<-- [end:test-fix]


# --8<-- [start:autotune]
CONFIGS = [
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128}, num_stages=4, num_warps=8),  # too big
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=2, num_warps=4),
]


def tuned_matmul(a, b, configs=CONFIGS):
    """Autotune `matmul` over `configs` for a @ b; return the output and the Autotuner."""
    (M, K), (_, N) = a.shape, b.shape
    tuner = triton.autotune(configs=configs, key=["M", "N", "K"])(matmul)
    c = poisoned(M, N)
    tuner[lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))](a, b, c, M, N, K)
    return c, tuner
# --8<-- [end:autotune]


# --8<-- [start:test-autotune]
@pytest.mark.gpu
def test_gpu_autotuner_times_the_too_big_config_as_inf_and_never_picks_it(monkeypatch, capsys):
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    a, b = fp16_inputs(512, 512, 512)
    c, tuner = tuned_matmul(a, b)
    assert capsys.readouterr().out == ""  # silently
    assert tuner.configs_timings[CONFIGS[0]] == [float("inf")] * 3
    assert tuner.best_config != CONFIGS[0]
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)


@pytest.mark.gpu
def test_gpu_print_autotuning_shows_the_error_of_the_skipped_config(monkeypatch, capsys):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    tuned_matmul(*fp16_inputs(512, 512, 256))  # a new key: tunes again
    printed = capsys.readouterr().out
    assert re.search(r"Autotuning failed with " + MESSAGE.pattern, printed)


@pytest.mark.gpu
def test_gpu_autotuner_raises_when_every_config_is_too_big():
    with pytest.raises(OutOfResources, match=MESSAGE):  # all timed inf; the "best" is launched anyway
        tuned_matmul(*fp16_inputs(512, 512, 512), configs=[
            CONFIGS[0], triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128}, num_stages=5, num_warps=8)])
# --8<-- [end:test-autotune]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
def test_interpreter_runs_the_too_big_config():
    a, b = fp16_inputs(256, 128, 128)  # one program, one step of K: the block shape is the config
    start = time.perf_counter()
    c, ret = run_matmul(a, b, **TOO_BIG)  # no shared memory, num_stages is ignored
    assert time.perf_counter() - start < 5
    assert ret is None
    assert_matches_float64(c, a.double() @ b.double(), rtol=1e-3)
# --8<-- [end:test-interpreter]


# --8<-- [start:limit]
def max_shared_mem(device=0):
    """The per-block shared memory limit Triton checks against (bytes; the opt-in maximum)."""
    return triton.runtime.driver.active.utils.get_device_properties(device)["max_shared_mem"]
# --8<-- [end:limit]


@pytest.mark.gpu
def test_gpu_max_shared_mem_is_what_the_error_reports():
    with pytest.raises(OutOfResources) as caught:
        launch_too_big_config()
    assert max_shared_mem(torch.cuda.current_device()) == caught.value.limit


TABLE_CONFIGS = [
    dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_stages=3),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=2),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=3),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=4),
    SMALLER_K,
    FEWER_STAGES,
    dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=2),
    dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=3),
    TOO_BIG,
]


@gpu_evidence("shared-memory-per-config")
def observe_shared_memory_per_config():
    """Shared memory each config needs (fp16 matmul, num_warps=8), and whether it launches."""
    limit = max_shared_mem(torch.cuda.current_device())
    a, b = fp16_inputs(512, 512, 512)
    rows = []
    for config in TABLE_CONFIGS:
        try:
            _, ret = run_matmul(a, b, **config)
            used, outcome = ret.metadata.shared, "ran"
        except OutOfResources as error:  # the observation: recorded, not swallowed
            used, outcome = error.required, str(error)
        rows.append([config["BLOCK_M"], config["BLOCK_N"], config["BLOCK_K"], config["num_stages"],
                     tile_bytes(**config), used, limit, used <= limit, outcome])
    return table(
        [label("BLOCK_M", "BLOCK_M"), label("BLOCK_N", "BLOCK_N"), label("BLOCK_K", "BLOCK_K"),
         label("num_stages", "num_stages"), label("A+B tiles, bytes per stage", "A+B tile，每个 stage 的字节数"),
         label("shared bytes (metadata.shared or error.required)", "共享内存字节数（metadata.shared 或 error.required）"),
         label("max_shared_mem", "max_shared_mem"), label("fits", "放得下"),
         label("launch: ran, or the error text", "启动结果：ran，或错误信息原文")],
        rows, max_shared_mem=limit,
    )


def main():
    print(describe())
    a, b = fp16_inputs(256, 128, 128)
    if BACKEND == "cuda":
        print("max_shared_mem:", max_shared_mem(torch.cuda.current_device()))
        try:
            launch_too_big_config()
        except OutOfResources as error:
            print(f"{TOO_BIG}: {type(error).__name__}: {error}")
        for config in (FEWER_STAGES, SMALLER_K):
            c, ret = run_matmul(a, b, **config)
            print(f"{config}: shared={ret.metadata.shared}, max |c - ref| = "
                  f"{(c.double() - a.double() @ b.double()).abs().max().item():.2e}")
    else:
        c, ret = run_matmul(a, b, **TOO_BIG)
        print(f"interpreter, {TOO_BIG}: launch returned {ret}, max |c - ref| = "
              f"{(c.double() - a.double() @ b.double()).abs().max().item():.2e} (no shared memory to run out of)")


if __name__ == "__main__":
    main()
