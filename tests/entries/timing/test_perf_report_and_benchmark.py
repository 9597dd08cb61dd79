"""TP057's claims, one test each: snippets/timing/perf_report_and_benchmark.py.

perf_report's run() needs pandas and matplotlib; where they are not installed, the tests that
run it are skipped and `test_without_matplotlib_run_fails_before_calling_the_function` holds.
"""

import functools
import os

import pytest
import torch
import triton.testing

from snippets.timing import perf_report_and_benchmark as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

SIZES = entry.bench.benchmarks.x_vals  # [4096, 65536]
needs_pandas = pytest.mark.skipif(not entry.HAVE_PANDAS_AND_MATPLOTLIB, reason="perf_report needs pandas and matplotlib")


class CountingTimer:
    """The fake timer of the page, counting its calls and the quantiles it was asked for."""

    def __init__(self):
        self.calls = []

    def __call__(self, fn, quantiles):
        self.calls.append(list(quantiles))
        return entry.fake_do_bench(fn, quantiles)


@functools.cache
def tables(tmp_dir=None):
    """The two benchmarks of the page on the fake timer, run once per test session."""
    timer = CountingTimer()
    fixed = entry.bench.run(return_df=True, timer=timer)
    sorted_quantiles = entry.bench_sorted_quantiles.run(return_df=True, timer=entry.fake_do_bench)
    return fixed, sorted_quantiles, timer


@needs_pandas
def test_pitfall_sorted_quantiles_put_p20_in_the_table():
    _, df, _ = tables()
    p20 = [entry.gbps(size, entry.FAKE_MS[0.2]) for size in SIZES]
    assert df["Triton (GB/s)"].tolist() == p20 and df["Torch (GB/s)"].tolist() == p20


@needs_pandas
def test_fix_the_table_holds_the_median():
    df, _, _ = tables()
    median = [entry.gbps(size, entry.FAKE_MS[0.5]) for size in SIZES]
    assert df["Triton (GB/s)"].tolist() == median and df["Torch (GB/s)"].tolist() == median


@needs_pandas
def test_the_table_keeps_the_first_value_only_named_after_the_line_and_ylabel():
    df, _, _ = tables()
    assert df.columns.tolist() == ["size", "Triton (GB/s)", "Torch (GB/s)"]


@needs_pandas
def test_the_function_runs_once_per_x_value_and_line():
    _, _, timer = tables()
    assert timer.calls == [[0.5, 0.2, 0.8]] * (len(SIZES) * 2)


@needs_pandas
def test_the_x_values_come_back_as_floats():
    df, _, _ = tables()
    assert df["size"].tolist() == [4096.0, 65536.0] and str(df["size"].dtype) == "float64"


@needs_pandas
def test_run_returns_none_unless_return_df():
    assert entry.bench.run(timer=entry.fake_do_bench) is None


@needs_pandas
def test_save_path_writes_a_csv_of_the_table_a_png_and_an_html(tmp_path):
    entry.bench.run(save_path=str(tmp_path), timer=entry.fake_do_bench)
    assert sorted(os.listdir(tmp_path)) == ["add.csv", "add.png", "results.html"]
    header = (tmp_path / "add.csv").read_text().splitlines()[0]
    assert header == "size,Triton (GB/s),Torch (GB/s)"


@needs_pandas
def test_two_values_are_a_value_error_after_the_first_call():
    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["size"], x_vals=[4096], line_arg="provider", line_vals=["triton"], line_names=["Triton"],
        plot_name="two-values", args={}))
    def two_values(size, provider):
        return entry.fake_do_bench(lambda: None, quantiles=[0.5, 0.2])

    with pytest.raises(ValueError, match=r"^not enough values to unpack \(expected 3, got 2\)$"):
        two_values.run()


def test_without_matplotlib_run_fails_before_calling_the_function():
    if importlib_spec("matplotlib") is not None:
        pytest.skip("matplotlib is installed")
    calls = []
    with pytest.raises(ModuleNotFoundError, match=r"^No module named 'matplotlib'$"):
        entry.bench.run(timer=lambda fn, quantiles: calls.append(1))
    assert calls == []


def importlib_spec(name):
    import importlib.util

    return importlib.util.find_spec(name)


@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_the_kernel_under_test_matches_float64(n):
    x, y = fresh_randn(n), fresh_randn(n)
    assert_matches_float64(entry.add(x, y), x.double() + y.double())


def test_gbps_counts_twelve_bytes_per_element_over_milliseconds():
    assert entry.gbps(10**9, 12.0) == pytest.approx(1000.0)  # 12 GB moved in 12 ms


def test_do_bench_returns_the_quantiles_in_the_order_asked_in_milliseconds():
    """do_bench's last step, on times 1..11 ms: the median of [0.5, 0.2, 0.8] comes first."""
    times = [float(t) for t in range(1, 12)]
    assert triton.testing._summarize_statistics(times, [0.5, 0.2, 0.8], "mean") == [6.0, 3.0, 9.0]
    assert triton.testing._summarize_statistics(times, [0.2, 0.5, 0.8], "mean") == [3.0, 6.0, 9.0]
    assert ":param warmup: Warmup time (in ms)" in triton.testing.do_bench.__doc__


@pytest.mark.gpu
def test_gpu_the_band_brackets_the_median():
    for provider in ("triton", "torch"):
        line, low, high = entry.bench.fn(2**24, provider)
        assert low <= line <= high
