"""TP018: `time.perf_counter()` around a launch, without a synchronize, times only the launch.

Run it: python host_timer_without_sync.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import time  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:kernel]
@triton.jit
def axpb(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def launcher(x, out, block=1024):
    n = x.numel()
    return lambda: axpb[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
def host_ms_without_sync(fn):
    start = time.perf_counter()
    fn()  # on a GPU this only queues the kernel and returns
    return (time.perf_counter() - start) * 1e3
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def host_ms_with_sync(fn):
    synchronize()  # the fix: nothing queued earlier may end inside our interval
    start = time.perf_counter()
    fn()
    synchronize()  # the fix: wait until the kernel has finished
    return (time.perf_counter() - start) * 1e3
# --8<-- [end:fix]


# --8<-- [start:paired]
def host_and_event_ms(fn, sync):
    """Host time and CUDA-event time of one and the same launch."""
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    fn()
    end.record()
    if sync:
        torch.cuda.synchronize()
    host = (time.perf_counter() - t0) * 1e3
    end.synchronize()
    return host, start.elapsed_time(end)


def big_launch():
    n = 2**30  # 4 GiB read and 4 GiB written: a kernel of a few milliseconds on an H200
    x = torch.ones(n, device=DEVICE)
    fn = launcher(x, torch.empty_like(x))
    fn()  # compile and load it first
    torch.cuda.synchronize()
    return fn
# --8<-- [end:paired]


# --8<-- [start:first-call]
@triton.jit
def first_call_demo(x_ptr, n, BLOCK: tl.constexpr, SALT: tl.constexpr):
    # SALT is unused: a value never seen before is a new specialization, so a new compilation
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs.to(tl.float32), mask=offs < n)


def first_and_second_call_ms(n=1024):
    x = torch.empty(n, device=DEVICE)
    salt = time.time_ns()  # not in memory, not in Triton's on-disk cache
    fn = lambda: first_call_demo[(triton.cdiv(n, 1024),)](x, n, BLOCK=1024, SALT=salt)
    return host_ms_with_sync(fn), host_ms_with_sync(fn)
# --8<-- [end:first-call]


def main():
    x = torch.arange(10_000, dtype=torch.float32, device=DEVICE)
    out = torch.full_like(x, float("nan"))
    fn = launcher(x, out)
    print(f"first call, with synchronize: {host_ms_with_sync(fn):.3f} ms")
    print(f"second call, with synchronize: {host_ms_with_sync(fn):.3f} ms")
    print(f"second call, no synchronize: {host_ms_without_sync(fn):.3f} ms")
    print("out[:4] =", out[:4].tolist(), "(2 * x + 1)")
    if DEVICE == "cuda":
        fn = big_launch()
        for sync in (False, True):
            host, kernel = host_and_event_ms(fn, sync)
            print(f"8 GiB moved, sync={sync}: host {host:.3f} ms, CUDA events {kernel:.3f} ms")


if __name__ == "__main__":
    main()
