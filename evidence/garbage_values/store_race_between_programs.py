"""TP005's GPU evidence (`triton-faq bench`): lost updates of a shared counter, and float sums run after run."""

import triton

from snippets.garbage_values import store_race_between_programs as entry
from triton_faq.evidence import gpu_evidence, label, median_ms, table
from triton_faq.testing import fresh_randn

N_PROGRAMS = 4096  # as in test_gpu_racy_counter_loses_updates
RUNS = 20


def bits(t):
    import torch

    return t.view(torch.int32).cpu()


@gpu_evidence("counter-race")
def observe_counter_race():
    """4096 programs each add 1 to one counter, 20 times per implementation; and the time of one run."""
    import torch

    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    slots = torch.empty(N_PROGRAMS, dtype=torch.float32, device="cuda")
    total = torch.empty(1, dtype=torch.float32, device="cuda")

    def two_pass_launches():
        entry.count_own_slot[(N_PROGRAMS,)](slots)
        entry.sum_partials[(1,)](slots, total, N_PROGRAMS, BLOCK=triton.next_power_of_2(N_PROGRAMS))

    implementations = {
        "load_add_store": (lambda: entry.count(entry.count_racy, N_PROGRAMS),
                           lambda: entry.count_racy[(N_PROGRAMS,)](counter)),
        "atomic_add": (lambda: entry.count(entry.count_atomic, N_PROGRAMS),
                       lambda: entry.count_atomic[(N_PROGRAMS,)](counter)),
        "two_pass": (lambda: entry.count_two_pass(N_PROGRAMS), two_pass_launches),
    }
    rows = []
    for name, (run, launches) in implementations.items():
        results = [run() for _ in range(RUNS)]
        timing = median_ms(launches)
        rows.append([name, N_PROGRAMS, min(results), max(results), len(set(results)),
                     all(r == N_PROGRAMS for r in results), timing["median_ms"]])
    columns = [label("implementation", "实现", "implementation"), label("expected count", "应得计数", "expected"),
               label(f"min of {RUNS} runs", f"{RUNS} 次中的最小值", "min"),
               label(f"max of {RUNS} runs", f"{RUNS} 次中的最大值", "max"),
               label("distinct results", "不同结果个数", "distinct"),
               label("all correct", "全部正确", "all_correct"),
               label("median ms per run", "每次运行的中位数毫秒", "run_median_ms")]
    return table(columns, rows, n_programs=N_PROGRAMS, runs=RUNS)


N_FLOATS = 2**16  # as in test_gpu_atomic_float_sum_changes_bits_between_runs
SUM_BLOCK = 32


@gpu_evidence("float-sum-reproducibility")
def observe_float_sum_reproducibility():
    """The same 2**16 floats summed 20 times by each method: how many different bit patterns, how far from float64."""
    x = fresh_randn(N_FLOATS)
    reference = x.double().sum().item()
    implementations = {
        "atomic_add_sum": lambda: entry.total_atomic(x, SUM_BLOCK),
        "two_pass_sum": lambda: entry.total_two_pass(x, SUM_BLOCK),
        "torch_sum": lambda: x.sum().reshape(1),
    }
    rows = []
    for name, run in implementations.items():
        results = [run() for _ in range(RUNS)]
        patterns = {int(bits(r)) for r in results}
        error = max(abs(r.item() - reference) for r in results)
        rows.append([name, RUNS, len(patterns), error])
    columns = [label("implementation", "实现", "implementation"), label("runs", "运行次数", "runs"),
               label("distinct bit patterns", "不同的二进制位模式个数", "distinct_bits"),
               label("max abs difference from float64", "与 float64 的最大绝对差", "max_abs_difference")]
    return table(columns, rows, n_elements=N_FLOATS, block=SUM_BLOCK, float64_sum=reference)
