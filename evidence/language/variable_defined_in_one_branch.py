"""TP041's GPU evidence (`triton-faq bench`): what the H200 stores for a loop variable read after the loop."""

from snippets.language import variable_defined_in_one_branch as entry
from triton_faq.evidence import gpu_evidence, label, table

ROWS = (1, 4, 100)


@gpu_evidence("loop-variable-after-loop")
def observe_loop_variable_after_the_loop():
    """`tl.store(last_ptr, r)` after `for r in range(n_rows)`, compiled; the buffer holds -7 before the launch."""
    import torch

    rows = []
    for kernel in (entry.column_mean_last_row_pitfall, entry.column_mean_last_row_prebound,
                   entry.column_mean_last_row_fixed):
        for n_rows in ROWS:
            x = torch.randn(n_rows, 16, device="cuda")
            _, stored = entry.column_mean_and_last_row(kernel, x)
            rows.append([kernel.fn.__name__, n_rows, n_rows - 1, stored])
    return table(
        [label("kernel", "kernel"), label("n_rows", "n_rows"),
         label("last index (Python, the interpreter)", "最后一个下标（Python、解释器）"),
         label("stored on the GPU", "GPU 上写入的值")],
        rows,
    )
