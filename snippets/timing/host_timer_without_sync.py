"""TP018: `time.perf_counter()` around a launch, without a synchronize, times only the launch.

Run it: ``python snippets/timing/host_timer_without_sync.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import statistics
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import copy_ceiling_gbps, gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


@triton.jit
def axpb(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def launcher(x, out, block=1024):
    n = x.numel()
    return lambda: axpb[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


# --8<-- [start:pitfall]
def host_ms_without_sync(fn):
    start = time.perf_counter()
    fn()  # on a GPU this only queues the kernel and returns
    return (time.perf_counter() - start) * 1e3
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def host_ms_with_sync(fn):
    synchronize()  # nothing queued earlier may end inside our interval
    start = time.perf_counter()
    fn()
    synchronize()  # wait until the kernel has finished
    return (time.perf_counter() - start) * 1e3
# --8<-- [end:fix]


# --8<-- [start:paired]
def host_and_event_ms(fn, sync):
    """Host time and CUDA-event time of one and the same launch."""
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    fn()
    end.record()
    if sync:
        torch.cuda.synchronize()
    host = (time.perf_counter() - t0) * 1e3
    end.synchronize()
    return host, start.elapsed_time(end)


def big_launch():
    n = 2**30  # 4 GiB read and 4 GiB written: a kernel of a few milliseconds on an H200
    x = torch.ones(n, device=DEVICE)
    fn = launcher(x, torch.empty_like(x))
    fn()  # compile and load it first
    torch.cuda.synchronize()
    return fn
# --8<-- [end:paired]


# --8<-- [start:test-pitfall]
@pytest.mark.gpu
def test_pitfall_host_timer_without_sync_measures_only_the_launch():
    fn = big_launch()
    pairs = [host_and_event_ms(fn, sync=False) for _ in range(10)]
    host = statistics.median(h for h, _ in pairs)
    kernel = statistics.median(e for _, e in pairs)
    assert kernel > 1.0, pairs  # milliseconds
    assert host < kernel / 5, pairs
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
@pytest.mark.gpu
def test_fix_host_timer_with_sync_is_never_shorter_than_the_kernel():
    fn = big_launch()
    pairs = [host_and_event_ms(fn, sync=True) for _ in range(10)]
    assert all(host >= kernel for host, kernel in pairs), pairs


@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_fix_the_synchronized_timer_ran_the_kernel(n):
    x, out = fresh_randn(n), poisoned(n)
    assert host_ms_with_sync(launcher(x, out, block=256)) > 0
    assert_matches_float64(out, 2.0 * x.double() + 1.0)
# --8<-- [end:test-fix]


# --8<-- [start:test-first-call]
@triton.jit
def first_call_demo(x_ptr, n, BLOCK: tl.constexpr, SALT: tl.constexpr):
    # SALT is unused: a value never seen before is a new specialization, so a new compilation
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs.to(tl.float32), mask=offs < n)


@pytest.mark.gpu
def test_the_first_call_includes_compilation():
    salt = time.time_ns()  # not in memory, not in Triton's on-disk cache
    x = torch.empty(1024, device=DEVICE)
    fn = lambda: first_call_demo[(1,)](x, 1024, BLOCK=1024, SALT=salt)
    first = host_ms_with_sync(fn)
    later = [host_ms_with_sync(fn) for _ in range(5)]
    assert first > 10 * max(later), (first, later)
# --8<-- [end:test-first-call]


# --8<-- [start:test-do-bench]
@pytest.mark.gpu
def test_do_bench_agrees_with_cuda_events():
    fn = big_launch()
    events = statistics.median(host_and_event_ms(fn, sync=True)[1] for _ in range(10))
    bench = triton.testing.do_bench(fn)  # warms up, synchronizes, returns the mean in ms
    assert abs(bench - events) <= 0.10 * events, (bench, events)
# --8<-- [end:test-do-bench]


# --8<-- [start:evidence]
def event_ms(fn):
    """CUDA-event time of one call of fn, on an idle GPU."""
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def graph_replay_ms(fn, launches=100, replays=10):
    """Capture `launches` calls of fn in one CUDA graph; median event time of a replay, per launch."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            fn()
    graph.replay()  # warm-up
    return statistics.median(event_ms(graph.replay) for _ in range(replays)) / launches


def timing_methods(n, repeats=20):
    """(method, milliseconds, bytes the kernel moves) for one launch on n float32 elements."""
    x = torch.ones(n, device=DEVICE)
    out = torch.empty_like(x)
    fn = launcher(x, out)
    fn()  # compiled and loaded before anything is timed
    torch.cuda.synchronize()
    no_sync = []
    for _ in range(repeats):
        torch.cuda.synchronize()  # an idle GPU before each launch
        no_sync.append(host_ms_without_sync(fn))
    torch.cuda.synchronize()
    axpb_rows = [
        ("perf_counter, no synchronize", statistics.median(no_sync)),
        ("perf_counter + synchronize", statistics.median(host_ms_with_sync(fn) for _ in range(repeats))),
        ("CUDA events", statistics.median(event_ms(fn) for _ in range(repeats))),
        ("do_bench(fn)", triton.testing.do_bench(fn)),
        ('do_bench(fn, return_mode="median")', triton.testing.do_bench(fn, return_mode="median")),
        ("CUDAGraph: 100 launches, replay / 100", graph_replay_ms(fn)),
    ]
    rows = [(method, ms, 2 * 4 * n) for method, ms in axpb_rows]  # axpb reads x and writes out
    salt = time.time_ns()  # a new specialization of first_call_demo: it compiles on its first call
    first = lambda: first_call_demo[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024, SALT=salt)
    # first_call_demo only writes its n elements
    rows.append(("first_call_demo, new SALT: 1st call, perf_counter + synchronize", host_ms_with_sync(first), 4 * n))
    rows.append(("first_call_demo, same SALT: 2nd call, perf_counter + synchronize", host_ms_with_sync(first), 4 * n))
    return rows
# --8<-- [end:evidence]


@gpu_evidence("timing-methods")
def measure_timing_methods():
    """One launch of a small and a large memory-bound kernel, timed each way."""
    ceiling = copy_ceiling_gbps()
    rows = []
    for n in (2**12, 2**28):  # 16 KiB, and 1 GiB per tensor (far beyond the 60 MB L2)
        for method, ms, bytes_moved in timing_methods(n):
            gbps = bytes_moved / (ms * 1e-3) / 1e9
            rows.append([n, method, ms, gbps, gbps / ceiling])
    return table(
        [label("elements (float32)", "元素数（float32）", "n_elements"), label("method", "计时方法", "method"),
         label("ms", "毫秒", "ms"), label("implied GB/s", "折合 GB/s", "implied_gbps"),
         label("implied fraction of copy ceiling", "折合占拷贝上限的比例", "implied_fraction_of_ceiling")],
        rows,
        ceiling_gbps=ceiling,
    )


def main():
    print(describe())
    x = fresh_randn(100_000)
    out = poisoned(100_000)
    fn = launcher(x, out)
    print(f"first call, with synchronize:  {host_ms_with_sync(fn):8.3f} ms")
    print(f"second call, with synchronize: {host_ms_with_sync(fn):8.3f} ms")
    print(f"second call, no synchronize:   {host_ms_without_sync(fn):8.3f} ms")
    if BACKEND == "cuda":
        fn = big_launch()
        for sync in (False, True):
            host, kernel = host_and_event_ms(fn, sync)
            print(f"4 GiB kernel, sync={sync}: host {host:.3f} ms, CUDA events {kernel:.3f} ms")


if __name__ == "__main__":
    main()
