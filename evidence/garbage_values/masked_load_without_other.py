"""TP001's GPU evidence (`triton-faq bench`): what compiled code leaves in masked lanes."""

from snippets.garbage_values import masked_load_without_other as entry
from triton_faq.evidence import gpu_evidence, label, table

DTYPES = ("float32", "float16", "int32")


@gpu_evidence("masked-lanes")
def observe_masked_lanes():
    """Masked lanes of a load without `other`, with a sentinel of 77 in the memory behind them."""
    import torch

    rows = []
    for name in DTYPES:
        values = entry.masked_lane_values(getattr(torch, name))
        rows.append([name, sorted(set(values.tolist())), bool((values == 77).any())])
    return table(
        [label("dtype", "dtype"), label("values in the 11 masked lanes", "11 个被掩掉位置上的值"),
         label("sentinel 77 read from memory", "读到了内存里的哨兵值 77")],
        rows,
    )
