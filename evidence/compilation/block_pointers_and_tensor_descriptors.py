"""TP032's GPU evidence (`triton-faq bench`): the speed of a 1 GiB copy in each of the four forms."""

from snippets.compilation import block_pointers_and_tensor_descriptors as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)

N_SIDE = 16384  # 16384 x 16384 float32 = 1 GiB per tensor


@gpu_evidence("copy-forms")
def measure_copy_forms():
    """A 1 GiB 2-D float32 copy in the four forms, next to torch's copy_ (the reference)."""
    import torch

    ceiling = copy_ceiling_gbps()
    x = torch.randn(N_SIDE, N_SIDE, device="cuda")
    y = torch.empty_like(x)
    bytes_moved = 2 * x.numel() * x.element_size()
    rows = []
    for form in ("pointers", "block_ptr", "device_descriptor", "host_descriptor"):
        y.fill_(float("nan"))
        entry.copy(x, y, form, 64, 64)
        assert torch.equal(x, y), form
        timing = median_ms(lambda: entry.copy(x, y, form, 64, 64))
        rows.append([form, *memory_bound_cells(timing, bytes_moved, ceiling)])
    timing = median_ms(lambda: y.copy_(x))
    rows.append(["torch copy_", *memory_bound_cells(timing, bytes_moved, ceiling)])
    return table([label("form", "写法", "form"), *memory_bound_columns()], rows,
                 ceiling_gbps=ceiling, n_elements=x.numel(), block="64 x 64")
