"""TP092's GPU evidence (`triton-faq bench`): how many tail elements keep the first of two stores, by num_warps."""

from snippets.garbage_values import overlapping_stores_in_one_program as entry
from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import fresh_randn

ROWS, BLOCK, TAIL = 4096, 1024, 256  # as in the proof's GPU tests
RUNS = 20


@gpu_evidence("overlapping-stores")
def observe_overlapping_stores():
    """Each kernel 20 times at 1, 4 (the default) and 8 warps: the fewest and most tail elements lost."""
    x = fresh_randn(ROWS * BLOCK).reshape(ROWS, BLOCK)
    kernels = {"two_stores": entry.double_the_tail_racy, "tl_where_one_store": entry.double_the_tail,
               "two_stores_debug_barrier": entry.double_the_tail_after_a_barrier}
    rows = []
    for name, kernel in kernels.items():
        for num_warps in (1, 4, 8):
            losses = [entry.lost(entry.run(kernel, x, TAIL, num_warps=num_warps), x, TAIL) for _ in range(RUNS)]
            rows.append([name, num_warps, ROWS * TAIL, min(losses), max(losses), sum(1 for n in losses if n)])
    columns = [label("kernel", "kernel", "kernel"), label("num_warps", "num_warps", "num_warps"),
               label("tail elements", "尾部元素数", "tail_elements"),
               label(f"fewest lost in {RUNS} runs", f"{RUNS} 次中丢失最少", "min_lost"),
               label(f"most lost in {RUNS} runs", f"{RUNS} 次中丢失最多", "max_lost"),
               label("runs with a loss", "有丢失的次数", "runs_with_loss")]
    return table(columns, rows, rows_per_launch=ROWS, block=BLOCK, tail=TAIL, runs=RUNS)


@gpu_evidence("read-back-race")
def observe_read_back_race():
    """Write a row, read it back reversed, 20 times without and with tl.debug_barrier(): wrong elements."""
    x = fresh_randn(ROWS * BLOCK).reshape(ROWS, BLOCK)
    want = (x + 1).flip(1)
    rows = []
    for barrier in (False, True):
        wrong = [int((entry.reverse_plus_one(x, barrier) != want).sum()) for _ in range(RUNS)]
        rows.append([barrier, x.numel(), min(wrong), max(wrong), sum(1 for n in wrong if n)])
    columns = [label("tl.debug_barrier()", "tl.debug_barrier()", "barrier"),
               label("elements", "元素数", "elements"),
               label(f"fewest wrong in {RUNS} runs", f"{RUNS} 次中错误最少", "min_wrong"),
               label(f"most wrong in {RUNS} runs", f"{RUNS} 次中错误最多", "max_wrong"),
               label("runs with a wrong element", "有错误元素的次数", "runs_with_wrong")]
    return table(columns, rows, rows_per_launch=ROWS, block=BLOCK, runs=RUNS)
