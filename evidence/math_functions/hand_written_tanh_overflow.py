"""TP022's GPU evidence (`triton-faq bench`): each tanh on both sides of the overflow edge, and on 2**28 values."""

import math

from snippets.math_functions import hand_written_tanh_overflow as entry
from triton_faq.evidence import (
    copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells, memory_bound_columns, table,
)

VARIANTS = {  # name in the evidence tables: its Triton kernel
    "hand_written_formula": entry.tanh_kernel,
    "stable_formula": entry.tanh_stable_kernel,
    "libdevice_tanh": entry.tanh_libdevice_kernel,
}


def as_json_number(value: float):
    """A float for the data file, with NaN and infinities as the strings "nan", "inf" and "-inf"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


@gpu_evidence("tanh-edge-values")
def observe_edge_values():
    """What each tanh returns on the GPU on both sides of the 44.36 edge, from -inf to +inf."""
    import torch

    x = entry.edges()
    outputs = {name: entry.launch(kernel, x).cpu().tolist() for name, kernel in VARIANTS.items()}
    outputs["torch_tanh"] = torch.tanh(x).cpu().tolist()
    rows = [[as_json_number(value)] + [as_json_number(outputs[name][i]) for name in outputs]
            for i, value in enumerate(x.cpu().tolist())]
    return table([label("x", "x", "x")] + [label(name, name, name) for name in outputs], rows)


N_BENCH = 2**28  # 1 GiB of float32 in, 1 GiB out: far beyond the L2 cache
N_SAMPLE = 2**20  # the first elements, compared with float64
BENCH_BLOCK = 1024


def torch_tanh(x):
    import torch

    return torch.tanh(x)


@gpu_evidence("tanh-variants")
def benchmark_variants():
    """Time, accuracy and NaN count of each tanh on 2**28 values of randn * 4."""
    import torch
    import torch._dynamo
    import triton

    reference_gbps = copy_ceiling_gbps()  # torch's copy_ measured now: a reference, not a bound
    x = torch.randn(N_BENCH, device="cuda").mul_(4)
    out = torch.empty_like(x)
    reference = torch.tanh(x[:N_SAMPLE].double())
    grid = (triton.cdiv(N_BENCH, BENCH_BLOCK),)

    def triton_run(kernel):
        def run():
            kernel[grid](x, out, N_BENCH, BLOCK_SIZE=BENCH_BLOCK)
            return out
        return run

    compiled = torch.compile(torch_tanh, fullgraph=True)
    runs = {name: triton_run(kernel) for name, kernel in VARIANTS.items()}
    runs["torch_tanh"] = lambda: torch.tanh(x, out=out)
    runs["torch_compile_tanh"] = lambda: compiled(x)
    rows = []
    with torch._dynamo.config.patch(suppress_errors=False):  # a torch.compile failure raises
        for name, run in runs.items():
            run()  # compiles
            timing = median_ms(run)
            y = run()
            error = (y[:N_SAMPLE].double() - reference).abs().max().item()
            nan_count = int(torch.isnan(y).sum().item())
            rows.append([name, *memory_bound_cells(timing, 2 * 4 * N_BENCH, reference_gbps), as_json_number(error),
                         nan_count])
    timing_columns = memory_bound_columns()[:-1] + [
        label("fraction of torch's copy (reference)", "占 torch 拷贝（参考值）的比例", "fraction_of_ceiling")]
    columns = [label("implementation", "实现", "implementation"), *timing_columns,
               label(f"max abs error vs float64 (first {N_SAMPLE:,})", f"与 float64 的最大绝对误差（前 {N_SAMPLE:,} 个）",
                     "max_abs_error"),
               label(f"NaN count (of {N_BENCH:,})", f"NaN 个数（共 {N_BENCH:,} 个）", "nan_count")]
    return table(columns, rows, ceiling_gbps=reference_gbps, n_elements=N_BENCH, sample_elements=N_SAMPLE,
                 block=BENCH_BLOCK)
