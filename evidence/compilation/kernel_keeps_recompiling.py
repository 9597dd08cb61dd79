"""TP029's GPU evidence (`triton-faq bench`): compiled variants and call times over a sweep of n."""

import os
import statistics
import tempfile
import time

from snippets.compilation import kernel_keeps_recompiling as entry
from triton_faq.evidence import gpu_evidence, label, table

SWEEP = [1, 1000, 1001, 1002, 1003, 1008, 1024, 2000, 2048, 3001]


def _empty_disk_cache(run):
    """Run `run()` with TRITON_CACHE_DIR in a new empty folder: no binaries from earlier runs."""
    saved = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["TRITON_CACHE_DIR"] = cache_dir
        try:
            return run()
        finally:
            if saved is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = saved


def sweep_rows():
    import torch

    kernels = [entry.fresh_copy(k) for k in (entry.add_one, entry.add_one_n_constexpr, entry.add_one_any_n)]
    rows = []
    for n in SWEEP:
        x = torch.zeros(n, device="cuda")
        row = [n, n == 1, n % 16 == 0]
        for kernel in kernels:
            torch.cuda.synchronize()
            start = time.perf_counter()
            out = entry.launch(kernel, x)
            torch.cuda.synchronize()
            row += [(time.perf_counter() - start) * 1e3, entry.compiled_variants(kernel)]
            if not torch.equal(out, x + 1):
                raise AssertionError(f"n={n}: wrong result")
        rows.append(row)
    return rows


@gpu_evidence("variants-over-a-sweep")
def variants_over_a_sweep():
    """Compiled variants and first-call wall time of three kernels over a sweep of n (empty disk cache)."""
    rows = _empty_disk_cache(sweep_rows)
    columns = [label("n", "n"), label("n == 1", "n == 1"), label("n % 16 == 0", "n % 16 == 0")]
    for name in ("add_one (int n)", "add_one_n_constexpr (n: tl.constexpr)", 'add_one_any_n (do_not_specialize=["n"])'):
        columns += [label(f"{name}: call ms", f"{name}：本次调用 毫秒"),
                    label(f"{name}: variants so far", f"{name}：累计编译版本数")]
    return table(columns, rows)


def first_and_later_rows():
    import torch

    rows = []
    for name, kernel in (("add_one", entry.add_one), ("add_one_any_n", entry.add_one_any_n)):
        kernel = entry.fresh_copy(kernel)
        x = torch.zeros(1 << 20, device="cuda")
        times = []
        for _ in range(51):
            torch.cuda.synchronize()
            start = time.perf_counter()
            entry.launch(kernel, x)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - start) * 1e3)
        rows.append([name, times[0], statistics.median(times[1:]), times[0] / statistics.median(times[1:])])
    return rows


@gpu_evidence("first-call-vs-later")
def first_call_vs_later():
    """Wall time of the first call (compiles) and the median of 50 later calls, with a synchronize."""
    rows = _empty_disk_cache(first_and_later_rows)
    return table(
        [label("kernel", "kernel"), label("first call ms (compiles)", "第一次调用 毫秒（编译）"),
         label("median of 50 later calls ms", "之后 50 次调用的中位数 毫秒"),
         label("first / later", "第一次 / 之后")],
        rows,
    )
