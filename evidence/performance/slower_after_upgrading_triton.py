"""TP073's GPU evidence (`triton-faq bench`): the frozen config against the others on this release."""

import triton

from snippets.performance import slower_after_upgrading_triton as entry
from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import fresh_randn


@gpu_evidence("configs-on-this-release")
def observe_configs_on_this_release():
    """Each config of the autotuner's list on a 4096 x 4096 x 4096 float16 matmul: registers, spills,
    the median time (do_bench), and which config the autotuner picks."""
    M = N = K = 4096
    a, b = fresh_randn(M, K).half(), fresh_randn(K, N).half()
    rows = []
    for config in entry.CONFIGS:
        meta = dict(config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)
        _, compiled = entry.matmul(a, b, meta)
        ms = triton.testing.do_bench(lambda: entry.matmul(a, b, meta), return_mode="median")
        rows.append([f"{meta['BLOCK_M']}×{meta['BLOCK_N']}×{meta['BLOCK_K']}", meta["num_warps"], meta["num_stages"],
                     compiled.n_regs, compiled.n_spills, round(ms * 1000, 1),
                     round(2 * M * N * K / ms / 1e9, 1), meta == entry.TUNED])
    entry.matmul(a, b)  # the autotuner tunes once for this shape
    best = entry.autotuned().best_config
    picked = f"{best.kwargs['BLOCK_M']}×{best.kwargs['BLOCK_N']}×{best.kwargs['BLOCK_K']}"
    for row in rows:
        row.append(row[0] == picked and row[1] == best.num_warps and row[2] == best.num_stages)
    return table(
        [label("tile", "tile"), label("num_warps", "num_warps"), label("num_stages", "num_stages"),
         label("n_regs", "n_regs"), label("n_spills", "n_spills"), label("median µs", "中位数 µs"),
         label("TFLOP/s", "TFLOP/s"), label("the frozen config", "冻结的配置"), label("autotuner's pick", "autotuner 选中")],
        rows,
    )
