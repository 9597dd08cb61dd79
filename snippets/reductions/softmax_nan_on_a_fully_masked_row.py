"""TP069: NaN from a masked softmax or attention: a row whose scores are all -inf gives exp(-inf - (-inf)) = NaN.

Run it: python softmax_nan_on_a_fully_masked_row.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def masked_softmax(s_ptr, keep_ptr, p_ptr, lse_ptr, n_cols, BLOCK: tl.constexpr):
    """One row of scores per program; keep == 0 masks a score out (padding, causal, a key-padding mask)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=0.0)
    keep = tl.load(keep_ptr + row * n_cols + cols, mask=inside, other=0)
    s = tl.where(inside & (keep != 0), s, -float("inf"))
    m = tl.max(s, axis=0)  # -inf when every score of the row is masked out
    e = tl.exp(s - m)  # -inf - (-inf) = NaN
    total = tl.sum(e, axis=0)
    tl.store(p_ptr + row * n_cols + cols, e / total, mask=inside)
    tl.store(lse_ptr + row, m + tl.log(total))  # what a backward pass keeps: NaN too


@triton.jit
def softmax_backward(s_ptr, keep_ptr, lse_ptr, dp_ptr, ds_ptr, n_cols, BLOCK: tl.constexpr):
    """Flash-attention style: P recomputed from the scores and the saved log-sum-exp, then dS = P * (dP - sum(P * dP))."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=0.0)
    keep = tl.load(keep_ptr + row * n_cols + cols, mask=inside, other=0)
    s = tl.where(inside & (keep != 0), s, -float("inf"))
    p = tl.exp(s - tl.load(lse_ptr + row))  # lse = -inf (or NaN) on an empty row: NaN again
    dp = tl.load(dp_ptr + row * n_cols + cols, mask=inside, other=0.0)
    tl.store(ds_ptr + row * n_cols + cols, p * (dp - tl.sum(p * dp, axis=0)), mask=inside)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def masked_softmax_safe(s_ptr, keep_ptr, p_ptr, lse_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=0.0).to(tl.float32)  # float32 math
    keep = tl.load(keep_ptr + row * n_cols + cols, mask=inside, other=0)
    s = tl.where(inside & (keep != 0), s, -float("inf"))
    m = tl.max(s, axis=0)
    m = tl.where(m == -float("inf"), 0.0, m)  # the fix: an empty row subtracts 0, so exp(-inf - 0) = 0
    e = tl.exp(s - m)
    total = tl.sum(e, axis=0)
    tl.store(p_ptr + row * n_cols + cols, e / tl.where(total == 0.0, 1.0, total), mask=inside)  # and 0 / 1 = 0
    tl.store(lse_ptr + row, tl.where(total == 0.0, float("inf"), m + tl.log(total)))  # +inf: backward's exp gives 0
# --8<-- [end:fix]


# --8<-- [start:launch]
def softmax(kernel, s, keep):
    """Row softmax of s (rows x n_cols) where keep != 0; the probabilities (float32) and each row's log-sum-exp."""
    n_rows, n_cols = s.shape
    p = torch.full((n_rows, n_cols), float("nan"), device=s.device)  # NaN until a program writes it
    lse = torch.full((n_rows,), float("nan"), device=s.device)
    kernel[(n_rows,)](s, keep, p, lse, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return p, lse


def backward(s, keep, lse, dp):
    n_rows, n_cols = s.shape
    ds = torch.full((n_rows, n_cols), float("nan"), device=s.device)
    softmax_backward[(n_rows,)](s, keep, lse, dp, ds, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return ds
# --8<-- [end:launch]


# --8<-- [start:no-max]
@triton.jit
def softmax_without_max(s_ptr, p_ptr, n_cols, BLOCK: tl.constexpr):
    """The textbook formula exp(s) / sum(exp(s)), in the input's float16."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    s = tl.load(s_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    e = tl.exp(s.to(tl.float32)).to(tl.float16)  # exp(s) above 65504 is inf in float16 (s > 11.09)
    tl.store(p_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(tl.float32), mask=cols < n_cols)


def softmax_no_max(s):
    n_rows, n_cols = s.shape
    p = torch.full((n_rows, n_cols), float("nan"), device=s.device)
    softmax_without_max[(n_rows,)](s, p, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return p
# --8<-- [end:no-max]


def main():
    s = torch.tensor([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]], device=DEVICE)
    keep = torch.tensor([[1, 1, 0, 1], [0, 0, 0, 0]], dtype=torch.int32, device=DEVICE)  # row 1: everything masked
    dp = torch.ones_like(s)
    for name, kernel in (("pitfall", masked_softmax), ("fixed  ", masked_softmax_safe)):
        p, lse = softmax(kernel, s, keep)
        print(f"{name} probabilities of the fully masked row: {p[1].tolist()}; its gradient: "
              f"{backward(s, keep, lse, dp)[1].tolist()}")
    x = torch.full((1, 8), 12.0, device=DEVICE, dtype=torch.float16)
    print("float16 scores of 12 without the max subtracted:", softmax_no_max(x)[0].tolist())


if __name__ == "__main__":
    main()
