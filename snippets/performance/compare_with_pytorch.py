"""TP011: "slower than PyTorch?" Measure both the same way, with the median.

Run it: ``python snippets/performance/compare_with_pytorch.py``
(on a machine without a GPU it runs through Triton's interpreter and skips the timings).
"""

import functools
import inspect
import re

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import triton.testing
import pytest

from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:fused]
@triton.jit
def scale_shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)  # one read, one write


def scale_shift_triton(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    scale_shift_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
    return y


def scale_shift_eager(x: torch.Tensor) -> torch.Tensor:
    return x * 2 + 1  # two kernels: x * 2 writes a temporary, + 1 reads it back
# --8<-- [end:fused]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_fused_kernel_matches_float64(n):
    x = fresh_randn(n)
    assert_matches_float64(scale_shift_triton(x, poisoned(n)), x.double() * 2 + 1)
    assert_matches_float64(scale_shift_eager(x), x.double() * 2 + 1)
# --8<-- [end:test-fix]


# --8<-- [start:test-mean]
def test_do_bench_returns_the_mean_unless_asked():
    assert inspect.signature(triton.testing.do_bench).parameters["return_mode"].default == "mean"


def test_triton_3_6_docstring_of_do_bench_says_median():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(triton.testing.do_bench.__doc__.split())
    assert "By default, return the median runtime" in doc
    assert 'Default is "mean".' in doc
# --8<-- [end:test-mean]


# --8<-- [start:test-no-driver]
def do_bench_without_a_gpu():
    x = fresh_randn(1000)
    return triton.testing.do_bench(lambda: scale_shift_eager(x), return_mode="median")


@pytest.mark.interpreter
def test_do_bench_needs_a_gpu_driver():
    if torch.cuda.is_available():
        pytest.skip("a CUDA driver is present")
    with pytest.raises(RuntimeError, match=re.escape("0 active drivers ([]). There should only be one.")):
        do_bench_without_a_gpu()
# --8<-- [end:test-no-driver]


# --8<-- [start:benchmark]
N = 2**28  # float32: 1 GiB, far beyond L2


def gbps(ms, n=N):
    return 2 * n * 4 / (ms * 1e-3) / 1e9  # what a single pass moves: n floats read + n written


@functools.cache
def timings():
    """Median milliseconds of the fused kernel, eager PyTorch and torch's copy_ (the ceiling)."""
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    median = functools.partial(triton.testing.do_bench, return_mode="median")
    return {
        "copy": median(lambda: y.copy_(x)),  # same bytes as one pass: the ceiling
        "triton": median(lambda: scale_shift_triton(x, y)),
        "eager": median(lambda: scale_shift_eager(x)),
    }
# --8<-- [end:benchmark]


# --8<-- [start:test-benchmark]
@pytest.mark.gpu
def test_the_tensor_is_far_beyond_l2():
    assert N * 4 >= 10 * torch.cuda.get_device_properties(0).L2_cache_size


@pytest.mark.gpu
def test_fused_kernel_takes_less_than_three_quarters_of_eager_time():
    t = timings()
    assert t["triton"] < 0.75 * t["eager"]


@pytest.mark.gpu
def test_fused_kernel_reaches_80_percent_of_copy_bandwidth():
    t = timings()
    assert gbps(t["triton"]) >= 0.8 * gbps(t["copy"])


@pytest.mark.gpu
def test_eager_reaches_less_than_60_percent_of_copy_bandwidth():
    t = timings()
    assert gbps(t["eager"]) < 0.6 * gbps(t["copy"])
# --8<-- [end:test-benchmark]


@gpu_evidence("fused-vs-eager")
def fused_vs_eager():
    """The fused kernel, eager PyTorch and torch.compile of the same function on 2**28 float32."""
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    compiled = torch.compile(scale_shift_eager, fullgraph=True)  # a graph break or compile error raises
    expected = scale_shift_eager(x)
    if not torch.equal(compiled(x), expected):  # the first call compiles, outside the timing
        raise AssertionError("torch.compile of x * 2 + 1 gave a different result from eager")
    candidates = [
        ("triton fused", lambda: scale_shift_triton(x, y)),
        ("torch eager", lambda: scale_shift_eager(x)),
        ("torch.compile", lambda: compiled(x)),
    ]
    bytes_moved = 2 * N * 4  # the least any implementation must move: read x once, write y once
    rows = [[name, *memory_bound_cells(median_ms(fn), bytes_moved, ceiling)] for name, fn in candidates]
    return table(
        [label("implementation", "实现", "implementation"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=N,
    )


def main():
    print(describe())
    x = fresh_randn(5000)
    y = scale_shift_triton(x, poisoned(5000))
    print("fused kernel, n=5000, max error vs float64:", float((y.double() - (x.double() * 2 + 1)).abs().max()))
    print("do_bench return_mode default:",
          repr(inspect.signature(triton.testing.do_bench).parameters["return_mode"].default))
    if BACKEND != "cuda":
        print("timings skipped: triton.testing.do_bench needs a GPU")
        return
    t = timings()
    copy = gbps(t["copy"])
    for name in ("copy", "triton", "eager"):
        print(f"{name:>7}: {t[name]:.3f} ms median, {gbps(t[name]):6.0f} GB/s = {gbps(t[name]) / copy:5.1%} of copy")


if __name__ == "__main__":
    main()
