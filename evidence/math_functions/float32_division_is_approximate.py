"""TP068's GPU evidence (`triton-faq bench`): how far each division is from the correctly rounded quotient, and its time."""

from snippets.math_functions import float32_division_is_approximate as entry
from triton_faq.evidence import gpu_evidence, label, median_ms, table

N = 1 << 26  # 64 Mi quotients: 768 MiB read and written, far beyond the L2 cache


@gpu_evidence("division-ulps")
def division_ulps():
    """On 2**26 quotients of randn / randn: how many are not correctly rounded, the worst ulp distance, the time."""
    import torch

    generator = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(N, device="cuda", generator=generator)
    y = torch.randn(N, device="cuda", generator=generator)
    runs = {
        "x / y (Triton)": lambda: entry.launch(entry.divide, x, y),
        "tl.math.div_rn(x, y) (Triton)": lambda: entry.launch(entry.divide_rn, x, y),
        "x / y (torch)": lambda: x / y,
    }
    rows = []
    for name, run in runs.items():
        off = entry.ulps_off(run(), x, y)
        histogram = torch.bincount(off.clamp_max(3)).tolist() + [0] * 4
        timing = median_ms(run)
        rows.append([name, int((off > 0).sum()), histogram[1], histogram[2], int(off.max()), timing["median_ms"]])
    columns = [label("division", "除法", "division"),
               label(f"not correctly rounded (of {N:,})", f"未正确舍入（共 {N:,} 个）", "wrong"),
               label("1 ulp off", "差 1 ulp", "one_ulp"), label("2 ulp off", "差 2 ulp", "two_ulp"),
               label("worst, ulp", "最大误差（ulp）", "max_ulp"),
               label("median ms (with the NaN fill)", "中位数 毫秒（含 NaN 预填充）", "time_ms")]
    return table(columns, rows, n=N)
