"""TP055: a tiny Triton kernel loses to PyTorch: the time is the launch, not the kernel.

Run it: python launch_overhead.py  (without a GPU, Triton's interpreter runs the kernels on the CPU
and the timings are skipped: they need a GPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import statistics  # noqa: E402
import time  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def scale_each(xs):
    """Double each small tensor of the list xs: one launch per tensor."""
    outs = [torch.full_like(x, float("nan")) for x in xs]  # NaN until a program writes it
    for x, out in zip(xs, outs):
        scale_kernel[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)  # a launch per tensor
    return outs
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def scale_batched(x):
    """Double a (batch, n) tensor: the small tensors stacked, one launch for all of them."""
    out = torch.full_like(x, float("nan"))
    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)  # the fix: one launch
    return out
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def capture(fn):
    """Record fn's launches once in a CUDA graph; the returned replay() re-issues them all (GPU only)."""
    fn()  # compile and load the kernels before the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # the fix when the launches cannot be merged: no Python per launch
        fn()
    return graph.replay  # replays read and write the same tensors: update inputs in place
# --8<-- [end:fix-more]


# --8<-- [start:direct]
def launch_compiled(kernel, grid, *args):
    """Compile for these arguments once; return a launcher that skips the per-call binding (GPU only)."""
    compiled = kernel.warmup(*args, grid=grid)  # the CompiledKernel for these dtypes, alignments, values
    grid = tuple(grid) + (1,) * (3 - len(grid))  # a CompiledKernel takes all three grid axes
    return compiled[grid]  # call it with arguments of the same kinds only: nothing checks them any more
# --8<-- [end:direct]


# --8<-- [start:args]
@triton.jit
def args_1(out_ptr):
    tl.store(out_ptr, 1.0)


@triton.jit
def args_8(out_ptr, p1, p2, p3, p4, p5, p6, p7):
    total = (tl.load(p1) + tl.load(p2) + tl.load(p3) + tl.load(p4) + tl.load(p5) + tl.load(p6) + tl.load(p7))
    tl.store(out_ptr, total)


@triton.jit
def args_32(out_ptr, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17,
                     p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31):
    total = (tl.load(p1) + tl.load(p2) + tl.load(p3) + tl.load(p4) + tl.load(p5) + tl.load(p6) + tl.load(p7)
             + tl.load(p8) + tl.load(p9) + tl.load(p10) + tl.load(p11) + tl.load(p12) + tl.load(p13) + tl.load(p14)
             + tl.load(p15) + tl.load(p16) + tl.load(p17) + tl.load(p18) + tl.load(p19) + tl.load(p20) + tl.load(p21)
             + tl.load(p22) + tl.load(p23) + tl.load(p24) + tl.load(p25) + tl.load(p26) + tl.load(p27) + tl.load(p28)
             + tl.load(p29) + tl.load(p30) + tl.load(p31))
    tl.store(out_ptr, total)
# --8<-- [end:args]


# --8<-- [start:timer]
def us_per_launch(fn, launches_per_call=1, calls=1000, repeats=7):
    """Median wall-clock µs per launch of `calls` back-to-back calls of fn, synchronised at the end (GPU)."""
    fn()  # warm-up: compilation and loading stay out of the numbers
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / (calls * launches_per_call) * 1e6)
    return statistics.median(samples)
# --8<-- [end:timer]


def main():
    xs = [torch.randn(100, device=DEVICE) for _ in range(8)]
    each = scale_each(xs)
    batched = scale_batched(torch.stack(xs))
    print("8 launches and 1 launch give the same values:", torch.equal(torch.stack(each), batched))
    if DEVICE != "cuda":
        print("timings skipped: they need a GPU")
        return
    out = torch.empty(1, device=DEVICE)
    inputs = [torch.ones(1, device=DEVICE) for _ in range(31)]
    tiny = torch.zeros(1, device=DEVICE)
    print(f"torch x.add_(1) on one element: {us_per_launch(lambda: tiny.add_(1)):.1f} µs per launch")
    for kernel, n_args in ((args_1, 1), (args_8, 8), (args_32, 32)):
        launch = lambda: kernel[(1,)](out, *inputs[: n_args - 1])  # noqa: E731
        replay = capture(lambda: [launch() for _ in range(100)])
        print(f"triton, {n_args:2d} arguments: {us_per_launch(launch):5.1f} µs per launch,"
              f" {us_per_launch(replay, launches_per_call=100, calls=20):5.2f} in a CUDA graph")


if __name__ == "__main__":
    main()
