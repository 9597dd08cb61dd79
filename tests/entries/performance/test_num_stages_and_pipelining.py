"""TP058's claims, one test each: snippets/performance/num_stages_and_pipelining.py.

What the compiler makes of num_stages is read from kernels compiled for sm_90 without a GPU, all
in one fresh process (`in_fresh_process`), each in an empty kernel cache, cached for the module.
"""

import functools
import os
import tempfile
from pathlib import Path

import pytest
import torch

from snippets.performance import num_stages_and_pipelining as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process

CASES = ([("matmul", stages) for stages in (1, 2, 3, 4, 5)] + [("matmul", 3, 4072)]
         + [("scale_shift", stages) for stages in (1, 3, 5)])
TILE_BYTES = 128 * 64 * 2  # one 128 x 64 fp16 tile of A, or one 64 x 128 tile of B


def compile_report_fresh(*args):
    """entry.compile_report in a new, empty kernel cache (run by `_compiled`, in the fresh process)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    return entry.compile_report(*args)


@functools.cache
def _compiled():
    results = in_fresh_process(Path(__file__), "compile_report_fresh", CASES, compile_ready=True)
    reports = [result["value"] for result in results]
    return {(r["kernel"], r["num_stages"], r["K"]): r for r in reports}


def compiled(kernel, num_stages, K=4096):
    return _compiled()[(kernel, num_stages, K)]


# -- when it helps: a loop over K with a tl.dot

def test_shared_memory_is_one_a_and_b_tile_per_stage():
    shared = [compiled("matmul", stages)["shared"] for stages in (1, 2, 3, 4, 5)]
    assert shared == [stages * 2 * TILE_BYTES for stages in (1, 2, 3, 4, 5)]  # 32768 bytes per stage


def test_one_stage_has_no_async_copies_and_more_stages_do():
    copies = [compiled("matmul", stages)["cp_async"] for stages in (1, 2, 3, 4, 5)]
    assert copies == [0, 16, 24, 32, 40]  # one stage: plain loads; more: cp.async into the stage buffers


def test_k_not_a_multiple_of_16_leaves_a_out_of_the_pipeline():
    """K = 4072: the row stride of A is not divisible by 16, so A's loads are not pipelined (B's still are)."""
    assert compiled("matmul", 3)["shared"] == 3 * 2 * TILE_BYTES
    assert compiled("matmul", 3, K=4072)["shared"] == 3 * TILE_BYTES + 1 * TILE_BYTES  # B: 3 buffers, A: 1


@pytest.mark.parametrize("num_stages", [1, 3])
def test_matmul_matches_float64(num_stages):
    """Any num_stages computes the same product (fp16 inputs and output, fp32 accumulator)."""
    block = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64} if entry.DEVICE == "cuda" else \
        {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}  # small tiles on the interpreter
    a, b = fresh_randn(96, 80, dtype=torch.float16), fresh_randn(80, 72, dtype=torch.float16)
    c, _ = entry.matmul(a, b, num_stages=num_stages, **block)
    assert_matches_float64(c, a.double() @ b.double(), rtol=2e-3)  # the fp16 output's rounding


# -- when it cannot: no loop

def test_elementwise_kernel_compiles_to_the_same_ptx_for_every_num_stages():
    reports = [compiled("scale_shift", stages) for stages in (1, 3, 5)]
    assert len({r["ptx_sha256"] for r in reports}) == 1
    assert [r["shared"] for r in reports] == [0, 0, 0]


@pytest.mark.parametrize("num_stages", [1, 4])
def test_elementwise_matches_float64(num_stages):
    x = fresh_randn(5000)
    y, _ = entry.scale_shift_launch(x, num_stages)
    assert_matches_float64(y, 2 * x.double() + 1)


# -- on the GPU: a launch reports what the offline compile said

@pytest.mark.gpu
def test_gpu_launch_reports_one_a_and_b_tile_per_stage():
    a, b = fresh_randn(256, 512, dtype=torch.float16), fresh_randn(512, 256, dtype=torch.float16)
    for num_stages in (1, 2, 3, 4):
        c, ret = entry.matmul(a, b, num_stages=num_stages)
        assert ret.metadata.num_stages == num_stages
        assert ret.metadata.shared == num_stages * 2 * TILE_BYTES
        assert_matches_float64(c, a.double() @ b.double(), rtol=2e-3)


@pytest.mark.gpu
def test_gpu_elementwise_launches_compile_the_same_ptx():
    x = fresh_randn(5000)
    ptx = {entry.scale_shift_launch(x, num_stages)[1].asm["ptx"] for num_stages in (1, 2, 3, 4, 5)}
    assert len(ptx) == 1

