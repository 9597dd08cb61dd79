"""TP054's GPU evidence (`triton-faq bench`): reverse=True against index math, for a non-commutative combine."""

from snippets.reductions import scan_direction_and_combine as entry
from triton_faq.evidence import gpu_evidence, label, table

CASES = ((4, 4), (32, 1), (128, 4), (1024, 1), (1024, 8))


@gpu_evidence("reverse-scan")
def observe_reverse_scan():
    """Relative error, against the float64 right-to-left recurrence, of reverse=True and of the index-math fix."""
    import torch

    def relative_error(h, reference):
        h = h.cpu().double()
        return float((h - reference).norm() / reference.norm())

    rows = []
    generator = torch.Generator().manual_seed(0)
    for n, num_warps in CASES:
        a = torch.sigmoid(torch.randn(4, n, generator=generator)).to("cuda")
        x = torch.randn(4, n, generator=generator).to("cuda")
        reference = entry.recurrence_reference(a, x, reverse=True)
        flag = entry.run_recurrence(entry.recurrence_reverse_flag, a, x, num_warps=num_warps)
        index_math = entry.run_recurrence(entry.recurrence, a, x, REVERSE=True, num_warps=num_warps)
        rows.append([n, num_warps, relative_error(flag, reference), relative_error(index_math, reference)])
    return table(
        [label("N", "N"), label("num_warps", "num_warps"),
         label("reverse=True: relative error", "reverse=True：相对误差"),
         label("index math: relative error", "下标反转：相对误差")],
        rows,
    )
