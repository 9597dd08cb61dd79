"""TP034: which index tl.argmax returns when the maximum appears more than once, or is NaN.

Run it: ``python snippets/reductions/argmax_ties.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import poisoned


# --8<-- [start:pitfall]
@triton.jit
def row_argmax_fast(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0, tie_break_left=False))  # any of the tied indices
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def row_argmax(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))  # default tie_break_left=True: the first one


def argmax_rows(kernel, x):
    out = poisoned(x.shape[0], dtype=torch.int32, value=-1)  # no argmax is -1
    kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out.cpu()
# --8<-- [end:fix]


def many_ties(rows, cols):
    """Small integers as float32: every row holds its maximum several times."""
    generator = torch.Generator().manual_seed(torch.seed())
    return torch.randint(0, 4, (rows, cols), generator=generator).float().to(DEVICE)


# --8<-- [start:test-ties]
@pytest.mark.parametrize("cols", [4, 37, 128])
def test_fix_default_returns_the_first_maximum_like_torch(cols):
    x = many_ties(16, cols)
    assert torch.equal(argmax_rows(row_argmax, x), torch.argmax(x.cpu(), dim=1).int())


@pytest.mark.parametrize("cols", [4, 37, 128])
def test_pitfall_tie_break_left_false_returns_a_maximum_but_not_always_the_first(cols):
    x = many_ties(16, cols)
    got = argmax_rows(row_argmax_fast, x).long()
    values = x.cpu().gather(1, got[:, None])[:, 0]
    assert torch.equal(values, x.cpu().max(dim=1).values)  # always one of the tied maxima
    assert not torch.equal(got, torch.argmax(x.cpu(), dim=1))  # but not the first one in every row
# --8<-- [end:test-ties]


# --8<-- [start:test-nan]
WITH_NAN = [[1.0, float("nan"), 5.0, 2.0], [5.0, 1.0, 5.0, float("nan")]]


def test_torch_argmax_returns_the_nan():
    assert torch.argmax(torch.tensor(WITH_NAN), dim=1).tolist() == [1, 3]


@pytest.mark.interpreter
def test_interpreter_a_nan_wins_like_in_torch():
    assert argmax_rows(row_argmax, torch.tensor(WITH_NAN, device=DEVICE)).tolist() == [1, 3]


@pytest.mark.gpu
def test_gpu_a_nan_does_not_win():
    assert argmax_rows(row_argmax, torch.tensor(WITH_NAN, device=DEVICE)).tolist() != [1, 3]
# --8<-- [end:test-nan]


@gpu_evidence("nan-argmax")
def observe_nan_argmax():
    """What tl.argmax returns on CUDA for rows holding a NaN, next to torch.argmax."""
    x = torch.tensor(WITH_NAN, device=DEVICE)
    triton_rows = argmax_rows(row_argmax, x).tolist()
    torch_rows = torch.argmax(x, dim=1).tolist()
    rows = [[str(WITH_NAN[i]), triton_rows[i], torch_rows[i]] for i in range(len(WITH_NAN))]
    return table([label("row", "行", "row"), label("tl.argmax", "tl.argmax", "triton"),
                  label("torch.argmax", "torch.argmax", "torch")], rows)


def main():
    print(describe())
    x = torch.tensor([[1.0, 5.0, 5.0, 2.0], [5.0, 1.0, 5.0, 5.0]], device=DEVICE)
    print("rows:", x.cpu().tolist())
    print("tl.argmax (default)       :", argmax_rows(row_argmax, x).tolist())
    print("tl.argmax tie_break_left=F:", argmax_rows(row_argmax_fast, x).tolist())
    print("torch.argmax              :", torch.argmax(x.cpu(), dim=1).tolist())


if __name__ == "__main__":
    main()
