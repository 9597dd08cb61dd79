"""TP017's GPU evidence (`triton-faq bench`): what a timer gets from `kernel[grid](...)`, and what a callable times."""

from snippets.timing import timer_lambda_trap as entry
from triton_faq.evidence import copy_ceiling_gbps, gpu_evidence, label, table


def _error_of(call):
    try:
        call()
    except TypeError as error:
        return f"{type(error).__name__}: {error}"
    raise AssertionError("no TypeError")


@gpu_evidence("launch-return-value")
def observe_launch_return_value():
    """What a compiled launch returns, what two real timers do when handed it, and how often the kernel ran."""
    import torch
    import triton
    import triton.testing

    x = torch.zeros(8, device="cuda")
    ret = entry.add_one[(1,)](x, 8, BLOCK=8)
    rows = [
        ["type(ret)", f"{type(ret).__module__}.{type(ret).__qualname__}"],
        ["isinstance(ret, triton.compiler.CompiledKernel)", isinstance(ret, triton.compiler.CompiledKernel)],
        ["callable(ret)", callable(ret)],
        ["GpuTimer().measure(ret)", _error_of(lambda: entry.GpuTimer().measure(ret))],
        ["triton.testing.do_bench(ret)", _error_of(lambda: triton.testing.do_bench(ret))],
        ["sorted(set(x.tolist())) after all of the above", sorted(set(x.tolist()))],
    ]
    return table([label("expression", "表达式"), label("value on the GPU", "GPU 上的值")], rows)


@gpu_evidence("timer-forms")
def measure_three_forms():
    """GpuTimer's median for the three forms on a kernel reading and writing 1 GiB, next to PyTorch."""
    import torch

    reference = copy_ceiling_gbps()  # torch's copy_ measured now: a reference, not a bound
    x = torch.zeros(2**28, device="cuda")  # 1 GiB, far beyond the 60 MB L2
    bytes_moved = 2 * x.numel() * x.element_size()  # read and written by every launch
    callables = dict(entry.three_forms(x))
    callables["PyTorch eager: lambda: x.add_(1)"] = lambda: x.add_(1)
    rows = []
    for form, fn in callables.items():
        ms = entry.GpuTimer().measure(fn)
        gbps = bytes_moved / (ms * 1e-3) / 1e9
        rows.append([form, ms, gbps, gbps / reference])
    return table(
        [label("callable", "可调用对象", "form"), label("GpuTimer median ms", "GpuTimer 中位数 毫秒", "median_ms"),
         label("GB/s", "GB/s", "gbps"),
         label("fraction of torch's copy (reference)", "占 torch 拷贝（参考值）的比例", "fraction_of_ceiling")],
        rows,
        ceiling_gbps=reference,
        n_elements=x.numel(),
    )
