"""Races between the lanes of one program: two accesses of one element by different lanes, at least one a
store, with no barrier between them (tl.debug_barrier(), or a scalar atomic, which Triton compiles with one).

Each buggy kernel is beside its correct form; every correct one must run silent and give the right result.
"""

import pytest
import torch

import triton
import triton.language as tl

from triton_checked import DataRace, checked

pytestmark = pytest.mark.interpreter  # the checks run kernels under Triton's interpreter

BLOCK, TAIL = 64, 16


@triton.jit
def row_then_tail(x_ptr, out_ptr, BLOCK: tl.constexpr, TAIL: tl.constexpr, HOW: tl.constexpr):
    row = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row + offs)
    if HOW == "where":
        tl.store(out_ptr + row + offs, tl.where(offs >= BLOCK - TAIL, 2 * x, x))
    else:
        tl.store(out_ptr + row + offs, x)
        if HOW == "barrier":
            tl.debug_barrier()
        tail = BLOCK - TAIL + tl.arange(0, TAIL)
        tl.store(out_ptr + row + tail, 2 * tl.load(x_ptr + row + tail))


def tail_doubled(how):
    x = torch.randn(3, BLOCK)
    out = torch.full_like(x, float("nan"))
    row_then_tail[(3,)](x, out, BLOCK=BLOCK, TAIL=TAIL, HOW=how)
    want = x.clone()
    want[:, -TAIL:] *= 2
    return out, want


def test_a_second_store_by_other_lanes_is_reported_with_both_lanes_and_lines():
    with pytest.raises(DataRace) as raised, checked():
        tail_doubled("two stores")
    report = str(raised.value)
    assert report.startswith("data race in kernel row_then_tail on argument out_ptr, element 48 (row 0, column 48), "
                             "within program (0, 0, 0):")
    assert "the lane at [0] of a block of shape [16] stores it at" in report
    assert "the lane at [48] of a block of shape [64] stored it at" in report
    assert "tl.store(out_ptr + row + tail, 2 * tl.load(x_ptr + row + tail))" in report
    assert "tl.store(out_ptr + row + offs, x)" in report
    assert "tl.debug_barrier()" in report and "tl.where" in report


@pytest.mark.parametrize("how", ["where", "barrier"])
def test_one_store_per_element_or_a_barrier_between_is_silent_and_right(how):
    with checked():
        out, want = tail_doubled(how)
    assert torch.equal(out, want)


@triton.jit
def write_then_read_back(x_ptr, tmp_ptr, out_ptr, BLOCK: tl.constexpr, REVERSED: tl.constexpr,
                         BARRIER: tl.constexpr):
    row = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    tl.store(tmp_ptr + row + offs, tl.load(x_ptr + row + offs) + 1)
    if BARRIER:
        tl.debug_barrier()
    back = BLOCK - 1 - offs if REVERSED else offs
    tl.store(out_ptr + row + offs, tl.load(tmp_ptr + row + back))


def read_back(reversed_, barrier):
    x = torch.randn(2, BLOCK)
    tmp, out = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))
    write_then_read_back[(2,)](x, tmp, out, BLOCK=BLOCK, REVERSED=reversed_, BARRIER=barrier)
    return out, (x + 1).flip(1) if reversed_ else x + 1


def test_a_load_of_what_other_lanes_stored_is_reported():
    with pytest.raises(DataRace, match=r"within program \(0, 0, 0\):\n  the lane at \[0\] of a block of shape \[64\] "
                                       r"loads it at .*\n.*\n  the lane at \[63\] of a block of shape \[64\] stored it"):
        with checked():
            read_back(True, False)


@pytest.mark.parametrize("reversed_, barrier", [(False, False), (True, True)], ids=["own-lanes", "after-a-barrier"])
def test_reading_back_ones_own_elements_or_after_a_barrier_is_silent_and_right(reversed_, barrier):
    with checked():
        out, want = read_back(reversed_, barrier)
    assert torch.equal(out, want)


@triton.jit
def scale_rows_in_place(x_ptr, sums_ptr, N: tl.constexpr, BROADCAST: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    if BROADCAST:  # every lane of the 2-D block loads the row's sum: then lane 0 overwrites it
        s = tl.sum(tl.load(sums_ptr + row + 0 * cols[:, None] + 0 * cols[None, :]), axis=1) / N
        tl.store(sums_ptr + row, tl.max(s, axis=0) * 0)
    else:
        s = tl.load(sums_ptr + row)
        tl.store(sums_ptr + row, s * 0)  # the same lane (a scalar) reads, then writes
    x = tl.load(x_ptr + row * N + cols)
    tl.store(x_ptr + row * N + cols, x * 2)  # each lane its own element, in place


def test_a_store_after_many_lanes_loaded_the_element_is_reported():
    x, sums = torch.randn(2, 8), torch.randn(2)
    with pytest.raises(DataRace, match="several lanes loaded it"), checked():
        scale_rows_in_place[(2,)](x, sums, N=8, BROADCAST=True)


def test_in_place_each_lane_its_own_element_is_silent_and_right():
    x, sums = torch.randn(2, 8), torch.randn(2)
    want = x * 2
    with checked():
        scale_rows_in_place[(2,)](x, sums, N=8, BROADCAST=False)
    assert torch.equal(x, want) and torch.equal(sums, torch.zeros(2))


@triton.jit
def accumulate(acc_ptr, x_ptr, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for step in range(STEPS):  # the same lanes load and store the same elements every iteration
        tl.store(acc_ptr + offs, tl.load(acc_ptr + offs) + tl.load(x_ptr + step * 0 + offs))


def test_a_loop_that_updates_its_own_elements_is_silent_and_right():
    x, acc = torch.randn(2 * BLOCK), torch.zeros(2 * BLOCK)
    with checked():
        accumulate[(2,)](acc, x, STEPS=3, BLOCK=BLOCK)
    assert torch.allclose(acc, 3 * x)


@triton.jit
def partial_then_total(x_ptr, partial_ptr, ticket_ptr, out_ptr, BLOCK: tl.constexpr, PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(partial_ptr + pid, tl.sum(tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))))  # one lane stores
    if tl.atomic_add(ticket_ptr, 1) == PROGRAMS - 1:  # a scalar atomic: compiled with a barrier after it
        r = tl.arange(0, PROGRAMS)
        tl.store(out_ptr, tl.sum(tl.load(partial_ptr + r)))  # every lane loads: the last program's own partial too


def test_a_scalar_atomic_orders_the_lanes_of_its_program():
    x = torch.randn(4 * BLOCK)
    partial, ticket, out = torch.full((4,), float("nan")), torch.zeros(1, dtype=torch.int32), torch.zeros(1)
    with checked():
        partial_then_total[(4,)](x, partial, ticket, out, BLOCK=BLOCK, PROGRAMS=4)
    assert torch.allclose(out, x.sum().reshape(1), atol=1e-4)
