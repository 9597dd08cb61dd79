"""TP031: `triton.testing.do_bench` pitfalls: the mean, milliseconds not counts, the removed
`fast_flush`, and a flushed L2 versus `do_bench_cudagraph`.

Run it: python do_bench_pitfalls.py  (without a GPU, do_bench runs on a fake clock; see fake-gpu)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import contextlib  # noqa: E402
import statistics  # noqa: E402
import types  # noqa: E402

import triton.testing  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:fake-gpu]
class FakeGpu:
    """Stands in for Triton's active driver, so do_bench's own Python runs without a GPU.

    Its clock (in ms) moves only when a fake kernel runs; its "L2" is cold after a flush.
    """

    def __init__(self):
        self.now, self.flushes, self.cache_is_cold = 0.0, 0, True

    def get_device_interface(self):  # what do_bench asks of runtime.driver.active
        return self

    def synchronize(self):
        pass

    def Event(self, enable_timing=False):
        return FakeEvent(self)

    def get_empty_cache_for_benchmark(self):  # do_bench's 256 MiB buffer; zeroing it evicts L2
        return types.SimpleNamespace(zero_=self.flush)

    def clear_cache(self, cache):
        cache.zero_()

    def flush(self):
        self.flushes += 1
        self.cache_is_cold = True


class FakeEvent:
    def __init__(self, gpu):
        self.gpu, self.time = gpu, None

    def record(self):
        self.time = self.gpu.now

    def elapsed_time(self, end):
        return end.time - self.time


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
    gpu, real = FakeGpu(), triton.testing.runtime
    triton.testing.runtime = types.SimpleNamespace(driver=types.SimpleNamespace(active=gpu))
    try:
        yield gpu
    finally:
        triton.testing.runtime = real
# --8<-- [end:fake-gpu]


# --8<-- [start:pitfall]
def hiccup_kernel(gpu):
    # 1 ms per call; with the defaults do_bench calls it 1 + 5 + 25 + 100 times,
    # and call 100, a timed one, hits a 100 ms hiccup (another process, a clock change...)
    return FakeKernel(gpu, ms=1.0, slow_calls={100: 100.0})


def time_it_pitfall(fn):
    return triton.testing.do_bench(fn)  # the mean of the timed runs
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def time_it(fn):
    return triton.testing.do_bench(fn, quantiles=[0.2, 0.5, 0.8])  # the fix: ask for quantiles
# --8<-- [end:fix]


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


def main():
    with fake_gpu() as gpu:
        kernel = hiccup_kernel(gpu)
        print(f"fake 1 ms kernel, one 100 ms hiccup: do_bench(fn) = {time_it_pitfall(kernel)} ms (the mean),",
              f"fn called {kernel.calls} times")
    with fake_gpu() as gpu:
        print("  do_bench(fn, quantiles=[0.2, 0.5, 0.8]) =", time_it(hiccup_kernel(gpu)), "ms")
    try:
        triton.testing.do_bench(lambda: None, fast_flush=True)
    except TypeError as error:
        print("do_bench(fn, fast_flush=True):", f"{type(error).__name__}: {error}")
    if DEVICE == "cuda":
        for n in (2**20, 2**28):  # 12 MiB moved, inside the 60 MB L2; 3 GiB, far beyond it
            t = timings(n)
            print(f"x + y, n={n}: " + ", ".join(f"{k} {v * 1e3:.1f} us" for k, v in t.items()))


if __name__ == "__main__":
    main()
