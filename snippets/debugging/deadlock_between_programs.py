"""TP056: a kernel hangs: one program waits on a flag that another program of the same launch sets.

Run it: python deadlock_between_programs.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def handoff_kernel(x_ptr, total_ptr, flag_ptr, out_ptr, gave_up_ptr,
                   MAX_SPINS: tl.constexpr, PRODUCER_IS_LAST: tl.constexpr, BLOCK: tl.constexpr):
    """One program (the producer) sums x and raises a flag; every other program waits for it."""
    pid = tl.program_id(0)
    producer = 0
    if PRODUCER_IS_LAST:
        producer = tl.num_programs(0) - 1  # the others wait on a program launched after them
    gave_up = 0
    if pid == producer:
        tl.store(total_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK))))
        tl.atomic_xchg(flag_ptr, 1, sem="release")  # publish the total, then the flag
    else:
        seen = tl.atomic_cas(flag_ptr, 1, 1, sem="acquire")  # reads the flag (writes 1 only over a 1)
        spins = 0
        while (seen == 0) & (spins < MAX_SPINS):  # a BOUNDED spin: an unbounded one hangs the GPU
            seen = tl.atomic_cas(flag_ptr, 1, 1, sem="acquire")
            spins += 1
        gave_up = (seen == 0).to(tl.int32)
    tl.store(gave_up_ptr + pid, gave_up)
    tl.store(out_ptr + pid, tl.load(total_ptr, volatile=True))  # NaN if the producer has not written it


MAX_SPINS = 10 if DEVICE == "cpu" else 20_000  # the interpreter is slow: ten tries are plenty there


def handoff(x, n_programs, producer_is_last, max_spins=MAX_SPINS):
    """Every program's copy of sum(x), and which programs gave up waiting (1) for the producer."""
    total = torch.full((1,), float("nan"), device=x.device)
    flag = torch.zeros(1, dtype=torch.int32, device=x.device)
    out = torch.full((n_programs,), float("nan"), device=x.device)  # NaN until a program writes it
    gave_up = torch.full((n_programs,), -1, dtype=torch.int32, device=x.device)
    handoff_kernel[(n_programs,)](x, total, flag, out, gave_up, MAX_SPINS=max_spins,
                                  PRODUCER_IS_LAST=producer_is_last, BLOCK=x.numel())
    return out, gave_up
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def total_kernel(x_ptr, total_ptr, BLOCK: tl.constexpr):
    tl.store(total_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK))))


@triton.jit
def use_total_kernel(total_ptr, out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.load(total_ptr))


def handoff_fixed(x, n_programs):
    total = torch.full((1,), float("nan"), device=x.device)
    out = torch.full((n_programs,), float("nan"), device=x.device)
    total_kernel[(1,)](x, total, BLOCK=x.numel())
    use_total_kernel[(n_programs,)](total, out)  # the fix: a second launch starts after the first has finished
    return out
# --8<-- [end:fix]


def main():
    x = torch.randn(16, device=DEVICE)
    print("sum(x):", round(x.sum().item(), 4))
    for producer_is_last in (True, False):
        out, gave_up = handoff(x, 4, producer_is_last)
        who = "the last program" if producer_is_last else "program 0"
        print(f"producer is {who}: gave up {gave_up.tolist()}, totals {[round(v, 4) for v in out.tolist()]}")
    print("two launches:", [round(v, 4) for v in handoff_fixed(x, 4).tolist()])


if __name__ == "__main__":
    main()
