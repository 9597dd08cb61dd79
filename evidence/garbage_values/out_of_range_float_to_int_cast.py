"""TP052's GPU evidence (`triton-faq bench`): what compiled code gives for out-of-range float -> int8 casts."""

from snippets.garbage_values import out_of_range_float_to_int_cast as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("int8-casts")
def observe_int8_casts():
    """`x.to(tl.int8)` (the pitfall) and the clamped cast (the fix) for each special value, per input dtype."""
    import torch

    rows = []
    for name in ("float32", "float16"):
        x = torch.tensor(entry.SPECIAL, dtype=getattr(torch, name), device="cuda")
        pitfall = entry.to_int8(entry.to_int8_pitfall, x).tolist()
        fixed = entry.to_int8(entry.to_int8_saturating, x).tolist()
        for value, wrong, right in zip(entry.SPECIAL, pitfall, fixed):
            rows.append([name, str(value), wrong, right])
    return table(
        [label("input dtype", "输入 dtype"), label("value", "值"),
         label("x.to(tl.int8)", "x.to(tl.int8)"), label("clamped, NaN → 0", "先截断到范围内、NaN → 0")],
        rows,
    )
