"""TP031's GPU evidence (`triton-faq bench`): x + y timed four ways, from inside L2 to far beyond it."""

from snippets.timing import do_bench_pitfalls as entry
from triton_faq.evidence import copy_ceiling_gbps, gpu_evidence, label, table


def bytes_moved(n):
    return 3 * 4 * n  # read x and y, write out


@gpu_evidence("flushed-hot-graph")
def flushed_hot_graph():
    """x + y on float32 tensors of growing size, timed four ways, next to torch's copy of the same run."""
    import torch

    reference = copy_ceiling_gbps()  # torch's copy_ measured now: a reference, not a bound
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows = []
    for n in (2**16, 2**18, 2**20, 2**22, 2**24, 2**28):
        t = entry.timings(n)
        moved = bytes_moved(n)
        fraction = lambda ms: moved / (ms * 1e-3) / 1e9 / reference
        rows.append([n, moved / 2**20, moved <= l2, t["do_bench"], t["hot"], t["loop"], t["cudagraph"],
                     t["do_bench"] / t["hot"], t["do_bench"] / t["cudagraph"],
                     fraction(t["do_bench"]), fraction(t["cudagraph"])])
    return table(
        [label("elements (float32)", "元素数（float32）", "n_elements"),
         label("MiB moved (x, y, out)", "搬运 MiB（x、y、out）", "mib_moved"),
         label("fits in L2", "放得进 L2", "fits_in_l2"),
         label("do_bench median ms (L2 flushed)", "do_bench 中位数 毫秒（清空 L2）", "do_bench_ms"),
         label("hot-L2 median ms", "L2 热缓存 中位数 毫秒", "hot_ms"),
         label("back-to-back loop ms per call", "连续启动循环 每次毫秒", "loop_ms"),
         label("do_bench_cudagraph median ms", "do_bench_cudagraph 中位数 毫秒", "cudagraph_ms"),
         label("do_bench / hot", "do_bench / 热缓存", "ratio_hot"),
         label("do_bench / cudagraph", "do_bench / cudagraph", "ratio_cudagraph"),
         label("do_bench: implied fraction of torch's copy (reference)", "do_bench：折合占 torch 拷贝（参考值）的比例",
               "do_bench_fraction"),
         label("cudagraph: implied fraction of torch's copy (reference)", "cudagraph：折合占 torch 拷贝（参考值）的比例",
               "cudagraph_fraction")],
        rows,
        ceiling_gbps=reference,
        l2_cache_bytes=l2,
    )
