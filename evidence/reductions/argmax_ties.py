"""TP034's GPU evidence (`triton-faq bench`): what tl.argmax returns on CUDA for rows holding a NaN."""

from snippets.reductions import argmax_ties as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("nan-argmax")
def observe_nan_argmax():
    """What tl.argmax returns on CUDA for rows holding a NaN, next to torch.argmax."""
    import torch

    x = torch.tensor(entry.WITH_NAN, device=entry.DEVICE)
    triton_rows = entry.argmax_rows(entry.row_argmax, x)
    torch_rows = torch.argmax(x, dim=1).tolist()
    rows = [[str(entry.WITH_NAN[i]), triton_rows[i], torch_rows[i]] for i in range(len(entry.WITH_NAN))]
    return table([label("row", "行", "row"), label("tl.argmax", "tl.argmax", "triton"),
                  label("torch.argmax", "torch.argmax", "torch")], rows)
