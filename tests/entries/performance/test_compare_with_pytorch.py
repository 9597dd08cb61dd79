"""TP011's claims, one test each: snippets/performance/compare_with_pytorch.py."""

import functools
import inspect

import pytest
import torch
import triton
import triton.testing

from snippets.performance import compare_with_pytorch as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

N = 2**28


@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_fused_kernel_matches_float64(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.scale_shift_triton(x, poisoned(n)), x.double() * 2 + 1)
    assert_matches_float64(entry.scale_shift_eager(x), x.double() * 2 + 1)


def test_do_bench_returns_the_mean_unless_asked():
    assert inspect.signature(triton.testing.do_bench).parameters["return_mode"].default == "mean"


@pytest.mark.interpreter
def test_do_bench_needs_a_gpu():
    """The timings are GPU-only: without a GPU driver do_bench raises (the message: TP012's page)."""
    if torch.cuda.is_available():
        pytest.skip("a CUDA driver is present")
    x = fresh_randn(1000)
    with pytest.raises(RuntimeError, match=r"0 active drivers \(\[\]\)"):
        triton.testing.do_bench(lambda: entry.scale_shift_eager(x), return_mode="median")


@functools.cache
def timings():
    return entry.timings(N)


@pytest.mark.gpu
def test_the_tensor_is_far_beyond_l2():
    assert N * 4 >= 10 * torch.cuda.get_device_properties(0).L2_cache_size


@pytest.mark.gpu
def test_fused_kernel_takes_less_than_three_quarters_of_eager_time():
    t = timings()
    assert t["triton"] < 0.75 * t["eager"]


@pytest.mark.gpu
def test_fused_kernel_reaches_80_percent_of_torch_copy():
    t = timings()
    assert entry.gbps(t["triton"], N) >= 0.8 * entry.gbps(t["copy"], N)


@pytest.mark.gpu
def test_eager_reaches_less_than_60_percent_of_torch_copy():
    t = timings()
    assert entry.gbps(t["eager"], N) < 0.6 * entry.gbps(t["copy"], N)
