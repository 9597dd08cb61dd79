"""TP027: `OutOfResources: out of resource: shared memory`: a config whose pipelined tiles do not fit.

Run it: python out_of_resource_shared_memory.py  (without a GPU, Triton's interpreter runs it on the CPU;
the interpreter has no shared memory and never raises this error, so only the arithmetic shows there)
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


# --8<-- [start:kernel]
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr,  # constexpr: a plain int for the interpreter's loop
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A @ B for row-major fp16 A (M x K) and B (K x N), fp32 accumulator and output
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):  # num_stages: how many A and B tiles are in flight at once
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run_matmul(a, b, BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps=8):
    """Launch `matmul` with one config; return the output and what the launch returned."""
    (M, K), (_, N) = a.shape, b.shape
    c = torch.full((M, N), float("nan"), device=a.device)  # NaN until a program writes it
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    ret = matmul[grid](a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                       num_stages=num_stages, num_warps=num_warps)
    return c, ret  # ret: the CompiledKernel on a GPU, None on the interpreter
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
TOO_BIG = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=4)  # A+B tiles: 96 KiB per stage
# --8<-- [end:pitfall]


# --8<-- [start:fix]
FEWER_STAGES = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=1)  # the fix: one stage of tiles
SMALLER_K = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, num_stages=4)      # or: a quarter of BLOCK_K
# --8<-- [end:fix]


# --8<-- [start:bytes]
def tile_bytes(BLOCK_M, BLOCK_N, BLOCK_K, **_):
    """Bytes of one fp16 A tile plus one fp16 B tile: what each pipeline stage buffers."""
    return (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2


def max_shared_mem(device=0):
    """GPU only: the per-block shared memory limit Triton checks against (bytes; the opt-in maximum)."""
    return triton.runtime.driver.active.utils.get_device_properties(device)["max_shared_mem"]


def shared_bytes(config, M=512, N=512, K=512):
    """GPU only: metadata.shared of a config, compiled without launching (warmup checks no limit)."""
    a = torch.zeros(M, K, dtype=torch.float16, device=DEVICE)
    b = torch.zeros(K, N, dtype=torch.float16, device=DEVICE)
    c = torch.empty(M, N, device=DEVICE)
    compiled = matmul.warmup(a, b, c, M, N, K, num_warps=8, grid=(1,), **config)
    return compiled.metadata.shared
# --8<-- [end:bytes]


# --8<-- [start:autotune]
CONFIGS = [
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128}, num_stages=4, num_warps=8),  # too big
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=2, num_warps=4),
]


def tuned_matmul(a, b, configs=CONFIGS):
    """Autotune `matmul` over `configs` for a @ b; return the output and the Autotuner."""
    (M, K), (_, N) = a.shape, b.shape
    tuner = triton.autotune(configs=configs, key=["M", "N", "K"])(matmul)
    c = torch.full((M, N), float("nan"), device=a.device)
    tuner[lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))](a, b, c, M, N, K)
    return c, tuner
# --8<-- [end:autotune]


def main():
    configs = {"TOO_BIG": TOO_BIG, "FEWER_STAGES": FEWER_STAGES, "SMALLER_K": SMALLER_K}
    print("fp16 A+B tiles per stage x num_stages (the pipeline's buffers):")
    for name, config in configs.items():
        per_stage = tile_bytes(**config)
        print(f"  {name:12} {per_stage:6} x {config['num_stages']} = {per_stage * config['num_stages']:6} bytes")
    if DEVICE == "cuda":
        print("this GPU's max_shared_mem:", max_shared_mem(torch.cuda.current_device()), "bytes")
    M, N, K = (512, 512, 512) if DEVICE == "cuda" else (256, 128, 128)  # K > BLOCK_K: a loop to pipeline
    a = torch.randn(M, K, dtype=torch.float16, device=DEVICE)
    b = torch.randn(K, N, dtype=torch.float16, device=DEVICE)
    for name, config in configs.items():
        try:
            c, _ = run_matmul(a, b, **config)
            print(f"  {name:12} ran; max |c - a @ b| = {(c.double() - a.double() @ b.double()).abs().max().item():.1e}")
        except triton.runtime.errors.OutOfResources as error:  # what the GPU says about TOO_BIG
            print(f"  {name:12} {type(error).__name__}: {error}")
    if DEVICE == "cpu":
        print("(the interpreter has no shared memory: every config runs; the error shows only on a GPU)")


if __name__ == "__main__":
    main()
