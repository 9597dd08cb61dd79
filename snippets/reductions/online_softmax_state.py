"""TP007: online softmax: the running max `m` and denominator `d`, rescaled when `m` grows.

Run it: python online_softmax_state.py  (without a GPU, Triton's interpreter runs it on the CPU)
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


# --8<-- [start:fix]
@triton.jit
def softmax_online(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((), -float("inf"), tl.float32)  # running max
    d = tl.zeros((), tl.float32)                # running denominator: sum of exp(x - m)
    for start in range(0, n_cols, BLOCK):       # pass 1: one block of columns at a time
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)  # the fix: rescale the old sum
        m = m_new
    for start in range(0, n_cols, BLOCK):       # pass 2: write exp(x - m) / d
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m) / d, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:pitfall]
@triton.jit
def softmax_online_no_rescale(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((), -float("inf"), tl.float32)
    d = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d + tl.sum(tl.exp(x - m_new), axis=0)  # BUG: the old terms were relative to the old m
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m) / d, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:launch]
def softmax(kernel, x, block=16):
    """Softmax of each row of a 2-D float32 tensor, one program per row, `block` columns at a time."""
    n_rows, n_cols = x.shape
    y = torch.full((n_rows, n_cols), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(n_rows,)](x, y, n_cols, x.stride(0), y.stride(0), BLOCK=block)
    return y
# --8<-- [end:launch]


# --8<-- [start:vector-state]
@triton.jit
def softmax_online_vector_state(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)  # one running max per lane
    d = tl.zeros((BLOCK,), tl.float32)                # one running sum per lane
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, x)                      # no reduction inside the loop
        m_ref = tl.where(m_new == -float("inf"), 0.0, m_new)  # a lane with no value yet: 0, not -inf - -inf = NaN
        d = d * tl.exp(m - m_ref) + tl.exp(x - m_ref)
        m = m_new
    m_row = tl.max(m, axis=0)                         # merge the lanes once, at the end
    d_row = tl.sum(d * tl.exp(m - m_row), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride_x + start + cols, mask=mask, other=-float("inf"))
        tl.store(y_ptr + row * stride_y + start + cols, tl.exp(x - m_row) / d_row, mask=mask)
# --8<-- [end:vector-state]


def main():
    x = torch.cat([torch.zeros(1, 16), torch.full((1, 16), 20.0)], dim=1).to(DEVICE)
    print("one row: 16 zeros then 16 values of 20 (two blocks of 16)")
    print("  row sum, d rescaled     :", softmax(softmax_online, x).sum().item())
    print("  row sum, d not rescaled :", softmax(softmax_online_no_rescale, x).sum().item())
    x = torch.linspace(990.0, 1010.0, 37, device=DEVICE).reshape(1, 37)
    error = (softmax(softmax_online, x).double() - torch.softmax(x.double(), dim=1)).abs().max()
    print("37 values from 990 to 1010: max abs error vs float64 softmax:", error.item())


if __name__ == "__main__":
    main()
