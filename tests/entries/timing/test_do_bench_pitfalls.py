"""TP031's claims, one test each: snippets/timing/do_bench_pitfalls.py.

The claims about do_bench's own Python (statistics, call counts, flushes, parameters) run on the
reader's fake clock on any backend; the claims about real kernels are `gpu` tests.
"""

import functools
import inspect
import re
import statistics

import pytest
import torch
import triton
import triton.testing

from snippets.timing import do_bench_pitfalls as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

fake_gpu, FakeKernel = entry.fake_gpu, entry.FakeKernel


def test_pitfall_the_default_is_the_mean_one_hiccup_doubles_it():
    with fake_gpu() as gpu:
        assert entry.time_it_pitfall(entry.hiccup_kernel(gpu)) == 2.0  # (99 * 1 + 101) / 100


def test_fix_the_median_ignores_the_hiccup():
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(entry.hiccup_kernel(gpu), return_mode="median") == 1.0


def test_fix_quantiles_ignore_the_hiccup():
    with fake_gpu() as gpu:
        assert entry.time_it(entry.hiccup_kernel(gpu)) == [1.0, 1.0, 1.0]


def test_pitfall_quantiles_override_return_mode():
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(entry.hiccup_kernel(gpu), return_mode="max") == 101.0
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(entry.hiccup_kernel(gpu), quantiles=[0.5], return_mode="max") == 1.0


def test_pitfall_one_quantile_returns_a_float_not_a_list():
    with fake_gpu() as gpu:
        assert type(triton.testing.do_bench(entry.hiccup_kernel(gpu), quantiles=[0.5])) is float


def do_bench_with_percent_quantiles():
    with fake_gpu() as gpu:
        return triton.testing.do_bench(entry.hiccup_kernel(gpu), quantiles=[20, 50, 80])  # fractions, not percent


def test_pitfall_quantiles_are_fractions_not_percent():
    with pytest.raises(ValueError, match=re.escape("Quantiles must be in the range [0, 1]")):
        do_bench_with_percent_quantiles()


def test_pitfall_an_unknown_return_mode_fails_a_bare_assert():
    with pytest.raises(AssertionError) as raised:
        triton.testing.do_bench(lambda: None, return_mode="p50")
    assert str(raised.value) == ""  # no message saying what is allowed


@pytest.mark.parametrize("kernel_ms, timed_runs, calls", [(0.5, 200, 1 + 5 + 50 + 200), (2.0, 50, 1 + 5 + 12 + 50)])
def test_warmup_and_rep_are_milliseconds_not_counts(kernel_ms, timed_runs, calls):
    with fake_gpu() as gpu:
        kernel = FakeKernel(gpu, ms=kernel_ms)
        times = triton.testing.do_bench(kernel, warmup=25, rep=100, return_mode="all")
    assert len(times) == timed_runs  # int(rep / estimate), not rep
    assert kernel.calls == calls  # 1 first call + 5 to estimate + int(warmup / estimate) + timed runs


def test_every_timed_run_follows_a_flush_but_the_warmup_does_not():
    with fake_gpu() as gpu:
        kernel = FakeKernel(gpu, ms=1.0, cold_ms=1.0)  # 2 ms on a cold cache, 1 ms on a hot one
        times = triton.testing.do_bench(kernel, return_mode="all")
    # first call, 5 estimate calls (each after a flush), 12 warm-up calls, 50 timed runs
    assert kernel.caches == ["cold"] * 6 + ["hot"] * 12 + ["cold"] * 50
    assert gpu.flushes == 5 + 50
    assert set(times) == {2.0}  # every timed run is a cold-cache run


def do_bench_with_fast_flush():
    # written for old Triton, where fast_flush=True zeroed the flush buffer as int32 rather than int8
    return triton.testing.do_bench(lambda: None, fast_flush=True)


def test_pitfall_fast_flush_is_a_type_error():
    with pytest.raises(TypeError, match=re.escape("do_bench() got an unexpected keyword argument 'fast_flush'")):
        do_bench_with_fast_flush()


def test_the_parameters_of_do_bench():
    signature = inspect.signature(triton.testing.do_bench)
    assert list(signature.parameters) == ["fn", "warmup", "rep", "grad_to_none", "quantiles", "return_mode"]
    assert (signature.parameters["warmup"].default, signature.parameters["rep"].default) == (25, 100)


def test_do_bench_cudagraph_has_no_warmup_and_a_shorter_rep():
    signature = inspect.signature(triton.testing.do_bench_cudagraph)
    assert list(signature.parameters) == ["fn", "rep", "grad_to_none", "quantiles", "return_mode"]
    assert signature.parameters["rep"].default == 20
    assert signature.parameters["return_mode"].default == "mean"


@pytest.mark.parametrize("n", [1, 1000, 3000])
def test_fix_the_timed_kernel_matches_float64(n):
    x, y, out = fresh_randn(n), fresh_randn(n), poisoned(n)
    entry.add_launcher(x, y, out)()
    assert_matches_float64(out, x.double() + y.double())


cached_timings = functools.cache(entry.timings)
FITS_IN_L2 = 2**20  # 4 MiB per tensor: x, y and out are 12 MiB together
FAR_BEYOND_L2 = 2**28  # 1 GiB per tensor


def bytes_moved(n):
    return 3 * 4 * n  # read x and y, write out


@pytest.mark.gpu
def test_gpu_the_small_size_fits_in_l2_and_the_large_does_not():
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    assert bytes_moved(FITS_IN_L2) < l2 / 2
    assert bytes_moved(FAR_BEYOND_L2) > 10 * l2


@pytest.mark.gpu
def test_gpu_the_flush_buffer_is_256_mib_and_larger_than_l2():
    buffer = triton.runtime.driver.active.get_empty_cache_for_benchmark()
    assert buffer.numel() * buffer.element_size() == 256 * 2**20
    assert buffer.numel() * buffer.element_size() > torch.cuda.get_device_properties(0).L2_cache_size


@pytest.mark.gpu
def test_gpu_flushed_do_bench_is_slower_than_hot_when_the_data_fits_in_l2():
    t = cached_timings(FITS_IN_L2)
    assert t["do_bench"] > t["hot"], t


@pytest.mark.gpu
def test_gpu_do_bench_cudagraph_is_faster_than_flushed_do_bench_for_a_small_kernel():
    t = cached_timings(FITS_IN_L2)
    assert t["cudagraph"] < t["do_bench"], t


@pytest.mark.gpu
def test_gpu_a_back_to_back_loop_of_small_launches_is_slower_than_do_bench():
    t = cached_timings(FITS_IN_L2)
    assert t["loop"] > t["do_bench"], t


@pytest.mark.gpu
def test_gpu_flushed_hot_and_cudagraph_agree_within_5_percent_far_beyond_l2():
    t = cached_timings(FAR_BEYOND_L2)
    assert max(t["do_bench"], t["hot"], t["cudagraph"]) <= 1.05 * min(t["do_bench"], t["hot"], t["cudagraph"]), t


def small_launch():
    x = torch.randn(FITS_IN_L2, device="cuda")
    return entry.add_launcher(x, x, torch.empty_like(x))


def counting(fn):
    def counted():
        counted.calls += 1
        fn()

    counted.calls = 0
    return counted


@pytest.mark.gpu
def test_gpu_do_bench_calls_fn_once_five_times_warmup_then_the_timed_runs():
    fn = counting(small_launch())
    times = triton.testing.do_bench(fn, warmup=0, return_mode="all")  # warmup=0 still warms once
    assert fn.calls == 1 + 5 + 1 + len(times)


@pytest.mark.gpu
def test_gpu_rep_is_milliseconds_a_small_kernel_gets_far_more_than_rep_runs():
    times = triton.testing.do_bench(small_launch(), rep=100, return_mode="all")
    assert len(times) > 300


@pytest.mark.gpu
def test_gpu_rep_is_milliseconds_a_large_kernels_timed_runs_add_up_to_at_most_rep():
    x = torch.randn(FAR_BEYOND_L2, device="cuda")
    times = triton.testing.do_bench(entry.add_launcher(x, x, torch.empty_like(x)), rep=100, return_mode="all")
    # int(rep / estimate) runs, and the estimate times each run's flush too: fewer runs than rep over
    # one run's own time, and together no more than rep
    assert len(times) < 100 / statistics.median(times), (len(times), statistics.median(times))
    assert sum(times) <= 105, (len(times), sum(times))


@pytest.mark.gpu
def test_gpu_do_bench_cudagraph_never_flushes(monkeypatch):
    active = triton.runtime.driver.active
    flushes = []
    clear_cache = active.clear_cache
    monkeypatch.setattr(active, "clear_cache", lambda cache: (flushes.append(1), clear_cache(cache)))
    times = triton.testing.do_bench(small_launch(), return_mode="all")
    assert len(flushes) == 5 + len(times)  # do_bench: 5 while estimating, then one per timed run
    flushes.clear()
    triton.testing.do_bench_cudagraph(small_launch(), return_mode="median")
    assert flushes == []
