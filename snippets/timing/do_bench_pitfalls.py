"""TP031: `triton.testing.do_bench` pitfalls: the mean, milliseconds not counts, the removed
`fast_flush`, and a flushed L2 versus `do_bench_cudagraph`.

Run it: ``python snippets/timing/do_bench_pitfalls.py``
(on a machine without a GPU it runs through Triton's interpreter; do_bench then runs on a fake clock).
"""

import contextlib
import functools
import inspect
import re
import statistics
import types

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import triton.testing
import pytest

from triton_faq.evidence import copy_ceiling_gbps, gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:fake-gpu]
class FakeGpu:
    """Stands in for Triton's active driver, so do_bench's own Python runs without a GPU.

    The clock (in ms) moves only when a fake kernel runs; the "L2 cache" is cold after a
    flush and hot after a kernel has run.
    """

    def __init__(self):
        self.now = 0.0
        self.flushes = 0
        self.cache_is_cold = True

    # what do_bench asks of runtime.driver.active
    def get_device_interface(self):
        return self

    def synchronize(self):
        pass

    def Event(self, enable_timing=False):
        return FakeEvent(self)

    def get_empty_cache_for_benchmark(self):
        return FakeFlushBuffer(self)

    def clear_cache(self, cache):
        cache.zero_()


class FakeEvent:
    def __init__(self, gpu):
        self.gpu, self.time = gpu, None

    def record(self):
        self.time = self.gpu.now

    def elapsed_time(self, end):
        return end.time - self.time


class FakeFlushBuffer:
    def __init__(self, gpu):
        self.gpu = gpu

    def zero_(self):  # what do_bench does to its 256 MB buffer: evicts everything else from L2
        self.gpu.flushes += 1
        self.gpu.cache_is_cold = True


class FakeKernel:
    """A callable that takes `ms` of fake GPU time (+ `cold_ms` on a cold cache) and counts its calls."""

    def __init__(self, gpu, ms, cold_ms=0.0, slow_calls=None):
        self.gpu, self.ms, self.cold_ms = gpu, ms, cold_ms
        self.slow_calls = slow_calls or {}  # {call number: extra ms}: a hiccup
        self.calls, self.caches = 0, []

    def __call__(self):
        self.calls += 1
        self.caches.append("cold" if self.gpu.cache_is_cold else "hot")
        self.gpu.now += self.ms + (self.cold_ms if self.gpu.cache_is_cold else 0.0)
        self.gpu.now += self.slow_calls.get(self.calls, 0.0)
        self.gpu.cache_is_cold = False


@contextlib.contextmanager
def fake_gpu():
    """Point do_bench at a FakeGpu for the duration of the block."""
    gpu = FakeGpu()
    real = triton.testing.runtime
    triton.testing.runtime = types.SimpleNamespace(driver=types.SimpleNamespace(active=gpu))
    try:
        yield gpu
    finally:
        triton.testing.runtime = real
# --8<-- [end:fake-gpu]


# --8<-- [start:pitfall-mean]
def hiccup_kernel(gpu):
    # 1 ms per call; with the defaults do_bench calls it 1 + 5 + 25 + 100 times (below why),
    # and call 100, a timed one, hits a 100 ms hiccup (another process, a clock change...)
    return FakeKernel(gpu, ms=1.0, slow_calls={100: 100.0})
# --8<-- [end:pitfall-mean]


# --8<-- [start:test-mean]
def test_pitfall_the_default_is_the_mean_one_hiccup_doubles_it():
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(hiccup_kernel(gpu)) == 2.0  # (99 * 1 + 101) / 100


def test_fix_the_median_ignores_the_hiccup():
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(hiccup_kernel(gpu), return_mode="median") == 1.0


def test_fix_quantiles_ignore_the_hiccup():
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(hiccup_kernel(gpu), quantiles=[0.2, 0.5, 0.8]) == [1.0, 1.0, 1.0]
# --8<-- [end:test-mean]


# --8<-- [start:test-quantiles]
def test_pitfall_quantiles_override_return_mode():
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(hiccup_kernel(gpu), return_mode="max") == 101.0
    with fake_gpu() as gpu:
        assert triton.testing.do_bench(hiccup_kernel(gpu), quantiles=[0.5], return_mode="max") == 1.0


def test_pitfall_one_quantile_returns_a_float_not_a_list():
    with fake_gpu() as gpu:
        assert type(triton.testing.do_bench(hiccup_kernel(gpu), quantiles=[0.5])) is float


def do_bench_with_percent_quantiles():
    with fake_gpu() as gpu:
        return triton.testing.do_bench(hiccup_kernel(gpu), quantiles=[20, 50, 80])  # fractions, not percent


def test_pitfall_quantiles_are_fractions_not_percent():
    with pytest.raises(ValueError, match=re.escape("Quantiles must be in the range [0, 1]")):
        do_bench_with_percent_quantiles()


def test_pitfall_an_unknown_return_mode_fails_a_bare_assert():
    with pytest.raises(AssertionError) as raised:
        triton.testing.do_bench(lambda: None, return_mode="p50")
    assert str(raised.value) == ""  # no message saying what is allowed
# --8<-- [end:test-quantiles]


# --8<-- [start:test-milliseconds]
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
# --8<-- [end:test-milliseconds]


# --8<-- [start:fast-flush]
def do_bench_with_fast_flush():
    # written for old Triton, where fast_flush=True zeroed the flush buffer as int32 rather than int8
    return triton.testing.do_bench(lambda: None, fast_flush=True)
# --8<-- [end:fast-flush]


# --8<-- [start:test-fast-flush]
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
# --8<-- [end:test-fast-flush]


# --8<-- [start:kernel]
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add_launcher(x, y, out, block=1024):
    n = x.numel()
    grid = (triton.cdiv(n, block),)
    return lambda: add_kernel[grid](x, y, out, n, BLOCK=block)
# --8<-- [end:kernel]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 3000])
def test_fix_the_timed_kernel_matches_float64(n):
    x, y, out = fresh_randn(n), fresh_randn(n), poisoned(n)
    add_launcher(x, y, out)()
    assert_matches_float64(out, x.double() + y.double())
# --8<-- [end:test-fix]


# --8<-- [start:three-ways]
def hot_median_ms(fn, runs=200, spin_cycles=200_000):
    """do_bench without the flush: CUDA events around each launch, inputs left in L2.

    Before each launch the GPU spins (torch.cuda._sleep touches no memory), so the launch is
    already queued when the start event is reached; in do_bench the flush plays that part.
    """
    fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for start, end in zip(starts, ends):
        torch.cuda._sleep(spin_cycles)
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def back_to_back_ms(fn, launches=100, repeats=5):
    """The usual hand-written loop: events around `launches` calls in a row, divided by `launches`."""
    fn()
    torch.cuda.synchronize()
    results = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(launches):
            fn()
        end.record()
        torch.cuda.synchronize()
        results.append(start.elapsed_time(end) / launches)
    return statistics.median(results)


def timings(n):
    """Median ms of one x + y on n float32 elements, timed four ways."""
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    fn = add_launcher(x, y, out)
    return {
        "do_bench": triton.testing.do_bench(fn, return_mode="median"),  # L2 flushed before each run
        "hot": hot_median_ms(fn),  # the same, without the flush
        "loop": back_to_back_ms(fn),
        "cudagraph": triton.testing.do_bench_cudagraph(fn, return_mode="median"),  # replays, no flush
    }
# --8<-- [end:three-ways]


cached_timings = functools.cache(timings)
FITS_IN_L2 = 2**20  # 4 MiB per tensor: x, y and out are 12 MiB together
FAR_BEYOND_L2 = 2**28  # 1 GiB per tensor


def bytes_moved(n):
    return 3 * 4 * n  # read x and y, write out


# --8<-- [start:test-gpu]
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
# --8<-- [end:test-gpu]


# --8<-- [start:test-gpu-counts]
def small_launch():
    x = torch.randn(FITS_IN_L2, device="cuda")
    return add_launcher(x, x, torch.empty_like(x))


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
def test_gpu_rep_is_milliseconds_the_timed_runs_of_a_large_kernel_add_up_to_about_rep():
    x = torch.randn(FAR_BEYOND_L2, device="cuda")
    times = triton.testing.do_bench(add_launcher(x, x, torch.empty_like(x)), rep=100, return_mode="all")
    assert 50 <= sum(times) <= 120, (len(times), sum(times))


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
# --8<-- [end:test-gpu-counts]


@gpu_evidence("flushed-hot-graph")
def flushed_hot_graph():
    """x + y on float32 tensors of growing size, timed four ways, with the copy ceiling of the same run."""
    ceiling = copy_ceiling_gbps()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows = []
    for n in (2**16, 2**18, 2**20, 2**22, 2**24, 2**28):
        t = timings(n)
        moved = bytes_moved(n)
        fraction = lambda ms: moved / (ms * 1e-3) / 1e9 / ceiling
        rows.append([n, moved / 2**20, moved <= l2, t["do_bench"], t["hot"], t["loop"], t["cudagraph"],
                     t["do_bench"] / t["hot"], t["do_bench"] / t["cudagraph"],
                     fraction(t["do_bench"]), fraction(t["cudagraph"])])
    return table(
        [label("elements (float32)", "元素数（float32）", "n_elements"),
         label("MiB moved (x, y, out)", "搬运 MiB（x、y、out）", "mib_moved"),
         label("fits in L2", "放得进 L2", "fits_in_l2"),
         label("do_bench median ms (L2 flushed)", "do_bench 中位数 毫秒（清空 L2）", "do_bench_ms"),
         label("hot-L2 median ms", "L2 热缓存 中位数 毫秒", "hot_ms"),
         label("back-to-back loop ms per call", "连续 launch 循环 每次毫秒", "loop_ms"),
         label("do_bench_cudagraph median ms", "do_bench_cudagraph 中位数 毫秒", "cudagraph_ms"),
         label("do_bench / hot", "do_bench / 热缓存", "ratio_hot"),
         label("do_bench / cudagraph", "do_bench / cudagraph", "ratio_cudagraph"),
         label("do_bench: implied fraction of copy ceiling", "do_bench：折合占拷贝上限的比例", "do_bench_fraction"),
         label("cudagraph: implied fraction of copy ceiling", "cudagraph：折合占拷贝上限的比例", "cudagraph_fraction")],
        rows,
        ceiling_gbps=ceiling,
        l2_cache_bytes=l2,
    )


def main():
    print(describe())
    with fake_gpu() as gpu:
        kernel = hiccup_kernel(gpu)
        mean = triton.testing.do_bench(kernel)
    print(f"fake kernel of 1 ms with one 100 ms hiccup: do_bench() = {mean} ms (the mean), "
          f"called {kernel.calls} times")
    with fake_gpu() as gpu:
        print("  return_mode='median':", triton.testing.do_bench(hiccup_kernel(gpu), return_mode="median"), "ms")
    try:
        do_bench_with_fast_flush()
    except TypeError as error:
        print("do_bench(fn, fast_flush=True):", f"{type(error).__name__}: {error}")
    if BACKEND != "cuda":
        print("GPU timings skipped: they need CUDA events")
        return
    for n in (FITS_IN_L2, FAR_BEYOND_L2):
        t = timings(n)
        print(f"x + y, n={n}: " + ", ".join(f"{k} {v * 1e3:.1f} us" for k, v in t.items()))


if __name__ == "__main__":
    main()
