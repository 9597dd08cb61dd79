"""TP057: `triton.testing.perf_report` and `Benchmark`: what the table holds, in which unit.

Run it: python perf_report_and_benchmark.py  (perf_report needs pandas and matplotlib; without a GPU,
the timer is a stand-in with fixed times and the kernel runs on Triton's interpreter)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import importlib.util  # noqa: E402

import triton.testing  # noqa: E402

# perf_report's run() imports matplotlib and pandas, even when it neither plots nor saves
HAVE_PANDAS_AND_MATPLOTLIB = all(importlib.util.find_spec(name) for name in ("pandas", "matplotlib"))
# --8<-- [end:prelude]


# --8<-- [start:kernel]
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x, y):
    out = torch.full_like(x, float("nan"))  # NaN until a program writes it
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out


def candidates(size):
    """What each line of the plot times, on fresh inputs of `size` float32 elements, output allocated once."""
    x, y = torch.rand(size, device=DEVICE), torch.rand(size, device=DEVICE)
    out = torch.empty_like(x)
    grid = (triton.cdiv(size, 1024),)
    return {"triton": lambda: add_kernel[grid](x, y, out, size, BLOCK=1024),
            "torch": lambda: torch.add(x, y, out=out)}
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
@triton.testing.perf_report(triton.testing.Benchmark(
    x_names=["size"], x_vals=[2**12, 2**16], line_arg="provider", line_vals=["triton", "torch"],
    line_names=["Triton", "Torch"], ylabel="GB/s", plot_name="add-sorted-quantiles", args={}))
def bench_sorted_quantiles(size, provider, timer=triton.testing.do_bench):
    ms = timer(candidates(size)[provider], quantiles=[0.2, 0.5, 0.8])  # p20 first: the table shows p20
    return [gbps(size, t) for t in ms]
# --8<-- [end:pitfall]


# --8<-- [start:fix]
QUANTILES = [0.5, 0.2, 0.8]  # the median first: perf_report's table keeps only the first value


@triton.testing.perf_report(triton.testing.Benchmark(
    x_names=["size"], x_vals=[2**12, 2**16], line_arg="provider", line_vals=["triton", "torch"],
    line_names=["Triton", "Torch"], ylabel="GB/s", plot_name="add", args={}))
def bench(size, provider, timer=triton.testing.do_bench):
    ms, p20_ms, p80_ms = timer(candidates(size)[provider], quantiles=QUANTILES)  # milliseconds
    return gbps(size, ms), gbps(size, p80_ms), gbps(size, p20_ms)  # (line, band low, band high)


def gbps(size, ms):
    return 3 * size * 4 * 1e-9 / (ms * 1e-3)  # x and y read, out written: 12 bytes per element, per second
# --8<-- [end:fix]


# --8<-- [start:fake-timer]
FAKE_MS = {0.2: 0.001, 0.5: 0.002, 0.8: 0.004}  # p20 1 µs, median 2 µs, p80 4 µs


def fake_do_bench(fn, quantiles):
    """do_bench's return value for `quantiles`, from fixed times; `fn` runs once (on any backend)."""
    fn()
    return [FAKE_MS[q] for q in quantiles]
# --8<-- [end:fake-timer]


def main():
    if not HAVE_PANDAS_AND_MATPLOTLIB:
        print("perf_report needs pandas and matplotlib: pip install pandas matplotlib")
        return
    timer = triton.testing.do_bench if DEVICE == "cuda" else fake_do_bench
    print("the fix, median first:")
    bench.run(print_data=True, timer=timer)
    print("the pitfall, quantiles sorted:")
    bench_sorted_quantiles.run(print_data=True, timer=timer)


if __name__ == "__main__":
    main()
