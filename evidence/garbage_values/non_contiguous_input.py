"""TP026's GPU evidence (`triton-faq bench`): what `.contiguous()` costs against passing the strides."""

import triton

from snippets.garbage_values import non_contiguous_input as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)


def columns():
    """The standard memory-bound columns; the last one is relative to torch's copy_, a measured reference."""
    cols = memory_bound_columns()
    cols[-1] = label("fraction of torch's copy (reference)", "占 torch 拷贝（参考值）的比例", "fraction_of_ceiling")
    return cols


@gpu_evidence("contiguous-vs-strided")
def measure_contiguous_vs_strided():
    """2 * x.t() for a 1 GiB float32 x: .contiguous() + flat kernel vs the stride-aware kernel."""
    import torch

    side = 16384  # 16384 * 16384 float32 = 1 GiB per tensor, far beyond the 60 MB L2
    a = torch.randn(side, side, device="cuda")
    x = a.t()
    out = torch.empty(side, side, device="cuda")
    n = a.numel()
    useful_bytes = 2 * a.numel() * a.element_size()  # read x once, write out once
    reference_gbps = copy_ceiling_gbps()  # torch's copy_ of 1 GiB, measured now: a reference, not a limit

    # every way must give the same right answer before it is timed
    reference = 2 * x
    assert torch.equal(entry.double_contiguous(x), reference)
    assert torch.equal(entry.double_strided(x, out, block=64), reference)
    del reference

    def contiguous_then_flat():
        xc = x.contiguous()
        entry.double_flat[(triton.cdiv(n, 1024),)](xc, out, n, BLOCK=1024)

    ways = [  # names in code, the same on both pages
        ("double_flat(a): contiguous a, no transpose",
         lambda: entry.double_flat[(triton.cdiv(n, 1024),)](a, out, n, BLOCK=1024)),
        ("x.contiguous() + double_flat", contiguous_then_flat),
        ("x.contiguous() alone", lambda: x.contiguous()),
        ("double_2d(x), 64×64 tiles", lambda: entry.double_strided(x, out, block=64)),
        ("torch.mul(x, 2, out=out)", lambda: torch.mul(x, 2.0, out=out)),
    ]
    rows = [[name, *memory_bound_cells(median_ms(fn), useful_bytes, reference_gbps)] for name, fn in ways]
    return table([label("what runs (x = a.t(), 1 GiB float32)", "运行的内容（x = a.t()，1 GiB float32）")]
                 + columns(), rows, ceiling_gbps=reference_gbps, useful_bytes=useful_bytes)
