"""TP017: `timer.measure(kernel[grid](...))` times nothing: the kernel already ran.

Run it: ``python snippets/timing/timer_lambda_trap.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import functools
import inspect
import statistics
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import triton.testing
import pytest

from triton_faq.evidence import copy_ceiling_gbps, gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:timer]
class GpuTimer:
    """Median time in milliseconds of a zero-argument callable, measured with CUDA events."""

    def measure(self, fn, warmup=5, repeat=50):
        if not callable(fn):
            raise TypeError(
                "measure() needs a zero-argument callable such as `lambda: kernel[grid](...)`; "
                f"got a {type(fn).__name__}, the result of a launch that has already run"
            )
        try:
            inspect.signature(fn).bind()
        except TypeError:
            raise TypeError(f"measure() calls fn() with no arguments, but {fn!r} needs some") from None
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)
# --8<-- [end:timer]


# --8<-- [start:kernel]
@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    # x += 1 in place, so x counts how many times the kernel ran
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:forms]
def three_forms(x, block=1024):
    """The same launch wrapped three ways; each is a zero-argument callable."""
    n = x.numel()
    grid = (triton.cdiv(n, block),)

    def run():
        add_one[grid](x, n, BLOCK=block)

    return {
        "lambda": lambda: add_one[grid](x, n, BLOCK=block),
        "partial": functools.partial(add_one[grid], x, n, BLOCK=block),
        "named": run,
    }
# --8<-- [end:forms]


# --8<-- [start:test-pitfall]
def test_pitfall_the_kernel_runs_while_the_argument_is_evaluated():
    x = torch.zeros(100, device=DEVICE)
    with pytest.raises(TypeError, match=r"measure\(\) needs a zero-argument callable"):
        GpuTimer().measure(add_one[(1,)](x, 100, BLOCK=128))  # the bug
    # measure() refused before calling anything, yet the kernel ran exactly once:
    assert torch.equal(x.cpu(), torch.ones(100))
# --8<-- [end:test-pitfall]


# --8<-- [start:reproduce-without-the-check]
def do_bench_given_a_launch():
    x = torch.zeros(8, device=DEVICE)
    return triton.testing.do_bench(add_one[(1,)](x, 8, BLOCK=8))  # the bug; do_bench calls what it gets


def host_timer_given_a_launch():
    x = torch.zeros(8, device=DEVICE)
    fn = add_one[(1,)](x, 8, BLOCK=8)  # the bug: the kernel has already run
    start = time.perf_counter()
    fn()  # a timer without GpuTimer's check calls what it was given
    return (time.perf_counter() - start) * 1e3
# --8<-- [end:reproduce-without-the-check]


# --8<-- [start:test-returns]
@pytest.mark.interpreter
def test_interpreter_launch_returns_none():
    x = torch.zeros(8, device=DEVICE)
    ret = add_one[(1,)](x, 8, BLOCK=8)
    assert ret is None
    with pytest.raises(TypeError, match="got a NoneType"):
        GpuTimer().measure(ret)


@pytest.mark.gpu
def test_cuda_launch_returns_a_compiled_kernel():
    x = torch.zeros(8, device=DEVICE)
    ret = add_one[(1,)](x, 8, BLOCK=8)
    assert isinstance(ret, triton.compiler.CompiledKernel)
    assert not callable(ret)
    with pytest.raises(TypeError, match="got a CompiledKernel"):
        GpuTimer().measure(ret)
# --8<-- [end:test-returns]


# --8<-- [start:test-zero-args]
def test_the_timer_refuses_a_callable_that_needs_arguments():
    x = torch.zeros(8, device=DEVICE)
    with pytest.raises(TypeError, match=r"measure\(\) calls fn\(\) with no arguments"):
        GpuTimer().measure(lambda block: add_one[(1,)](x, 8, BLOCK=block))
    assert torch.equal(x.cpu(), torch.zeros(8))  # nothing ran
# --8<-- [end:test-zero-args]


# --8<-- [start:test-forms]
FORMS = ["lambda", "partial", "named"]


@pytest.mark.parametrize("form", FORMS)
def test_each_form_launches_the_kernel_once_per_call(form):
    x = torch.zeros(1000, device=DEVICE)
    fn = three_forms(x, block=256)[form]
    assert torch.equal(x.cpu(), torch.zeros(1000))  # wrapping it launched nothing
    for _ in range(3):
        fn()
    assert torch.equal(x.cpu(), torch.full((1000,), 3.0))


@pytest.mark.gpu
@pytest.mark.parametrize("form", FORMS)
def test_the_timer_calls_each_form_warmup_plus_repeat_times(form):
    x = torch.zeros(1000, device=DEVICE)
    GpuTimer().measure(three_forms(x, block=256)[form], warmup=2, repeat=5)
    assert torch.equal(x.cpu(), torch.full((1000,), 7.0))


@pytest.mark.gpu
def test_the_three_forms_measure_the_same_time():
    x = torch.zeros(2**28, device=DEVICE)  # 1 GiB, read and written by every launch
    medians = {form: GpuTimer().measure(fn) for form, fn in three_forms(x).items()}
    assert min(medians.values()) > 0.1, medians  # milliseconds: a real kernel was timed
    assert max(medians.values()) <= 1.10 * min(medians.values()), medians
# --8<-- [end:test-forms]


# --8<-- [start:fix]
@triton.jit
def axpb(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def timed_axpb(x, out, block=256):
    n = x.numel()
    grid = (triton.cdiv(n, block),)
    fn = lambda: axpb[grid](x, out, n, BLOCK=block)  # not yet run
    if BACKEND == "cuda":
        return GpuTimer().measure(fn, warmup=1, repeat=3)
    fn()  # the interpreter has no CUDA events: just run it
    return None
# --8<-- [end:fix]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_fix_the_timed_callable_computes_the_right_result(n):
    x, out = fresh_randn(n), poisoned(n)
    timed_axpb(x, out)
    assert_matches_float64(out, 2.0 * x.double() + 1.0)
# --8<-- [end:test-fix]


@gpu_evidence("launch-return-value")
def observe_launch_return_value():
    """What a compiled launch returns, and what the timer says when handed it."""
    x = torch.zeros(8, device=DEVICE)
    ret = add_one[(1,)](x, 8, BLOCK=8)
    try:
        GpuTimer().measure(ret)
    except TypeError as error:
        refusal = f"{type(error).__name__}: {error}"
    else:
        raise AssertionError(f"GpuTimer().measure accepted {ret!r}")
    rows = [
        ["type(ret)", f"{type(ret).__module__}.{type(ret).__qualname__}"],
        ["isinstance(ret, triton.compiler.CompiledKernel)", isinstance(ret, triton.compiler.CompiledKernel)],
        ["callable(ret)", callable(ret)],
        ["GpuTimer().measure(ret)", refusal],
        ["sorted(set(x.tolist()))", sorted(set(x.tolist()))],
    ]
    return table([label("expression", "表达式"), label("value on the GPU", "GPU 上的值")], rows)


@gpu_evidence("timer-forms")
def measure_three_forms():
    """GpuTimer's median for the three forms on a kernel reading and writing 1 GiB, next to PyTorch."""
    ceiling = copy_ceiling_gbps()
    x = torch.zeros(2**28, device=DEVICE)  # 1 GiB, far beyond the 60 MB L2
    bytes_moved = 2 * x.numel() * x.element_size()  # read and written by every launch
    callables = dict(three_forms(x))
    callables["PyTorch eager: lambda: x.add_(1)"] = lambda: x.add_(1)
    rows = []
    for form, fn in callables.items():
        ms = GpuTimer().measure(fn)
        gbps = bytes_moved / (ms * 1e-3) / 1e9
        rows.append([form, ms, gbps, gbps / ceiling])
    return table(
        [label("callable", "可调用对象", "form"), label("GpuTimer median ms", "GpuTimer 中位数 毫秒", "median_ms"),
         label("GB/s", "GB/s", "gbps"), label("fraction of copy ceiling", "占拷贝上限的比例", "fraction_of_ceiling")],
        rows,
        ceiling_gbps=ceiling,
        n_elements=x.numel(),
    )


def main():
    print(describe())
    x = torch.zeros(1000, device=DEVICE)
    ret = add_one[(4,)](x, 1000, BLOCK=256)
    print("kernel[grid](...) returned:", type(ret).__name__, "; x[0] is now", float(x[0]))
    try:
        GpuTimer().measure(ret)
    except TypeError as error:
        print("GpuTimer().measure(kernel[grid](...)) ->", error)
    for form, fn in three_forms(x, block=256).items():
        fn()
        print(f"after calling the {form} form once more, x[0] =", float(x[0]))
    if BACKEND == "cuda":
        big = torch.zeros(2**28, device=DEVICE)
        for form, fn in three_forms(big).items():
            print(f"{form:8s} median: {GpuTimer().measure(fn):.3f} ms")


if __name__ == "__main__":
    main()
