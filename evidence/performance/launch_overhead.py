"""TP055's GPU evidence (`triton-faq bench`): microseconds per launch, per number of arguments and per way of launching."""

from snippets.performance import launch_overhead as entry
from triton_faq.evidence import gpu_evidence, label, table

GRAPH_LAUNCHES = 100  # launches captured in one CUDA graph; a replay re-issues them all


@gpu_evidence("launch-overhead")
def launch_overhead():
    """Wall-clock µs per launch: 1000 back-to-back calls, synchronised at the end, median of 7.

    Rows: torch's `x.add_(1)` on one element (the reference, measured in the same run), then the
    kernels with 1, 8 and 32 pointer arguments, each launched three ways: `kernel[grid](...)`;
    `launch_compiled` (the CompiledKernel that `kernel.warmup(...)` returns, launched as
    `compiled[grid](...)`, with no
    argument binding or cache lookup in Python); and 100 launches captured in a CUDA graph.
    Every Triton launch's output is checked against the sum of its inputs first.
    """
    import torch

    out = torch.full((1,), float("nan"), device="cuda")
    inputs = [torch.rand(1, device="cuda") for _ in range(31)]
    tiny = torch.zeros(1, device="cuda")

    def graph_of(fn):
        return entry.capture(lambda: [fn() for _ in range(GRAPH_LAUNCHES)])

    def per_launch_in_graph(fn):
        return entry.us_per_launch(graph_of(fn), launches_per_call=GRAPH_LAUNCHES, calls=20)

    reference = entry.us_per_launch(lambda: tiny.add_(1))
    rows = [["torch x.add_(1)", 1, "eager", reference, 1.0]]
    torch_graph = per_launch_in_graph(lambda: tiny.add_(1))
    rows.append(["torch x.add_(1)", 1, "CUDA graph", torch_graph, torch_graph / reference])
    for kernel, n_args in ((entry.args_1, 1), (entry.args_8, 8), (entry.args_32, 32)):
        args = (out, *inputs[: n_args - 1])
        expected = 1.0 if n_args == 1 else float(torch.stack(inputs[: n_args - 1]).double().sum())
        direct = entry.launch_compiled(kernel, (1,), *args)
        ways = [
            ("`` kernel[grid](...) ``", lambda: kernel[(1,)](*args)),
            ("`` compiled[grid](...) ``", lambda: direct(*args)),
        ]
        for way, fn in ways:
            out.fill_(float("nan"))
            fn()
            got = float(out.item())
            if abs(got - expected) > 1e-5 * max(1.0, abs(expected)):
                raise AssertionError(f"{way} with {n_args} arguments wrote {got}, expected {expected}")
            us = entry.us_per_launch(fn)
            rows.append([f"triton args_{n_args}", n_args, way, us, us / reference])
        us = per_launch_in_graph(lambda: kernel[(1,)](*args))
        rows.append([f"triton args_{n_args}", n_args, "CUDA graph", us, us / reference])
    return table(
        [label("kernel", "kernel"), label("arguments", "参数个数"), label("launched by", "启动方式"),
         label("µs per launch (median)", "每次启动的微秒数（中位数）"),
         label("ratio to torch x.add_(1) eager", "相对 torch x.add_(1) eager 的倍数")],
        rows,
        calls=1000,
        repeats=7,
        graph_launches=GRAPH_LAUNCHES,
    )


@gpu_evidence("launch-time-against-size")
def launch_time_against_size():
    """µs per call of the page's scale kernel (one launch, BLOCK 1024) and of torch's x * 2, against size.

    Same timer as above: 1000 back-to-back calls into a preallocated output, synchronised at the
    end, median of 7. Both outputs are checked against x * 2 first.
    """
    import torch
    import triton

    rows = []
    for n in (2**7, 2**10, 2**13, 2**16, 2**19, 2**22):
        x = torch.randn(n, device="cuda")
        out = torch.full_like(x, float("nan"))
        grid = (triton.cdiv(n, 1024),)
        candidates = [
            ("triton scale_kernel", lambda: entry.scale_kernel[grid](x, out, n, BLOCK=1024)),
            ("torch.mul(x, 2, out=out)", lambda: torch.mul(x, 2, out=out)),
        ]
        for name, fn in candidates:
            out.fill_(float("nan"))
            fn()
            if not torch.equal(out, x * 2):
                raise AssertionError(f"{name} did not compute x * 2 at n={n}")
            rows.append([n, name, entry.us_per_launch(fn)])
    return table(
        [label("elements (float32)", "元素数（float32）"), label("call", "调用"),
         label("µs per call (median)", "每次调用的微秒数（中位数）")],
        rows,
        calls=1000,
        repeats=7,
    )
