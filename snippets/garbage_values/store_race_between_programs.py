"""TP005: several programs writing one address: lost updates, atomics, and a deterministic two-pass sum.

Run it: python store_race_between_programs.py  (without a GPU, Triton's interpreter runs it on the CPU)
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


# --8<-- [start:fix]
@triton.jit
def count_atomic(counter_ptr):
    tl.atomic_add(counter_ptr, 1)  # the fix: read-add-write as one indivisible step


@triton.jit
def histogram_atomic(x_ptr, bins_ptr, BLOCK: tl.constexpr):
    bins = tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(bins_ptr + bins, 1)  # the fix: one atomic per lane, duplicates included
# --8<-- [end:fix]


# --8<-- [start:launch]
def count(kernel, n_programs):
    """Launch `n_programs` programs that each add 1 to one int32 counter."""
    counter = torch.zeros(1, dtype=torch.int32, device=DEVICE)
    kernel[(n_programs,)](counter)
    return int(counter.item())


def histogram(kernel, x, n_bins, block):
    """Count the int32 bin numbers in `x`, one program per `block` of them."""
    bins = torch.zeros(n_bins, dtype=torch.int32, device=DEVICE)
    kernel[(x.numel() // block,)](x, bins, BLOCK=block)
    return bins.tolist()
# --8<-- [end:launch]


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
    partials = torch.full((n_partials,), float("nan"), device=DEVICE)  # NaN until a program writes it
    out = torch.full((1,), float("nan"), device=DEVICE)
    partial_sums[(n_partials,)](x, partials, x.numel(), BLOCK=block)
    sum_partials[(1,)](partials, out, n_partials, BLOCK=triton.next_power_of_2(n_partials))
    return out
# --8<-- [end:sums]


# --8<-- [start:two-pass-counter]
@triton.jit
def count_own_slot(slots_ptr):
    tl.store(slots_ptr + tl.program_id(0), 1.0)  # each program writes only its own slot


def count_two_pass(n_programs):
    """The counter without atomics: one slot per program, then one program adds the slots."""
    slots = torch.full((n_programs,), float("nan"), device=DEVICE)
    out = torch.full((1,), float("nan"), device=DEVICE)
    count_own_slot[(n_programs,)](slots)
    sum_partials[(1,)](slots, out, n_programs, BLOCK=triton.next_power_of_2(n_programs))
    return int(out.item())
# --8<-- [end:two-pass-counter]


def main():
    n = 4096 if DEVICE == "cuda" else 300
    print(f"{n} programs each add 1 to one counter")
    print("  load + store :", [count(count_racy, n) for _ in range(3)])
    print("  tl.atomic_add:", [count(count_atomic, n) for _ in range(3)])
    print("  two passes   :", [count_two_pass(n) for _ in range(3)])
    x = torch.sin(torch.arange(2**16 if DEVICE == "cuda" else 1024, device=DEVICE, dtype=torch.float32))
    print("float sum of the same input, 3 runs")
    print("  atomic  :", [total_atomic(x, 32).item() for _ in range(3)])
    print("  two-pass:", [total_two_pass(x, 32).item() for _ in range(3)])
    print("  float64 :", float(x.double().sum()))


if __name__ == "__main__":
    main()
