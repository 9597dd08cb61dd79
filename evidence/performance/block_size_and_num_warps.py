"""TP010's GPU evidence (`triton-faq bench`): the (BLOCK, num_warps) grid, and the autotuner next to the best pair.

Every fraction is of torch's copy_ of 1 GiB measured in the same run (`copy_ceiling_gbps`): a
measured reference, not a physical bound.
"""

import functools

import torch
import triton

from snippets.performance import block_size_and_num_warps as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)

N = 2**28  # float32: 1 GiB in, 1 GiB out
EVIDENCE_BLOCKS = [256, 512, 1024, 2048, 4096, 8192]
EVIDENCE_WARPS = [1, 2, 4, 8, 16]
BYTES_MOVED = 2 * N * 4  # every float32 read once and written once


def tuned_grid(meta):
    return (triton.cdiv(N, meta["BLOCK"]),)


@functools.cache
def measured_sweep():
    """Median timings of every (BLOCK, num_warps) pair, the autotuner's pick on N, and torch's copy."""
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    expected = x * 2 + 1
    timings = {}
    for block in EVIDENCE_BLOCKS:
        grid = (triton.cdiv(N, block),)
        for warps in EVIDENCE_WARPS:
            y.fill_(float("nan"))
            timings[(block, warps)] = median_ms(
                lambda: entry.scale_shift_kernel[grid](x, y, N, BLOCK=block, num_warps=warps))
            if not torch.equal(y, expected):
                raise AssertionError(f"BLOCK={block}, num_warps={warps} wrote a wrong result")
    entry.scale_shift_tuned[tuned_grid](x, y, N)  # the autotuner times its configs on this n
    best = entry.scale_shift_tuned.best_config
    return {"ceiling": ceiling, "timings": timings, "autotuned": (best.kwargs["BLOCK"], best.num_warps)}


@gpu_evidence("block-size-sweep")
def block_size_sweep():
    """GB/s of the plain kernel for each (BLOCK, num_warps) on 2**28 float32, with the autotuner's pick marked."""
    measured = measured_sweep()
    rows = [
        [block, warps, (block, warps) == measured["autotuned"],
         *memory_bound_cells(timing, BYTES_MOVED, measured["ceiling"])]
        for (block, warps), timing in measured["timings"].items()
    ]
    return table(
        [label("BLOCK", "BLOCK", "block"), label("num_warps", "num_warps", "num_warps"),
         label("picked by @triton.autotune", "@triton.autotune 选中的配置", "autotuned"), *memory_bound_columns()],
        rows,
        chart={"x": "block", "y": "gbps", "series": "num_warps", "mark": "autotuned"},
        ceiling_gbps=measured["ceiling"],
        n_elements=N,
    )


@gpu_evidence("autotuned-vs-best")
def autotuned_vs_best():
    """The autotuned kernel, the best pair of the sweep and eager PyTorch, timed again side by side."""
    timings = measured_sweep()["timings"]
    best_block, best_warps = min(timings, key=lambda config: timings[config]["median_ms"])
    tuned_block, tuned_warps = measured_sweep()["autotuned"]
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    candidates = [
        ("scale_shift_tuned (@triton.autotune)", tuned_block, tuned_warps,
         lambda: entry.scale_shift_tuned[tuned_grid](x, y, N)),
        ("scale_shift_kernel (best of the sweep)", best_block, best_warps,
         lambda: entry.scale_shift_kernel[(triton.cdiv(N, best_block),)](x, y, N, BLOCK=best_block,
                                                                          num_warps=best_warps)),
        ("torch eager: x * 2 + 1", "-", "-", lambda: x * 2 + 1),
    ]
    rows = [[name, block, warps, *memory_bound_cells(median_ms(fn), BYTES_MOVED, ceiling)]
            for name, block, warps, fn in candidates]
    return table(
        [label("implementation", "实现", "implementation"), label("BLOCK", "BLOCK", "block"),
         label("num_warps", "num_warps", "num_warps"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=N,
    )
