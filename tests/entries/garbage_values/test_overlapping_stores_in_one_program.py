"""TP092's claims, one test each: snippets/garbage_values/overlapping_stores_in_one_program.py."""

import pytest
import torch

import triton_checked
from snippets.garbage_values import overlapping_stores_in_one_program as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, checked_error, fresh_randn

BLOCK, TAIL = 1024, 256
GPU_ROWS = 4096  # 4M elements: every SM busy, as in a real launch
INTERPRETER_ROWS = 8  # the interpreter runs one program after another
RUNS = 5


def rows():
    return GPU_ROWS if DEVICE == "cuda" else INTERPRETER_ROWS


def fresh_rows(n_rows):
    return fresh_randn(n_rows * BLOCK).reshape(n_rows, BLOCK)


# ---------------------------------------------------------------- the pitfall
@pytest.mark.gpu
def test_gpu_the_second_store_loses_on_many_tail_elements_at_the_default_num_warps():
    x = fresh_rows(GPU_ROWS)
    losses = [entry.lost(entry.run(entry.double_the_tail_racy, x, TAIL), x, TAIL) for _ in range(RUNS)]
    assert min(losses) > 0.01 * GPU_ROWS * TAIL, losses  # every run: more than 1% of the tail kept the first store


@pytest.mark.gpu
def test_gpu_where_the_second_store_lost_the_element_holds_the_first_stores_value():
    x = fresh_rows(GPU_ROWS)
    out = entry.run(entry.double_the_tail_racy, x, TAIL)
    tail, first = out[:, -TAIL:], x[:, -TAIL:]
    assert bool(((tail == first) | (tail == 2 * first)).all())  # one store or the other, never a mix or NaN
    assert bool((out[:, :-TAIL] == x[:, :-TAIL]).all())  # the rest of the row is right


@pytest.mark.gpu
def test_gpu_how_many_are_lost_changes_from_run_to_run():
    x = fresh_rows(GPU_ROWS)
    losses = {entry.lost(entry.run(entry.double_the_tail_racy, x, TAIL), x, TAIL) for _ in range(RUNS)}
    assert len(losses) > 1, losses


@pytest.mark.interpreter
def test_interpreter_the_second_store_always_wins():
    x = fresh_rows(INTERPRETER_ROWS)
    assert entry.lost(entry.run(entry.double_the_tail_racy, x, TAIL), x, TAIL) == 0


@pytest.mark.gpu
def test_gpu_a_read_back_of_other_threads_elements_reads_some_before_they_are_written():
    x = fresh_rows(GPU_ROWS)
    want = (x + 1).flip(1)
    wrong = [int((entry.reverse_plus_one(x, barrier=False) != want).sum()) for _ in range(RUNS)]
    assert max(wrong) > 0, wrong


@pytest.mark.interpreter
def test_interpreter_the_read_back_is_always_right():
    x = fresh_rows(INTERPRETER_ROWS)
    assert bool((entry.reverse_plus_one(x, barrier=False) == (x + 1).flip(1)).all())


# ---------------------------------------------------------------- the fixes
@pytest.mark.parametrize("kernel", ["double_the_tail", "double_the_tail_after_a_barrier"])
def test_fix_matches_float64(kernel):
    x = fresh_rows(rows())
    for _ in range(RUNS if DEVICE == "cuda" else 1):
        out = entry.run(getattr(entry, kernel), x, TAIL)  # starts as NaN: an unwritten element shows
        assert_matches_float64(out, entry.expected(x.double(), TAIL))
        assert entry.lost(out, x, TAIL) == 0


@pytest.mark.parametrize("n_rows, tail", [(1, 1), (3, 1024), (5, 512)])
def test_fix_matches_float64_for_any_tail(n_rows, tail):
    x = fresh_rows(n_rows)
    assert_matches_float64(entry.run(entry.double_the_tail, x, tail), entry.expected(x.double(), tail))


def test_fix_a_barrier_makes_the_read_back_right():
    x = fresh_rows(rows())
    for _ in range(RUNS if DEVICE == "cuda" else 1):
        assert_matches_float64(entry.reverse_plus_one(x, barrier=True), (x.double() + 1).flip(1))


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", [4, 8])
def test_gpu_the_fixes_lose_nothing_at_4_or_8_warps(num_warps):
    x = fresh_rows(GPU_ROWS)
    for kernel in (entry.double_the_tail, entry.double_the_tail_after_a_barrier):
        for _ in range(RUNS):
            assert entry.lost(entry.run(kernel, x, TAIL, num_warps=num_warps), x, TAIL) == 0


@pytest.mark.gpu
def test_gpu_the_racy_launch_without_num_warps_compiles_with_4_warps():
    x = fresh_rows(4)
    compiled = entry.double_the_tail_racy[(4,)](x, torch.empty_like(x), BLOCK=BLOCK, TAIL=TAIL)
    assert compiled.metadata.num_warps == 4


# ---------------------------------------------------------------- the checked interpreter
def racy_tail_report() -> str:
    """The racy kernel under triton_checked.checked(): the two lanes that store one element, and where."""
    x = fresh_rows(2)
    return str(checked_error(lambda: entry.run(entry.double_the_tail_racy, x, TAIL), triton_checked.DataRace))


@pytest.mark.interpreter
def test_checked_reports_the_second_store_with_both_lanes_and_lines():
    report = racy_tail_report()
    assert report.startswith(f"data race in kernel double_the_tail_racy on argument out_ptr, element {BLOCK - TAIL} "
                             f"(row 0, column {BLOCK - TAIL}), within program (0, 0, 0):")
    assert f"the lane at [0] of a block of shape [{TAIL}] stores it at" in report
    assert f"the lane at [{BLOCK - TAIL}] of a block of shape [{BLOCK}] stored it at" in report
    assert "# 2. its tail again, doubled" in report and "# 1. the whole row as it is" in report


@pytest.mark.interpreter
def test_checked_reports_the_read_back_without_a_barrier():
    with pytest.raises(triton_checked.DataRace, match="kernel reverse_plus_one_racy on argument tmp_ptr"):
        with triton_checked.checked():
            entry.reverse_plus_one(fresh_rows(2), barrier=False)


@pytest.mark.interpreter
def test_checked_accepts_the_fixes():
    x = fresh_rows(2)
    with triton_checked.checked():
        assert entry.lost(entry.run(entry.double_the_tail, x, TAIL), x, TAIL) == 0
        assert entry.lost(entry.run(entry.double_the_tail_after_a_barrier, x, TAIL), x, TAIL) == 0
        assert bool((entry.reverse_plus_one(x, barrier=True) == (x + 1).flip(1)).all())
