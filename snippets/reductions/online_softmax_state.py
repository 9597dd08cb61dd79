"""TP007: online softmax: what the running max `m` and denominator `d` must be.

Run it: ``python snippets/reductions/online_softmax_state.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import re
import traceback

import numpy as np
import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:fix]
@triton.jit
def softmax_online(x_ptr, y_ptr, stride_x, stride_y, N_COLS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((), -float("inf"), tl.float32)  # running max: a scalar
    d = tl.zeros((), tl.float32)                # running denominator: a scalar
    for start in range(0, N_COLS, BLOCK):      # pass 1: one block of columns at a time
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)  # rescale the old sum
        m = m_new
    for start in range(0, N_COLS, BLOCK):      # pass 2: write exp(x - m) / d
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m) / d, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:pitfall]
@triton.jit
def softmax_online_no_rescale(x_ptr, y_ptr, stride_x, stride_y, N_COLS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((), -float("inf"), tl.float32)
    d = tl.zeros((), tl.float32)
    for start in range(0, N_COLS, BLOCK):
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d + tl.sum(tl.exp(x - m_new), axis=0)  # BUG: the old terms were relative to the old m
        m = m_new
    for start in range(0, N_COLS, BLOCK):
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m) / d, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:vector-state]
@triton.jit
def softmax_online_vector_state(x_ptr, y_ptr, stride_x, stride_y, N_COLS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)  # one running max per lane
    d = tl.zeros((BLOCK,), tl.float32)                # one running sum per lane
    for start in range(0, N_COLS, BLOCK):  # N_COLS >= BLOCK: every lane sees a real value at start 0
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, x)
        d = d * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    m_row = tl.max(m, axis=0)                           # merge the lanes once, at the end
    d_row = tl.sum(d * tl.exp(m - m_row), axis=0)
    for start in range(0, N_COLS, BLOCK):
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m_row) / d_row, mask=mask)
# --8<-- [end:vector-state]


# --8<-- [start:launch]
def softmax(kernel, x, block=16):
    n_rows, n_cols = x.shape
    y = poisoned(n_rows, n_cols)  # NaN until written
    kernel[(n_rows,)](x, y, x.stride(0), y.stride(0), N_COLS=n_cols, BLOCK=block)
    return y
# --8<-- [end:launch]


# --8<-- [start:test-pitfall]
def test_pitfall_without_rescaling_rows_sum_to_one_half():
    # two blocks of 16: the first all 0, the second all 20, so the max changes at the second block
    x = torch.cat([torch.zeros(3, 16), torch.full((3, 16), 20.0)], dim=1).to(DEVICE)
    y = softmax(softmax_online_no_rescale, x).cpu()
    # d = 16 * exp(0 - 0) + 16 * exp(20 - 20) = 32 instead of about 16
    assert torch.equal(y[:, 16:], torch.full((3, 16), 1 / 32))
    assert torch.equal(softmax(softmax_online, x).cpu()[:, 16:], torch.full((3, 16), 1 / 16))


def test_pitfall_without_rescaling_is_wrong_on_random_rows():
    x = fresh_randn(4, 100).sort(dim=1).values * 3  # ascending: the max grows at every block
    with pytest.raises(AssertionError, match="relative error"):
        assert_matches_float64(softmax(softmax_online_no_rescale, x), torch.softmax(x.double(), dim=1))
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
SCALES = {"randn": (1.0, 0.0), "very negative": (30.0, -1000.0), "large": (30.0, 1000.0)}


@pytest.mark.parametrize("n_cols", [1, 16, 37, 100])
@pytest.mark.parametrize("scale", SCALES)
def test_fix_matches_float64_softmax(n_cols, scale):
    spread, shift = SCALES[scale]
    x = fresh_randn(3, n_cols) * spread + shift  # exp(x) alone would overflow or underflow
    assert_matches_float64(softmax(softmax_online, x), torch.softmax(x.double(), dim=1))


def test_fix_respects_the_row_stride_of_a_view():
    x = fresh_randn(3, 64)[:, 7:47] * 5
    assert_matches_float64(softmax(softmax_online, x), torch.softmax(x.double(), dim=1))
# --8<-- [end:test-fix]


# --8<-- [start:test-vector-state]
@pytest.mark.parametrize("n_cols", [16, 37, 100])
def test_vector_state_merged_at_the_end_matches_float64(n_cols):
    x = fresh_randn(3, n_cols) * 30
    assert_matches_float64(softmax(softmax_online_vector_state, x), torch.softmax(x.double(), dim=1))
# --8<-- [end:test-vector-state]


# --8<-- [start:runtime-bound]
@triton.jit
def softmax_online_runtime_bound(x_ptr, y_ptr, stride_x, stride_y, N_COLS, BLOCK: tl.constexpr):
    # the fix, with one change: N_COLS is a runtime argument, not a tl.constexpr
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((), -float("inf"), tl.float32)
    d = tl.zeros((), tl.float32)
    for start in range(0, N_COLS, BLOCK):  # a loop bound known only at launch
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, N_COLS, BLOCK):
        mask = start + cols < N_COLS
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m) / d, mask=mask)
# --8<-- [end:runtime-bound]


# --8<-- [start:test-runtime-bound]
NUMPY_2_4 = np.lib.NumpyVersion(np.__version__) >= "2.4.0"
NOT_A_SCALAR = "only 0-dimensional arrays can be converted to Python scalars"


@pytest.mark.interpreter
@pytest.mark.skipif(not NUMPY_2_4, reason=f"NumPy {np.__version__} only warns about this conversion")
def test_interpreter_with_numpy_2_4_cannot_loop_to_a_runtime_bound():
    from triton.runtime.errors import InterpreterError

    x = fresh_randn(3, 37)
    with pytest.raises(InterpreterError, match=re.escape(f"TypeError('{NOT_A_SCALAR}')")) as caught:
        softmax(softmax_online_runtime_bound, x)
    frames = traceback.extract_tb(caught.value.__cause__.__traceback__)
    in_kernel = [frame.line for frame in frames if frame.name == "softmax_online_runtime_bound"]
    assert in_kernel == ["for start in range(0, N_COLS, BLOCK):  # a loop bound known only at launch"]
    assert "int(self.handle.data)" in frames[-1].line  # range() asks the interpreter's tensor for __index__


def test_numpy_2_4_refuses_int_of_a_one_element_array():
    if not NUMPY_2_4:
        pytest.skip(f"NumPy {np.__version__} only warns about this conversion")
    assert int(np.array(37)) == 37  # 0-d: fine
    with pytest.raises(TypeError, match=re.escape(NOT_A_SCALAR)):
        int(np.array([37]))  # the interpreter holds a runtime int argument as a 1-element array


@pytest.mark.gpu
@pytest.mark.parametrize("n_cols", [16, 37, 100])
def test_cuda_loops_to_a_runtime_bound(n_cols):
    x = fresh_randn(3, n_cols) * 30
    assert_matches_float64(softmax(softmax_online_runtime_bound, x), torch.softmax(x.double(), dim=1))
# --8<-- [end:test-runtime-bound]


def reproduce_runtime_bound_on_the_interpreter():
    """A loop to a runtime bound under TRITON_INTERPRET=1 with NumPy 2.4 or newer."""
    softmax(softmax_online_runtime_bound, fresh_randn(3, 37))


def main():
    print(describe())
    x = torch.cat([torch.zeros(1, 16), torch.full((1, 16), 20.0)], dim=1).to(DEVICE)
    print("one row: 16 zeros then 16 values of 20 (two blocks of 16)")
    print("  row sum, rescaled d     :", float(softmax(softmax_online, x).sum()))
    print("  row sum, d not rescaled :", float(softmax(softmax_online_no_rescale, x).sum()))
    x = fresh_randn(2, 37) * 30 + 1000
    error = (softmax(softmax_online, x).double() - torch.softmax(x.double(), dim=1)).abs().max()
    print("values around 1000, 37 columns: max abs error vs float64 softmax:", float(error))


if __name__ == "__main__":
    main()
