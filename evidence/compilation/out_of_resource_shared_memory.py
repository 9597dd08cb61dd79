"""TP027's GPU evidence (`triton-faq bench`): the shared memory each config needs, and whether it launches."""

from snippets.compilation import out_of_resource_shared_memory as entry
from triton_faq.evidence import gpu_evidence, label, table

TABLE_CONFIGS = [
    dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_stages=3),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=2),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=3),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=4),
    entry.SMALLER_K,
    entry.FEWER_STAGES,
    dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=2),
    dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_stages=3),
    entry.TOO_BIG,
]


@gpu_evidence("shared-memory-per-config")
def observe_shared_memory_per_config():
    """Shared memory each config needs (fp16 matmul, num_warps=8), and whether it launches."""
    import torch
    from triton.runtime.errors import OutOfResources

    limit = entry.max_shared_mem(torch.cuda.current_device())
    a = torch.randn(512, 512, dtype=torch.float16, device="cuda")
    b = torch.randn(512, 512, dtype=torch.float16, device="cuda")
    rows = []
    for config in TABLE_CONFIGS:
        try:
            _, ret = entry.run_matmul(a, b, **config)
            used, outcome = ret.metadata.shared, "ran"
        except OutOfResources as error:  # the observation: recorded, not swallowed
            used, outcome = error.required, str(error)
        rows.append([config["BLOCK_M"], config["BLOCK_N"], config["BLOCK_K"], config["num_stages"],
                     entry.tile_bytes(**config), used, limit, used <= limit, outcome])
    return table(
        [label("BLOCK_M", "BLOCK_M"), label("BLOCK_N", "BLOCK_N"), label("BLOCK_K", "BLOCK_K"),
         label("num_stages", "num_stages"), label("A+B tiles, bytes per stage", "A+B tile，每个 stage 的字节数"),
         label("shared bytes (metadata.shared or error.required)", "共享内存字节数（metadata.shared 或 error.required）"),
         label("max_shared_mem", "max_shared_mem"), label("fits", "放得下"),
         label("launch: ran, or the error text", "启动结果：ran，或错误信息原文")],
        rows, max_shared_mem=limit,
    )
