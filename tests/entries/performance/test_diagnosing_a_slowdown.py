"""TP059's claims, one test each: snippets/performance/diagnosing_a_slowdown.py.

What the compiler makes of each kernel is read from cubins compiled for sm_90 without a GPU, all in
one fresh process (`in_fresh_process`), each in an empty kernel cache, cached for the module. The
GPU tests time rows of 65536 float32 (1 GiB per tensor).
"""

import functools
import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton

from snippets.performance import diagnosing_a_slowdown as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

CASES = [("rms_norm_row", N, N, 4) for N in (4096, 16384, 65536)] + [
    ("rms_norm_row", 65536, 65536, 16), ("rms_norm_chunked", 65536, 4096, 4)]
M_GPU, N_GPU = 4096, 65536  # 2**28 float32: 1 GiB in, 1 GiB out


def compiled_resources_fresh(*args):
    """entry.compiled_resources in a new, empty kernel cache (run by `_compiled`, in the fresh process),
    with the kernels as the compiler's objects, as in the process the reader's file starts for it."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    for name in ("rms_norm_row", "rms_norm_chunked"):
        kernel = getattr(entry, name)
        if not isinstance(kernel, triton.runtime.jit.JITFunction):  # interpreted here
            setattr(entry, name, triton.runtime.jit.JITFunction(kernel.fn))
    return entry.compiled_resources(*args)


@functools.cache
def _compiled():
    results = in_fresh_process(Path(__file__), "compiled_resources_fresh", CASES, compile_ready=True)
    reports = [result["value"] for result in results]
    return {(r["kernel"], r["N"], r["BLOCK"], r["num_warps"]): r for r in reports}


def compiled(kernel, N, BLOCK, num_warps=4):
    return _compiled()[(kernel, N, BLOCK, num_warps)]


def float64_rms_norm(x, w, eps=1e-6):
    x64 = x.double()
    return x64 * torch.rsqrt((x64 * x64).mean(dim=1, keepdim=True) + eps) * w.double()


# -- step 1: the spill, compiled for sm_90 without a GPU

def test_pitfall_whole_row_at_65536_spills():
    report = compiled("rms_norm_row", 65536, 65536)
    assert report["stack_bytes"] > 1024  # more than a kilobyte of local memory per thread


def test_the_same_kernel_does_not_spill_at_4096_or_16384():
    assert [compiled("rms_norm_row", N, N)["stack_bytes"] for N in (4096, 16384)] == [0, 0]
    assert compiled("rms_norm_row", 16384, 16384)["registers"] > 128  # no spill, but close to the 255 limit


# -- step 2: the tile

def test_fix_chunked_tile_does_not_spill():
    report = compiled("rms_norm_chunked", 65536, 4096)
    assert report["stack_bytes"] == 0
    assert report["registers"] <= 128


# -- step 3: num_warps

def test_more_warps_shrink_the_spill_but_do_not_remove_it():
    four, sixteen = compiled("rms_norm_row", 65536, 65536, 4), compiled("rms_norm_row", 65536, 65536, 16)
    assert 0 < sixteen["stack_bytes"] < four["stack_bytes"]


# -- results: a spill costs time, not correctness

@pytest.mark.parametrize("N, BLOCK", [(1, 16), (1000, 256), (3000, 512), (4096, 1024)])
def test_fix_matches_float64(N, BLOCK):
    x, w = fresh_randn(3, N), fresh_randn(N)
    y, _ = entry.rms_norm(x, w, BLOCK=BLOCK, y=poisoned(3, N))
    assert_matches_float64(y, float64_rms_norm(x, w))


@pytest.mark.parametrize("N", [1000, 4096])
def test_pitfall_is_right_only_slow(N):
    x, w = fresh_randn(3, N), fresh_randn(N)
    y, _ = entry.rms_norm_whole_row(x, w, y=poisoned(3, N))
    assert_matches_float64(y, float64_rms_norm(x, w))


# -- on the GPU: the launch reports what the offline compile said, and the fix is faster

@pytest.mark.gpu
def test_gpu_whole_row_at_65536_spills_and_n_spills_is_the_stack_frame_in_words():
    x, w = fresh_randn(4, N_GPU), fresh_randn(N_GPU)
    y, ret = entry.rms_norm_whole_row(x, w)
    assert ret.n_spills > 0
    launched = entry.resources(ret.asm["cubin"])  # what the offline route reads, on the cubin that ran
    assert (ret.n_regs, ret.n_spills * 4) == (launched["registers"], launched["stack_bytes"])
    assert_matches_float64(y, float64_rms_norm(x, w))


@pytest.mark.gpu
@pytest.mark.parametrize("BLOCK", [1024, 2048, 4096, 8192])
def test_gpu_chunked_does_not_spill(BLOCK):
    x, w = fresh_randn(4, N_GPU), fresh_randn(N_GPU)
    y, ret = entry.rms_norm(x, w, BLOCK=BLOCK)
    assert ret.n_spills == 0
    assert_matches_float64(y, float64_rms_norm(x, w))


@pytest.mark.gpu
def test_gpu_the_timed_tensors_are_far_beyond_l2():
    assert M_GPU * N_GPU * 4 >= 10 * torch.cuda.get_device_properties(0).L2_cache_size


@pytest.mark.gpu
def test_gpu_fix_is_faster_than_the_pitfall():
    x, w = fresh_randn(M_GPU, N_GPU), fresh_randn(N_GPU)
    y = torch.empty_like(x)
    pitfall = triton.testing.do_bench(lambda: entry.rms_norm_whole_row(x, w, y=y), return_mode="median")
    fix = triton.testing.do_bench(lambda: entry.rms_norm(x, w, y=y), return_mode="median")
    assert fix < pitfall
