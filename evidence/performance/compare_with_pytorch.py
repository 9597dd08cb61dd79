"""TP011's GPU evidence (`triton-faq bench`): the fused kernel, eager PyTorch and torch.compile, next to torch's copy."""

import torch

from snippets.performance import compare_with_pytorch as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)

N = 2**28  # float32: 1 GiB, far beyond L2


@gpu_evidence("fused-vs-eager")
def fused_vs_eager():
    """The fused kernel, eager PyTorch and torch.compile of the same function on 2**28 float32.

    The reference is torch's copy_ of 1 GiB measured in the same run (`copy_ceiling_gbps`): a
    measured reference, not a physical bound.
    """
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N, device="cuda")
    y = torch.empty_like(x)
    compiled = torch.compile(entry.scale_shift_eager, fullgraph=True)  # a graph break or compile error raises
    expected = entry.scale_shift_eager(x)
    if not torch.equal(compiled(x), expected):  # the first call compiles, outside the timing
        raise AssertionError("torch.compile of x * 2 + 1 gave a different result from eager")
    candidates = [
        ("triton fused", lambda: entry.scale_shift_triton(x, y)),
        ("torch eager", lambda: entry.scale_shift_eager(x)),
        ("torch.compile", lambda: compiled(x)),
    ]
    bytes_moved = 2 * N * 4  # the least any implementation must move: read x once, write y once
    rows = [[name, *memory_bound_cells(median_ms(fn), bytes_moved, ceiling)] for name, fn in candidates]
    return table(
        [label("implementation", "实现", "implementation"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=N,
    )
