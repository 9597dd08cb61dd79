"""TP058's GPU evidence (`triton-faq bench`): num_stages on a tl.dot loop and on a kernel with no loop.

The matmul is timed next to torch.matmul on the same fp16 inputs in the same run; the elementwise
kernel next to torch's copy_ of 1 GiB measured in the same run (`copy_ceiling_gbps`), a measured
reference, not a physical bound.
"""

import torch
import triton

from snippets.performance import num_stages_and_pipelining as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)

BLOCK_M, BLOCK_N, BLOCK_K, NUM_WARPS = 128, 128, 64, 8
SHAPES = [  # (M, N, K, the num_stages to time)
    (4096, 4096, 4096, [1, 2, 3, 4, 5]),  # 64 steps of the K loop: room to fill any of these pipelines
    (4096, 4096, 4072, [1, 3]),  # K not a multiple of 16: A's loads are left out of the pipeline
    (8192, 8192, 128, [1, 2, 4]),  # 2 steps of the K loop: a pipeline of 4 stages never fills
]
N_ELEMENTWISE = 2**28  # float32: 1 GiB in, 1 GiB out


def relative_error(c, reference):
    return float((c.double() - reference.double()).norm() / reference.double().norm())


@gpu_evidence("matmul-num-stages")
def matmul_num_stages():
    """TFLOP/s of the 128x128x64 fp16 matmul for each num_stages, next to torch.matmul on the same inputs."""
    rows = []
    for M, N, K, stages in SHAPES:
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        reference = torch.matmul(a, b)
        flops = 2 * M * N * K
        torch_ms = median_ms(lambda: torch.matmul(a, b))["median_ms"]
        steps = triton.cdiv(K, BLOCK_K)
        rows.append([f"{M}x{N}x{K}", steps, "torch.matmul", "-", "-", torch_ms, flops / torch_ms / 1e9, 1.0])
        for num_stages in stages:
            c, ret = entry.matmul(a, b, num_stages=num_stages, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                  num_warps=NUM_WARPS)
            if relative_error(c, reference) > 1e-2:
                raise AssertionError(f"num_stages={num_stages} on {M}x{N}x{K}: wrong result")
            ms = median_ms(lambda: entry.matmul_kernel[(M // BLOCK_M, N // BLOCK_N)](
                a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=NUM_WARPS,
                num_stages=num_stages))["median_ms"]
            rows.append([f"{M}x{N}x{K}", steps, "matmul_kernel", num_stages, ret.metadata.shared, ms,
                         flops / ms / 1e9, torch_ms / ms])
    return table(
        [label("M x N x K", "M x N x K", "shape"), label("steps of the K loop", "K 循环的步数", "steps"),
         label("implementation", "实现", "implementation"), label("num_stages", "num_stages", "num_stages"),
         label("shared memory, bytes (metadata.shared)", "共享内存字节数（metadata.shared）", "shared"),
         label("median ms", "中位数 毫秒", "ms"), label("TFLOP/s", "TFLOP/s", "tflops"),
         label("fraction of torch.matmul", "占 torch.matmul 的比例", "fraction_of_torch")],
        rows,
        tiles={"BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N, "BLOCK_K": BLOCK_K, "num_warps": NUM_WARPS},
    )


@gpu_evidence("elementwise-num-stages")
def elementwise_num_stages():
    """GB/s of scale_shift (no loop) for each num_stages on 2**28 float32, and whether its PTX changed."""
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N_ELEMENTWISE, device="cuda")
    expected = x * 2 + 1
    rows, first_ptx = [], None
    for num_stages in (1, 2, 3, 4, 5):
        y, ret = entry.scale_shift_launch(x, num_stages)
        if not torch.equal(y, expected):
            raise AssertionError(f"num_stages={num_stages} wrote a wrong result")
        first_ptx = first_ptx or ret.asm["ptx"]
        grid = (triton.cdiv(N_ELEMENTWISE, 1024),)
        timing = median_ms(lambda: entry.scale_shift[grid](x, y, N_ELEMENTWISE, BLOCK=1024, num_stages=num_stages))
        rows.append([num_stages, ret.metadata.shared, ret.asm["ptx"] == first_ptx,
                     *memory_bound_cells(timing, 2 * N_ELEMENTWISE * 4, ceiling)])
    return table(
        [label("num_stages", "num_stages", "num_stages"),
         label("shared memory, bytes", "共享内存字节数", "shared"),
         label("same PTX as num_stages=1", "PTX 与 num_stages=1 相同", "same_ptx"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=N_ELEMENTWISE,
    )
