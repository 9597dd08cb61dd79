"""TP020: where register counts, spills, shared memory and per-config timings come from.

Run it: python registers_and_spills.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import time  # noqa: E402  (wall_clock_bench)
# --8<-- [end:prelude]


# --8<-- [start:kernel]
@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # One BLOCK_M x BLOCK_N tile: A is BLOCK_M x K, B is K x BLOCK_N, K a multiple of BLOCK_K.
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # lives in registers
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
def compile_tile(block=64, num_warps=4):
    """Compile without launching (the triton.compile route): metadata, but no n_regs until loaded."""
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "constexpr",
                 "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
    constexprs = {"K": 64, "BLOCK_M": block, "BLOCK_N": block, "BLOCK_K": 32}
    source = triton.compiler.ASTSource(fn=matmul_tile, signature=signature, constexprs=constexprs)
    return triton.compile(source, options={"num_warps": num_warps})
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def launch_tile(block, num_warps, K=64):
    """Launch one tile on random fp16 inputs; return what the launch returned, the output, A and B."""
    a = torch.randn(block, K, device=DEVICE, dtype=torch.float16)
    b = torch.randn(K, block, device=DEVICE, dtype=torch.float16)
    c = torch.full((block, block), float("nan"), device=DEVICE)  # NaN until the kernel writes it
    ret = matmul_tile[(1,)](a, b, c, K, BLOCK_M=block, BLOCK_N=block, BLOCK_K=32, num_warps=num_warps)
    return ret, c, a, b  # the fix: keep `ret`; on a GPU, ret.n_regs, ret.n_spills, ret.metadata.shared
# --8<-- [end:fix]


# --8<-- [start:timings]
def wall_clock_bench(fn, quantiles):
    """A benchmarker for the interpreter, which has no CUDA events."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return [float(torch.tensor(times).quantile(q)) for q in quantiles]


CONFIGS = [triton.Config({"BLOCK": 64}, num_warps=1), triton.Config({"BLOCK": 128}, num_warps=2)]


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 3.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def tuned_scale(x, out):
    """Autotune `scale` for x; return the Autotuner, which keeps its measurements."""
    bench = None if DEVICE == "cuda" else wall_clock_bench
    tuner = triton.autotune(configs=CONFIGS, key=["n"], do_bench=bench)(scale)
    n = x.numel()
    tuner[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return tuner
# --8<-- [end:timings]


def main():
    ret, c, a, b = launch_tile(block=128 if DEVICE == "cuda" else 32, num_warps=1)
    print("a launch returned:", type(ret).__name__)
    if ret is not None:
        for num_warps in (1, 8):
            ret, _, _, _ = launch_tile(block=128, num_warps=num_warps)
            print(f"128x128 tile, num_warps={num_warps}: n_regs={ret.n_regs} n_spills={ret.n_spills} "
                  f"shared={ret.metadata.shared} num_stages={ret.metadata.num_stages}")
    tuner = tuned_scale(torch.randn(1000, device=DEVICE), torch.full((1000,), float("nan"), device=DEVICE))
    for config, timing in tuner.configs_timings.items():
        print(f"config {config}: median {timing[0]:.3f} ms")
    print("best config:", tuner.best_config)


if __name__ == "__main__":
    main()
