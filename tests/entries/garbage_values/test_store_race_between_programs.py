"""TP005's claims, one test each: snippets/garbage_values/store_race_between_programs.py.

Also the page's `<!-- checked-report: racy_counter_report -->` and the checked interpreter's tests.
"""

from triton_faq.backend import DEVICE  # picks the backend before Triton loads

import pytest
import torch
import triton
import triton.language as tl

import triton_checked
from snippets.garbage_values import store_race_between_programs as entry
from triton_faq.testing import assert_matches_float64, checked_error, fresh_randn


def random_bins(n, n_bins):
    generator = torch.Generator().manual_seed(torch.seed())
    return torch.randint(0, n_bins, (n,), generator=generator, dtype=torch.int32).to(DEVICE)


def bits(t):
    return t.view(torch.int32).cpu()


# ---------------------------------------------------------------- the pitfall
@pytest.mark.gpu
def test_gpu_racy_counter_loses_updates():
    n_programs = 4096
    results = [entry.count(entry.count_racy, n_programs) for _ in range(5)]
    assert all(1 <= r <= n_programs for r in results), results
    assert min(results) < n_programs, results  # lost updates: programs read the same old value


@pytest.mark.interpreter
def test_interpreter_racy_counter_is_exact():
    # the interpreter runs the programs one after another, so no two of them ever overlap
    assert entry.count(entry.count_racy, 300) == 300


@triton.jit
def store_program_number(out_ptr, stores_ptr):
    tl.store(out_ptr, tl.program_id(0) + 1)  # every program writes its own number to one element
    tl.atomic_add(stores_ptr, 1)  # and counts its store


def stores_and_survivor(n_programs):
    """(how many programs stored, the number the element holds afterwards); 0 is no program's number."""
    out, stores = (torch.zeros(1, dtype=torch.int32, device=DEVICE) for _ in range(2))
    store_program_number[(n_programs,)](out, stores)
    return int(stores.item()), int(out.item())


def last_writer(n_programs):
    return stores_and_survivor(n_programs)[1]


def test_plain_stores_to_one_element_keep_one_programs_value():
    stores, survivor = stores_and_survivor(64)
    assert stores == 64  # all 64 programs stored their number
    assert survivor in range(1, 65)  # and the element holds exactly one of them: the other 63 were overwritten


@pytest.mark.interpreter
def test_interpreter_keeps_the_last_programs_store():
    assert last_writer(64) == 64  # programs run in order, so the last one's store is what remains


@pytest.mark.interpreter
def test_interpreter_racy_histogram_counts_each_bin_once_per_program():
    n_bins, block = 8, 32
    x = random_bins(16 * block, n_bins)
    per_program = x.cpu().reshape(16, block)
    # a bin that occurs several times in one block still gets +1 from that program
    programs_with_bin = [int((per_program == b).any(dim=1).sum()) for b in range(n_bins)]
    assert entry.histogram(entry.histogram_racy, x, n_bins, block) == programs_with_bin
    assert programs_with_bin != torch.bincount(x.cpu(), minlength=n_bins).tolist()


# ---------------------------------------------------------------- the fixes
def test_atomic_counter_is_exact():
    assert entry.count(entry.count_atomic, 300) == 300


def test_atomic_histogram_matches_bincount():
    n_bins, block = 8, 32
    x = random_bins(16 * block, n_bins)
    expected = torch.bincount(x.cpu(), minlength=n_bins).tolist()
    assert entry.histogram(entry.histogram_atomic, x, n_bins, block) == expected


def test_two_pass_counter_is_exact():
    assert entry.count_two_pass(300) == 300


def test_atomic_float_sum_matches_float64():
    x = fresh_randn(3000).abs()  # positive, so the relative error of the sum stays small
    assert_matches_float64(entry.total_atomic(x, 128), x.double().sum().reshape(1))


@pytest.mark.parametrize("n", [1, 1000, 2048])
def test_two_pass_sum_matches_float64(n):
    x = fresh_randn(n).abs()
    assert_matches_float64(entry.total_two_pass(x, 128), x.double().sum().reshape(1))


def test_two_pass_sum_is_bitwise_reproducible():
    x = fresh_randn(2048)
    first = bits(entry.total_two_pass(x, 128))
    assert all(torch.equal(bits(entry.total_two_pass(x, 128)), first) for _ in range(3))


@pytest.mark.gpu
def test_gpu_atomic_float_sum_changes_bits_between_runs():
    x = fresh_randn(2**16)  # 2048 programs, each atomically adds its block's sum
    runs = [bits(entry.total_atomic(x, 32)) for _ in range(20)]
    assert len({int(r) for r in runs}) > 1  # same input, different order of adds, different rounding


@pytest.mark.interpreter
def test_interpreter_atomic_float_sum_is_repeatable():
    x = fresh_randn(2048)
    first = bits(entry.total_atomic(x, 128))
    assert all(torch.equal(bits(entry.total_atomic(x, 128)), first) for _ in range(3))


# ---------------------------------------------------------------- the checked interpreter
def racy_counter_report() -> str:
    """The racy counter under triton_checked.checked(): which programs collide, and where."""
    counter = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    return str(checked_error(lambda: entry.count_racy[(4,)](counter), triton_checked.DataRace))


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
    with pytest.raises(triton_checked.DataRace, match="kernel histogram_racy on argument bins_ptr"):
        with triton_checked.checked():
            entry.histogram(entry.histogram_racy, x, 4, 16)


@pytest.mark.interpreter
def test_checked_accepts_the_fixes():
    x = random_bins(64, 4)
    with triton_checked.checked():
        assert entry.count(entry.count_atomic, 50) == 50
        assert entry.histogram(entry.histogram_atomic, x, 4, 16) == torch.bincount(x.cpu(), minlength=4).tolist()
        assert entry.count_two_pass(50) == 50
