"""TP005: several programs writing one address: lost updates, atomics, and a deterministic two-pass sum.

Run it: ``python snippets/garbage_values/store_race_between_programs.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, median_ms, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def count_racy(counter_ptr):
    # every program: read the counter, add one, write it back (three separate steps)
    count = tl.load(counter_ptr)
    tl.store(counter_ptr, count + 1)


@triton.jit
def histogram_racy(x_ptr, bins_ptr, BLOCK: tl.constexpr):
    bins = tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    counts = tl.load(bins_ptr + bins)
    tl.store(bins_ptr + bins, counts + 1)
# --8<-- [end:pitfall]


# --8<-- [start:atomic]
@triton.jit
def count_atomic(counter_ptr):
    tl.atomic_add(counter_ptr, 1)  # read-add-write as one indivisible step


@triton.jit
def histogram_atomic(x_ptr, bins_ptr, BLOCK: tl.constexpr):
    bins = tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(bins_ptr + bins, 1)  # one atomic per lane, duplicates included
# --8<-- [end:atomic]


# --8<-- [start:launch]
def count(kernel, n_programs):
    """Launch `n_programs` programs that each add 1 to one int32 counter."""
    counter = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    kernel[(n_programs,)](counter)
    return int(counter.item())


def histogram(kernel, x, n_bins, block):
    bins = torch.zeros(n_bins, dtype=torch.int32, device=DEVICE)
    kernel[(x.numel() // block,)](x, bins, BLOCK=block)
    return bins.cpu()


def random_bins(n, n_bins):
    generator = torch.Generator().manual_seed(torch.seed())
    return torch.randint(0, n_bins, (n,), generator=generator, dtype=torch.int32).to(DEVICE)
# --8<-- [end:launch]


# --8<-- [start:test-pitfall]
@pytest.mark.gpu
def test_gpu_racy_counter_loses_updates():
    n_programs = 4096
    results = [count(count_racy, n_programs) for _ in range(5)]
    assert all(1 <= r <= n_programs for r in results), results
    assert min(results) < n_programs, results  # lost updates: programs read the same old value


@pytest.mark.interpreter
def test_interpreter_racy_counter_is_exact():
    # the interpreter runs the programs one after another, so no two of them ever overlap
    assert count(count_racy, 300) == 300
# --8<-- [end:test-pitfall]


# --8<-- [start:test-block-race]
@pytest.mark.interpreter
def test_interpreter_racy_histogram_counts_each_bin_once_per_program():
    n_bins, block = 8, 32
    x = random_bins(16 * block, n_bins)
    per_program = x.cpu().reshape(16, block)
    # a bin that occurs several times in one block still gets +1 from that program
    programs_with_bin = torch.stack([(per_program == b).any(dim=1).sum() for b in range(n_bins)]).int()
    assert torch.equal(histogram(histogram_racy, x, n_bins, block), programs_with_bin)
    assert not torch.equal(programs_with_bin, torch.bincount(x.cpu(), minlength=n_bins).int())
# --8<-- [end:test-block-race]


# --8<-- [start:test-atomic]
def test_atomic_counter_is_exact():
    assert count(count_atomic, 300) == 300


def test_atomic_histogram_matches_bincount():
    n_bins, block = 8, 32
    x = random_bins(16 * block, n_bins)
    expected = torch.bincount(x.cpu(), minlength=n_bins).int()
    assert torch.equal(histogram(histogram_atomic, x, n_bins, block), expected)
# --8<-- [end:test-atomic]


# --8<-- [start:sums]
@triton.jit
def sum_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # programs add in whatever order they finish


@triton.jit
def partial_sums(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))  # each program owns its slot


@triton.jit
def sum_partials(partial_ptr, out_ptr, n_partials, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0))  # one program, always the same order


def total_atomic(x, block):
    out = torch.zeros(1, dtype=torch.float32, device=DEVICE)  # atomics need a zeroed start
    sum_atomic[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out


def total_two_pass(x, block):
    n_partials = triton.cdiv(x.numel(), block)
    partials = poisoned(n_partials)
    out = poisoned(1)
    partial_sums[(n_partials,)](x, partials, x.numel(), BLOCK=block)
    sum_partials[(1,)](partials, out, n_partials, BLOCK=triton.next_power_of_2(n_partials))
    return out
# --8<-- [end:sums]


def bits(t):
    return t.view(torch.int32).cpu()


@triton.jit
def count_own_slot(slots_ptr):
    tl.store(slots_ptr + tl.program_id(0), 1.0)  # each program writes only its own slot


def count_two_pass(n_programs):
    """The counter without atomics: one slot per program, then one program adds the slots."""
    slots = poisoned(n_programs)
    out = poisoned(1)
    count_own_slot[(n_programs,)](slots)
    sum_partials[(1,)](slots, out, n_programs, BLOCK=triton.next_power_of_2(n_programs))
    return int(out.item())


def test_two_pass_counter_is_exact():
    assert count_two_pass(300) == 300


# --8<-- [start:test-sums]
def test_atomic_float_sum_matches_float64():
    x = fresh_randn(3000).abs()  # positive, so the relative error of the sum stays small
    assert_matches_float64(total_atomic(x, 128), x.double().sum().reshape(1))


@pytest.mark.parametrize("n", [1, 1000, 2048])
def test_two_pass_sum_matches_float64(n):
    x = fresh_randn(n).abs()
    assert_matches_float64(total_two_pass(x, 128), x.double().sum().reshape(1))


def test_two_pass_sum_is_bitwise_reproducible():
    x = fresh_randn(2048)
    first = bits(total_two_pass(x, 128))
    assert all(torch.equal(bits(total_two_pass(x, 128)), first) for _ in range(3))


@pytest.mark.gpu
def test_gpu_atomic_float_sum_changes_bits_between_runs():
    x = fresh_randn(2**16)  # 2048 programs, each atomically adds its block's sum
    runs = [bits(total_atomic(x, 32)) for _ in range(20)]
    assert len({int(r) for r in runs}) > 1  # same input, different order of adds, different rounding


@pytest.mark.interpreter
def test_interpreter_atomic_float_sum_is_repeatable():
    x = fresh_randn(2048)
    first = bits(total_atomic(x, 128))
    assert all(torch.equal(bits(total_atomic(x, 128)), first) for _ in range(3))
# --8<-- [end:test-sums]


# --8<-- [start:test-docs]
def test_triton_3_6_docstring_of_atomic_add_documents_atomicity():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(tl.atomic_add.__doc__.split())
    assert "Performs an atomic add at the memory location specified by :code:`pointer`." in doc
# --8<-- [end:test-docs]


N_PROGRAMS = 4096  # as in test_gpu_racy_counter_loses_updates
RUNS = 20


@gpu_evidence("counter-race")
def observe_counter_race():
    """4096 programs each add 1 to one counter, 20 times per implementation; and the time of one run."""
    counter = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    slots = torch.empty(N_PROGRAMS, dtype=torch.float32, device=DEVICE)
    total = torch.empty(1, dtype=torch.float32, device=DEVICE)

    def two_pass_launches():
        count_own_slot[(N_PROGRAMS,)](slots)
        sum_partials[(1,)](slots, total, N_PROGRAMS, BLOCK=triton.next_power_of_2(N_PROGRAMS))

    implementations = {
        "load_add_store": (lambda: count(count_racy, N_PROGRAMS), lambda: count_racy[(N_PROGRAMS,)](counter)),
        "atomic_add": (lambda: count(count_atomic, N_PROGRAMS), lambda: count_atomic[(N_PROGRAMS,)](counter)),
        "two_pass": (lambda: count_two_pass(N_PROGRAMS), two_pass_launches),
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
        "atomic_add_sum": lambda: total_atomic(x, SUM_BLOCK),
        "two_pass_sum": lambda: total_two_pass(x, SUM_BLOCK),
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


# --8<-- [start:checked]
import triton_faq


def racy_counter_report() -> str:
    """The racy counter under triton_faq.checked(): which programs collide, and where."""
    counter = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    try:
        with triton_faq.checked():
            count_racy[(4,)](counter)
    except triton_faq.DataRace as report:
        return str(report)
    raise AssertionError("the race was not reported")
# --8<-- [end:checked]


# --8<-- [start:test-checked]
@pytest.mark.interpreter
def test_checked_reports_the_racy_counter_with_both_programs_and_lines():
    report = racy_counter_report()
    assert report.startswith("data race in kernel count_racy on argument counter_ptr, element 0:")
    assert "program (1, 0, 0) loads it at " in report
    assert "program (0, 0, 0) stored it at " in report
    assert "tl.store(counter_ptr, count + 1)" in report


@pytest.mark.interpreter
def test_checked_reports_the_racy_histogram():
    x = random_bins(64, 4)
    with pytest.raises(triton_faq.DataRace, match="kernel histogram_racy on argument bins_ptr"):
        with triton_faq.checked():
            histogram(histogram_racy, x, 4, 16)


@pytest.mark.interpreter
def test_checked_accepts_the_fixes():
    x = random_bins(64, 4)
    with triton_faq.checked():
        assert count(count_atomic, 50) == 50
        assert torch.equal(histogram(histogram_atomic, x, 4, 16), torch.bincount(x.cpu(), minlength=4).int())
        assert count_two_pass(50) == 50
# --8<-- [end:test-checked]


def main():
    print(describe())
    n = 4096 if BACKEND == "cuda" else 300
    print(f"{n} programs each add 1 to one counter")
    print("  load + store :", [count(count_racy, n) for _ in range(3)])
    print("  tl.atomic_add:", [count(count_atomic, n) for _ in range(3)])
    x = fresh_randn(2**16 if BACKEND == "cuda" else 1024)
    print("float sum, bits of 3 runs (same input)")
    print("  atomic  :", [hex(int(bits(total_atomic(x, 32)))) for _ in range(3)])
    print("  two-pass:", [hex(int(bits(total_two_pass(x, 32)))) for _ in range(3)])
    print("  float64 :", float(x.double().sum()))


if __name__ == "__main__":
    main()
