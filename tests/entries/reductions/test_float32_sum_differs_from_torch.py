"""TP080's claims, one test each: snippets/reductions/float32_sum_differs_from_torch.py.

Rows of 100_000 float32 numbers (not a multiple of the block of 1024, so the masked tail runs too);
every test uses fresh random rows except the cancelling ones, whose exact sum is 0 by construction. The
tests that only read the kernel's sums of such rows share one run of it (`random_rows`, fresh on every
test run): on the interpreter a run of the 16 rows takes seconds.
"""

import numpy as np
import pytest
import torch

from snippets.reductions import float32_sum_differs_from_torch as entry
from triton_faq.testing import fresh_randn

ROWS, N = 16, 100_000


@pytest.fixture(scope="module")
def random_rows():
    """Fresh random rows and the kernel's sums of them (read, never changed, by the tests that take them)."""
    x = fresh_randn(ROWS, N)
    return x, entry.row_sum(x)


def kernel_order_sum(row, block=1024):
    """The kernel's order on the interpreter, in NumPy float32: lane-wise block by block, then np.sum of the lanes."""
    acc = np.zeros(block, dtype=np.float32)
    for start in range(0, row.size, block):
        chunk = np.zeros(block, dtype=np.float32)
        chunk[: row[start:start + block].size] = row[start:start + block]
        acc += chunk
    return np.sum(acc)


# -- the pitfall: two correct float32 sums, different bits

def test_triton_and_torch_sums_differ_and_both_are_within_the_worst_case_bound(random_rows):
    x, got = random_rows
    torch_sum = x.sum(dim=-1)
    assert int((got != torch_sum).sum()) > 0  # some rows differ in the last bits
    with pytest.raises(AssertionError, match="not torch.sum's"):
        entry.bitwise_check(got, x)
    exact, bound = x.double().sum(dim=-1), entry.worst_case_bound(x)
    assert ((got.double() - exact).abs() <= bound).all()
    assert ((torch_sum.double() - exact).abs() <= bound).all()


def test_order_alone_changes_the_float32_sum():
    x = fresh_randn(ROWS, N)
    assert int((x.flip(-1).sum(dim=-1) != x.sum(dim=-1)).sum()) > 0  # torch.sum of the same numbers, reversed


@pytest.mark.interpreter
def test_interpreter_kernel_is_numpy_in_the_kernels_order(random_rows):
    x, got = random_rows
    got = got.numpy()
    assert np.array_equal(got, np.array([kernel_order_sum(row) for row in x.numpy()], dtype=np.float32))


def test_relative_tolerance_fails_on_a_cancelling_sum():
    x = entry.cancelling_rows(ROWS, N // 2)
    zero = torch.zeros(ROWS, device=x.device)  # the exact sum of every row
    for got in (entry.row_sum(x), x.sum(dim=-1)):
        assert float(got.abs().max()) > 1e-5  # float32 defaults: rtol=1.3e-6 of |0| plus atol=1e-5
        with pytest.raises(AssertionError, match="Tensor-likes are not close"):
            torch.testing.assert_close(got, zero)
        entry.assert_sum_close(got, x)  # the error is tiny next to sum(|x|)


# -- the fix

def test_fix_passes_for_the_kernel_and_for_torch_sum(random_rows):
    x, kernel_sum = random_rows
    for got in (kernel_sum, x.sum(dim=-1)):
        entry.assert_sum_close(got, x)
        tol = 2.0**-24 * N**0.5 * x.double().abs().sum(dim=-1)
        assert float(((got.double() - x.double().sum(dim=-1)).abs() / tol).max()) < 1e-2  # a wide margin


def test_fix_catches_a_dropped_tail_that_the_worst_case_bound_misses():
    x = fresh_randn(ROWS, N)
    wrong = entry.row_sum(x[:, : N // 1024 * 1024].contiguous())  # the last 672 elements of each row lost
    with pytest.raises(AssertionError, match="max error"):
        entry.assert_sum_close(wrong, x)
    assert ((wrong.double() - x.double().sum(dim=-1)).abs() <= entry.worst_case_bound(x)).all()


def test_fix_catches_a_result_never_written():
    x = fresh_randn(4, N)
    got = entry.row_sum(x)
    got[1] = float("nan")
    with pytest.raises(AssertionError):
        entry.assert_sum_close(got, x)


@pytest.mark.gpu
def test_gpu_compiled_sum_is_deterministic_yet_differs_from_torch_sum():
    x = fresh_randn(ROWS, N)
    got = entry.row_sum(x)
    assert torch.equal(got, entry.row_sum(x))  # not a race: the same bits on every run
    assert int((got != x.sum(dim=-1)).sum()) > 0
    entry.assert_sum_close(got, x)
