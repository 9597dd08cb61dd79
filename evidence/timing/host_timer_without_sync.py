"""TP018's GPU evidence (`triton-faq bench`): one launch of a small and a large kernel, timed each way."""

import statistics
import time

from snippets.timing import host_timer_without_sync as entry
from triton_faq.evidence import copy_ceiling_gbps, gpu_evidence, label, table


def event_ms(fn):
    """CUDA-event time of one call of fn, on an idle GPU."""
    import torch

    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def graph_replay_ms(fn, launches=100, replays=10):
    """Capture `launches` calls of fn in one CUDA graph; median event time of a replay, per launch."""
    import torch

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            fn()
    graph.replay()  # warm-up
    return statistics.median(event_ms(graph.replay) for _ in range(replays)) / launches


def timing_methods(n, repeats=20):
    """(method, milliseconds, bytes the kernel moves) for one launch on n float32 elements."""
    import torch
    import triton
    import triton.testing

    x = torch.ones(n, device="cuda")
    out = torch.empty_like(x)
    fn = entry.launcher(x, out)
    fn()  # compiled and loaded before anything is timed
    torch.cuda.synchronize()
    no_sync = []
    for _ in range(repeats):
        torch.cuda.synchronize()  # an idle GPU before each launch
        no_sync.append(entry.host_ms_without_sync(fn))
    torch.cuda.synchronize()
    axpb_rows = [
        ("perf_counter, no synchronize", statistics.median(no_sync)),
        ("perf_counter + synchronize", statistics.median(entry.host_ms_with_sync(fn) for _ in range(repeats))),
        ("CUDA events", statistics.median(event_ms(fn) for _ in range(repeats))),
        ("do_bench(fn)", triton.testing.do_bench(fn)),
        ('do_bench(fn, return_mode="median")', triton.testing.do_bench(fn, return_mode="median")),
        ("CUDAGraph: 100 launches, replay / 100", graph_replay_ms(fn)),
    ]
    rows = [(method, ms, 2 * 4 * n) for method, ms in axpb_rows]  # axpb reads x and writes out
    salt = time.time_ns()  # a new specialization of first_call_demo: it compiles on its first call
    first = lambda: entry.first_call_demo[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024, SALT=salt)
    # first_call_demo only writes its n elements
    rows.append(("first_call_demo, new SALT: 1st call, perf_counter + synchronize", entry.host_ms_with_sync(first), 4 * n))
    rows.append(("first_call_demo, same SALT: 2nd call, perf_counter + synchronize", entry.host_ms_with_sync(first), 4 * n))
    return rows


@gpu_evidence("timing-methods")
def measure_timing_methods():
    """One launch of a small and a large memory-bound kernel, timed each way."""
    reference = copy_ceiling_gbps()  # torch's copy_ measured now: a reference, not a bound
    rows = []
    for n in (2**12, 2**28):  # 16 KiB, and 1 GiB per tensor (far beyond the 60 MB L2)
        for method, ms, bytes_moved in timing_methods(n):
            gbps = bytes_moved / (ms * 1e-3) / 1e9
            rows.append([n, method, ms, gbps, gbps / reference])
    return table(
        [label("elements (float32)", "元素数（float32）", "n_elements"), label("method", "计时方法", "method"),
         label("ms", "毫秒", "ms"), label("implied GB/s", "折合 GB/s", "implied_gbps"),
         label("implied fraction of torch's copy (reference)", "折合占 torch 拷贝（参考值）的比例",
               "implied_fraction_of_ceiling")],
        rows,
        ceiling_gbps=reference,
    )
