"""TP018's claims, one test each: snippets/timing/host_timer_without_sync.py."""

import statistics
import time

import pytest
import torch
import triton.testing

from snippets.timing import host_timer_without_sync as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

HBM3E_DATASHEET_BYTES_PER_S = 4.8e12  # NVIDIA's H200 datasheet: 4.8 TB/s


@pytest.mark.gpu
def test_pitfall_host_timer_without_sync_measures_only_the_launch():
    fn = entry.big_launch()
    pairs = [entry.host_and_event_ms(fn, sync=False) for _ in range(10)]
    host = statistics.median(h for h, _ in pairs)
    kernel = statistics.median(e for _, e in pairs)
    assert kernel > 1.0, pairs  # milliseconds
    assert host < kernel / 5, pairs


@pytest.mark.gpu
def test_pitfall_implies_a_bandwidth_the_memory_cannot_deliver():
    fn = entry.big_launch()  # reads 4 GiB and writes 4 GiB
    host = statistics.median(entry.host_and_event_ms(fn, sync=False)[0] for _ in range(10))
    assert 8 * 2**30 / (host * 1e-3) > HBM3E_DATASHEET_BYTES_PER_S, host


@pytest.mark.gpu
def test_fix_host_timer_with_sync_is_never_shorter_than_the_kernel():
    fn = entry.big_launch()
    pairs = [entry.host_and_event_ms(fn, sync=True) for _ in range(10)]
    assert all(host >= kernel for host, kernel in pairs), pairs


@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_fix_the_synchronized_timer_ran_the_kernel(n):
    x, out = fresh_randn(n), poisoned(n)
    assert entry.host_ms_with_sync(entry.launcher(x, out, block=256)) > 0
    assert_matches_float64(out, 2.0 * x.double() + 1.0)


@pytest.mark.interpreter
def test_interpreter_launch_has_finished_when_it_returns():
    x, out = fresh_randn(4099), poisoned(4099)
    entry.host_ms_without_sync(entry.launcher(x, out, block=256))  # no synchronize at all
    assert_matches_float64(out, 2.0 * x.double() + 1.0)


@pytest.mark.gpu
def test_the_first_call_includes_compilation():
    x = torch.empty(1024, device="cuda")
    salt = time.time_ns()  # a SALT never used before, as in first_and_second_call_ms: the first call compiles
    fn = lambda: entry.first_call_demo[(1,)](x, 1024, BLOCK=1024, SALT=salt)
    first = entry.host_ms_with_sync(fn)
    later = min(entry.host_ms_with_sync(fn) for _ in range(5))  # a busy host (other tests) can slow any one call
    assert first > 10 * later, (first, later)


@pytest.mark.gpu
def test_do_bench_agrees_with_cuda_events():
    fn = entry.big_launch()
    # The fastest run of each, the two timed in turns: other tests share the GPU (the suite runs in
    # parallel), and a window of their work must slow both timers alike, not one of them
    events, bench = [], []
    for _ in range(10):
        events += [entry.host_and_event_ms(fn, sync=True)[1] for _ in range(2)]
        bench.append(triton.testing.do_bench(fn, warmup=5, rep=20, return_mode="min"))  # warms up, synchronizes
    assert abs(min(bench) - min(events)) <= 0.10 * min(events), (bench, events)
