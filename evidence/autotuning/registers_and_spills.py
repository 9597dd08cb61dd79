"""TP020's GPU evidence (`triton-faq bench`): what a launch's CompiledKernel and an Autotuner report."""

from snippets.autotuning import registers_and_spills as entry
from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import fresh_randn, poisoned


@gpu_evidence("compiled-kernel-resources")
def observe_compiled_kernel_resources():
    """What the CompiledKernel returned by a launch of matmul_tile reports, per tile and num_warps."""
    rows = []
    for block, num_warps in [(64, 4), (128, 1), (128, 4), (128, 8)]:
        ret, _, _, _ = entry.launch_tile(block=block, num_warps=num_warps)
        rows.append([f"{block}×{block}", num_warps, ret.n_regs, ret.n_spills, ret.metadata.shared,
                     ret.metadata.num_warps, ret.metadata.num_stages])
    return table(
        [label("tile (fp32 accumulator)", "tile（fp32 累加器）"), label("num_warps asked", "传入的 num_warps"),
         label("n_regs", "n_regs"), label("n_spills", "n_spills"), label("metadata.shared (bytes)", "metadata.shared（字节）"),
         label("metadata.num_warps", "metadata.num_warps"), label("metadata.num_stages", "metadata.num_stages")],
        rows,
    )


@gpu_evidence("configs-timings")
def observe_configs_timings():
    """The Autotuner's configs_timings after tuning `scale` on the test's 1000 elements."""
    tuner = entry.tuned_scale(fresh_randn(1000), poisoned(1000))
    rows = [[str(config), *timing, config == tuner.best_config] for config, timing in tuner.configs_timings.items()]
    return table(
        [label("Config", "Config"), label("[0]: median ms", "[0]：中位数 毫秒"), label("[1]: p20 ms", "[1]：p20 毫秒"),
         label("[2]: p80 ms", "[2]：p80 毫秒"), label("== best_config", "== best_config")],
        rows,
    )
