"""TP069's GPU evidence (`triton-faq bench`): what each softmax gives for a fully masked row, compiled for the GPU."""

from snippets.reductions import softmax_nan_on_a_fully_masked_row as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("fully-masked-row")
def fully_masked_row():
    """8 rows of 1000 scores, rows 2 and 5 entirely masked out: NaN counts of the forward and the backward, and
    how many of the masked rows' probabilities are exactly 0."""
    import torch

    generator = torch.Generator(device="cuda").manual_seed(0)
    s = torch.randn(8, 1000, device="cuda", generator=generator)
    dp = torch.randn(8, 1000, device="cuda", generator=generator)
    keep = (torch.rand(8, 1000, device="cuda", generator=generator) > 0.3).to(torch.int32)
    keep[[2, 5]] = 0
    rows = []
    for name, kernel in (("without the guard", entry.masked_softmax), ("guarded", entry.masked_softmax_safe)):
        p, lse = entry.softmax(kernel, s, keep)
        ds = entry.backward(s, keep, lse, dp)
        rows.append([name, int(p[[2, 5]].isnan().sum()), int(p[[0, 1, 3, 4, 6, 7]].isnan().sum()),
                     int(ds[[2, 5]].isnan().sum()), int((p[[2, 5]] == 0).sum())])
    columns = [label("softmax", "softmax", "kernel"),
               label("NaN in the masked rows (of 2,000)", "全被掩码的行中的 NaN（共 2,000 个）", "nan_masked"),
               label("NaN in the other rows", "其余行中的 NaN", "nan_other"),
               label("NaN in the masked rows' gradient", "全被掩码的行的梯度中的 NaN", "nan_grad"),
               label("zeros in the masked rows (of 2,000)", "全被掩码的行中的 0（共 2,000 个）", "zero_masked")]
    return table(columns, rows)


@gpu_evidence("float16-without-max")
def float16_without_max():
    """4 rows of 4096 float16 scores of 12 (exp(12) > 65504): NaN counts without and with the max subtracted."""
    import torch

    half = torch.full((4, 4096), 12.0, dtype=torch.float16, device="cuda")
    no_max = entry.softmax_no_max(half)
    safe, _ = entry.softmax(entry.masked_softmax_safe, half, torch.ones_like(half, dtype=torch.int32))
    rows = [["exp(s) / sum(exp(s)) in float16", int(no_max.isnan().sum())],
            ["guarded, max subtracted, float32", int(safe.isnan().sum())]]
    return table([label("softmax", "softmax", "kernel"), label("NaN (of 16,384)", "NaN（共 16,384 个）", "nan")], rows)
