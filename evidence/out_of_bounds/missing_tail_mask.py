"""TP003's GPU evidence (`triton-faq bench`): what an unmasked last block leaves after the output."""

import triton

from snippets.out_of_bounds import missing_tail_mask as entry
from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import fresh_randn


@gpu_evidence("tail-overrun")
def observe_tail_overrun():
    """What each kernel leaves in outbuf[N:] on the GPU (NaN before; xbuf[N:] holds 1000, 1001, ...)."""
    import torch

    rows = []
    cases = [("add_one_pitfall", entry.add_one_pitfall, n) for n in (10, 13, 16)]
    cases += [("add_one_load_masked", entry.add_one_load_masked, 10), ("add_one", entry.add_one, 10)]
    for name, kernel, n in cases:
        x, outbuf = entry.guarded_launch(kernel, fresh_randn(n), block_size=8)
        after = outbuf[n:].cpu()
        written = int((~torch.isnan(after)).sum())
        rows.append([f"`{name}`", n, 8, triton.cdiv(n, 8) * 8 - n, [str(v) for v in after[:8].tolist()], written])
    return table(
        [label("kernel", "内核"), label("N", "N"), label("BLOCK_SIZE", "BLOCK_SIZE"),
         label("offsets of the last block past N", "最后一个块越过 N 的偏移数"),
         label("outbuf[N:N+8] after the launch", "启动后的 outbuf[N:N+8]"),
         label("elements of outbuf[N:] no longer NaN", "outbuf[N:] 中不再是 NaN 的元素数")],
        rows,
    )
