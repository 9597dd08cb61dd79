"""TP028's GPU evidence (`triton-faq bench`): how much one call of an autotuned in-place kernel adds."""

from snippets.autotuning import in_place_kernel_autotuning as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("in-place-runs")
def observe_in_place_runs():
    """How much one call of the autotuned x += 1 adds, with Triton's default do_bench, for a few n."""
    import torch

    rows = []
    for n in (4096, 2**20, 2**24):
        for name, kernel in (("add_one_tuned", entry.add_one_tuned),
                             ('add_one_restored (restore_value=["x_ptr"])', entry.add_one_restored)):
            x = torch.zeros(n, device="cuda")
            kernel[entry.grid(n)](x, n)
            first = x.clone()
            kernel[entry.grid(n)](x, n)
            if not torch.equal(first, torch.full_like(first, first[0].item())):
                raise AssertionError(f"{name}, n={n}: elements got different counts")
            rows.append([name, n, first[0].item(), (x - first)[0].item(), str(kernel.best_config)])
    return table(
        [label("kernel", "kernel"), label("n", "n"),
         label("added by the first call (tunes)", "第一次调用（调优）加了多少"),
         label("added by the second call (cached)", "第二次调用（命中缓存）加了多少"),
         label("config picked", "选中的配置")],
        rows,
    )
