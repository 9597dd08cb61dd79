"""TP075: what tl.atomic_add returns, lane by lane and program by program.

Run it: python atomic_add_return_value.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def compact_pitfall(x_ptr, out_ptr, count_ptr, n, BLOCK: tl.constexpr):
    """Append the positive values of x to out, in any order."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    keep = x > 0
    slot = tl.atomic_add(count_ptr, tl.sum(keep.to(tl.int32), axis=0))  # the count *before* the add
    slot = slot + 1  # wrong: taken as the value after the add, so the block starts one slot late
    tl.store(out_ptr + slot + tl.cumsum(keep.to(tl.int32), axis=0) - 1, x, mask=keep)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def compact_fixed(x_ptr, out_ptr, count_ptr, n, BLOCK: tl.constexpr):
    """Append the positive values of x to out, in any order."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    keep = x > 0
    start = tl.atomic_add(count_ptr, tl.sum(keep.to(tl.int32), axis=0))  # the fix: the old count is this block's first slot
    tl.store(out_ptr + start + tl.cumsum(keep.to(tl.int32), axis=0) - 1, x, mask=keep)
# --8<-- [end:fix]


# --8<-- [start:launch]
def compact(kernel, x, BLOCK=128):
    """The positive values of x (sorted, since blocks may land in any order) and the final count."""
    out = torch.full((x.numel() + 1,), float("nan"), device=x.device)  # one spare slot shows an overrun
    count = torch.zeros(1, dtype=torch.int32, device=x.device)
    kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, count, x.numel(), BLOCK=BLOCK)
    return out, int(count.item())
# --8<-- [end:launch]


# --8<-- [start:lanes]
@triton.jit
def tickets(counter_ptr, out_ptr, BLOCK: tl.constexpr):
    """Every lane of every program adds 1 to one counter and keeps what it got back."""
    lanes = tl.arange(0, BLOCK)
    old = tl.atomic_add(counter_ptr + lanes * 0, 1)  # BLOCK lanes, one address
    tl.store(out_ptr + tl.program_id(0) * BLOCK + lanes, old)


@triton.jit
def masked_return(counter_ptr, out_ptr, BLOCK: tl.constexpr):
    """Only the first half of the lanes add; what do the others get back?"""
    lanes = tl.arange(0, BLOCK)
    old = tl.atomic_add(counter_ptr + lanes, 1, mask=lanes < BLOCK // 2)
    tl.store(out_ptr + lanes, old)


def lane_tickets(programs=4, BLOCK=8):
    counter = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    out = torch.full((programs * BLOCK,), -1, dtype=torch.int32, device=DEVICE)
    tickets[(programs,)](counter, out, BLOCK=BLOCK)
    return out.cpu(), int(counter.item())


def masked_lanes(BLOCK=8, start=5):
    counter = torch.full((BLOCK,), start, dtype=torch.int32, device=DEVICE)
    out = torch.full((BLOCK,), -1, dtype=torch.int32, device=DEVICE)
    masked_return[(1,)](counter, out, BLOCK=BLOCK)
    return out.cpu().tolist(), counter.cpu().tolist()
# --8<-- [end:lanes]


# --8<-- [start:scalar-broadcast]
@triton.jit
def write_row_at_ticket(index_ptr, out_ptr):
    """Triton issue 7402: a one-element atomic result broadcast to a [1, 8] store."""
    write_index = tl.atomic_add(index_ptr + tl.arange(0, 1), val=1, sem="relaxed")
    tl.store(out_ptr + write_index[:, None] * 8 + tl.arange(0, 8)[None, :], tl.full([1, 8], 2, dtype=tl.int64))


def broadcast_ticket():
    index = torch.ones(1, dtype=torch.int32, device=DEVICE)
    out = torch.zeros(2, 8, dtype=torch.int64, device=DEVICE)
    write_row_at_ticket[(1,)](index, out)
    return out.cpu().tolist()
# --8<-- [end:scalar-broadcast]


def main():
    x = torch.randn(1000, device=DEVICE)
    for name, kernel in (("pitfall", compact_pitfall), ("fixed", compact_fixed)):
        out, count = compact(kernel, x)
        kept = out[:count]
        print(f"{name}: count {count}, NaN in the first count slots: {int(kept.isnan().sum())}")
    print("lane tickets:", lane_tickets()[0].tolist())
    print("masked lanes:", masked_lanes())
    print("issue 7402's kernel:", broadcast_ticket())


if __name__ == "__main__":
    main()
