"""TP009's GPU evidence (`triton-faq bench`): the loads a launch compiled, and its bandwidth, aligned or not."""

import re

import torch
import triton

from snippets.performance import block_size_power_of_two as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)


@gpu_evidence("vector-loads")
def vector_loads():
    """Loads in the PTX and SASS the launch compiled, and the bandwidth, for an aligned and an offset input.

    The reference is torch's copy_ of 1 GiB measured in the same run (`copy_ceiling_gbps`): a
    measured reference, not a physical bound.
    """
    n = 2**28  # float32: 1 GiB, far beyond L2
    ceiling = copy_ceiling_gbps()
    inputs = [
        ("aligned: torch.randn(n)", torch.randn(n, device="cuda")),
        ("offset: torch.randn(n + 1)[1:]", torch.randn(n + 1, device="cuda")[1:]),
    ]
    y = torch.empty(n, device="cuda")
    rows = []
    for name, x in inputs:
        compiled = entry.launch_and_get_compiled(x)
        loads = sorted(set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])))
        timing = median_ms(lambda: entry.scale_shift[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024))  # as the helper launches
        rows.append([name, x.data_ptr() % 16, loads, "LDG.E.128" in compiled.asm["sass"],
                     *memory_bound_cells(timing, 2 * n * 4, ceiling)])
    return table(
        [label("input x", "输入 x", "input"), label("x.data_ptr() % 16", "x.data_ptr() % 16", "misalignment"),
         label("ld.global in the PTX", "PTX 中的 ld.global", "ptx_loads"),
         label("LDG.E.128 in the SASS", "SASS 中有 LDG.E.128", "ldg_e_128"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=n,
    )
