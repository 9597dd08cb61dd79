"""TP088's GPU evidence (`triton-faq bench`): what each atomic pattern costs next to its fix and torch's own op."""

import torch

from snippets.performance import atomic_add_is_slow as entry
from triton_faq.evidence import gpu_evidence, label, median_ms, table

N = 2**26  # float32 values and int32 indices: 512 MiB together, far beyond L2


def check_results(n=2**22):
    """Every kernel timed is right first, on fresh random inputs: the scatter-adds against float64,
    the histograms equal to torch.bincount."""
    x = torch.randn(n, device="cuda")
    for size in (2**20, 256):
        index = torch.randint(0, size, (n,), device="cuda", dtype=torch.int32)
        reference = torch.zeros(size, dtype=torch.float64, device="cuda").index_add_(0, index.long(), x.double())
        for kernel in (entry.scatter_add_pitfall, entry.scatter_add_fixed):
            got = entry.scatter_add(kernel, x, index, size).double()
            error = ((got - reference).norm() / reference.norm()).item()
            if not error < 1e-5:
                raise AssertionError(f"{kernel.__name__} into {size} rows: relative error {error:.1e} against float64")
    index = torch.randint(0, 16, (n,), device="cuda", dtype=torch.int32)
    for kernel in (entry.histogram_pitfall, entry.histogram_fixed):
        if not torch.equal(entry.histogram(kernel, index, 16).long(), torch.bincount(index.long(), minlength=16)):
            raise AssertionError(f"{kernel.__name__} differs from torch.bincount")


IMPLEMENTATIONS_ZH = {"default sem": "默认 sem", "one add per element": "每个元素一次 add",
                      "tl.histogram, one add per bin": "tl.histogram，每个 bin 一次 add"}


def in_chinese(workload: str) -> str:
    """compare_speed's workload names, for the Chinese page."""
    import re

    values, into, unit = re.fullmatch(r"(?:scatter-add|histogram) of ([\d,]+) values into ([\d,]+) (rows|bins)",
                                      workload).groups()
    if unit == "rows":
        return f"把 {values} 个值 scatter-add 到 {into} 行"
    return f"{values} 个值的直方图，{into} 个 bin"


@gpu_evidence("atomic-costs")
def atomic_costs():
    """The reader's file's `compare_speed`, each launch timed by `median_ms`. The last column divides
    by the time of torch's own op for the same workload, measured in the same run: a reference, not
    a bound."""
    check_results()
    timings = entry.compare_speed(N, timer=median_ms)
    torch_ms = {workload: timing["median_ms"] for (workload, name), timing in timings.items()
                if name.startswith("torch")}
    rows = [[label(workload, in_chinese(workload)), label(name, IMPLEMENTATIONS_ZH.get(name, name)),
             timing["p20_ms"], timing["median_ms"], timing["p80_ms"], timing["median_ms"] / torch_ms[workload]]
            for (workload, name), timing in timings.items()]
    return table(
        [label("workload", "工作负载", "workload"), label("implementation", "实现", "implementation"),
         label("p20 ms", "p20 毫秒", "p20_ms"), label("median ms", "中位数 毫秒", "median_ms"),
         label("p80 ms", "p80 毫秒", "p80_ms"),
         label("time / torch's (reference)", "耗时 / torch 的（参考值）", "over_torch")],
        rows,
        n_elements=N,
    )
