"""TP051's GPU evidence (`triton-faq bench`): the order compiled code gives to a reordering cat and reshape."""

from snippets.language import cat_and_view_reorder_elements as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("reorder-order")
def observe_reorder_order():
    """Where each element lands: inputs 0, 1, 2, ... so the output lists the source index of every position."""
    import torch

    def describe(out, n_total):
        order = [int(v) for v in out.reshape(-1).tolist()]
        return [order == list(range(n_total)), sorted(order) == list(range(n_total)), " ".join(map(str, order[:32]))]

    rows = []
    for n in (4, 16, 128):
        x = torch.arange(0.0, n, device="cuda").reshape(1, n)
        y = torch.arange(float(n), 2.0 * n, device="cuda").reshape(1, n)
        rows.append([f"tl.cat(can_reorder=True), 2 × {n}"] + describe(entry.cat_rows(entry.cat_pitfall, x, y), 2 * n))
        rows.append([f"join + permute + reshape, 2 × {n}"] + describe(entry.cat_rows(entry.cat_fixed, x, y), 2 * n))
    for shape in ((4, 8), (8, 16), (32, 32)):
        tile = torch.arange(float(shape[0] * shape[1]), device="cuda").reshape(shape)
        rows.append([f"reshape(can_reorder=True), {shape[0]} × {shape[1]}"]
                    + describe(entry.flatten(entry.flatten_pitfall, tile), tile.numel()))
        rows.append([f"reshape, {shape[0]} × {shape[1]}"] + describe(entry.flatten(entry.flatten_fixed, tile), tile.numel()))
    return table(
        [label("operation", "操作"), label("order kept", "顺序保持不变"), label("every element present", "元素一个不少"),
         label("source index of the first 32 positions", "前 32 个位置上元素的来源下标")],
        rows,
    )
