"""TP057's GPU evidence (`triton-faq bench`): the three numbers the page's benchmark returns, from do_bench."""

from snippets.timing import perf_report_and_benchmark as entry
from triton_faq.evidence import gpu_evidence, label, table

SIZES = (2**12, 2**16, 2**20, 2**24, 2**28)


@gpu_evidence("perf-report-values")
def perf_report_values():
    """`bench.fn` (the function under @perf_report, called directly: no pandas needed) with the real do_bench.

    For each size and provider, one do_bench call with quantiles [0.5, 0.2, 0.8]: its three times
    in ms, the GB/s that perf_report's table shows (from the median), and the GB/s the table would
    show with quantiles sorted [0.2, 0.5, 0.8] (from p20, the same call).
    """
    import triton.testing

    rows = []
    for size in SIZES:
        for provider in ("triton", "torch"):
            seen = []

            def timer(fn, quantiles):
                seen.append(triton.testing.do_bench(fn, quantiles=quantiles))
                return seen[-1]

            line, low, high = entry.bench.fn(size, provider, timer=timer)
            median_ms, p20_ms, p80_ms = seen[0]
            if not low <= line <= high:
                raise AssertionError(f"the band does not bracket the line: {low} {line} {high}")
            rows.append([size, provider, median_ms, p20_ms, p80_ms, line, high])
    return table(
        [label("size (float32 elements)", "元素数（float32）"), label("provider", "provider"),
         label("median ms", "中位数 毫秒"), label("p20 ms", "p20 毫秒"), label("p80 ms", "p80 毫秒"),
         label("GB/s in the table (median first)", "表里的 GB/s（中位数在前）"),
         label("GB/s in the table (quantiles sorted: p20)", "表里的 GB/s（分位数排好序：p20）")],
        rows,
    )
