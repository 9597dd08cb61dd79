"""TP035's GPU evidence (`triton-faq bench`): error and speed of a float32 matmul per input_precision."""

import torch

from snippets.matmul import float32_dot_runs_as_tf32 as entry
from triton_faq.evidence import gpu_evidence, label, median_ms, table
from triton_faq.testing import fresh_randn, poisoned

BENCH_SIZE = 4096


def _torch_matmul(a, b, precision):
    """torch.matmul with float32 matmul precision 'highest' (allow_tf32=False) or 'high' (allow_tf32=True)."""
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(precision)
    try:
        return torch.matmul(a, b), median_ms(lambda: torch.matmul(a, b))
    finally:
        torch.set_float32_matmul_precision(previous)


@gpu_evidence("dot-precision")
def measure_dot_precision():
    """Error vs float64 and speed of a 4096^3 float32 matmul, per input_precision, next to torch.matmul.

    The reference for speed is cuBLAS (torch.matmul) at the same precision, measured in this run:
    TF32-class rows are compared with torch's TF32 matmul, full-float32 rows with torch's float32 one.
    """
    n = BENCH_SIZE
    a, b = fresh_randn(n, n), fresh_randn(n, n)
    reference = a.double() @ b.double()
    flops = 2 * n ** 3
    torch_rows, ceiling = [], {}
    for precision, flag in (("highest", "False"), ("high", "True")):
        result, timing = _torch_matmul(a, b, precision)
        ceiling[flag] = timing["median_ms"]
        torch_rows.append([f"torch.matmul, allow_tf32={flag}", entry.relative_error(result, reference),
                           timing["median_ms"], flops / (timing["median_ms"] * 1e-3) / 1e12, 1.0])
    rows = []
    for precision in ("default", "tf32", "tf32x3", "ieee"):
        out = poisoned(n, n)
        run = lambda: entry.matmul(a, b, precision, 128, 128, 32, num_warps=8, num_stages=3, out=out)  # noqa: E731
        run()
        error = entry.relative_error(out, reference)
        timing = median_ms(run)
        same_precision = ceiling["True" if precision in ("default", "tf32") else "False"]
        rows.append([f"tl.dot, input_precision={precision}" if precision != "default" else "tl.dot (default)",
                     error, timing["median_ms"], flops / (timing["median_ms"] * 1e-3) / 1e12,
                     same_precision / timing["median_ms"]])
    return table(
        [label("product", "乘法", "product"),
         label("relative error vs float64", "相对 float64 的误差", "relative_error"),
         label("time ms (median)", "耗时 毫秒（中位数）", "time_ms"),
         label("TFLOP/s", "TFLOP/s", "tflops"),
         label("speed vs torch.matmul at the same precision", "相对同精度 torch.matmul 的速度", "vs_torch")],
        rows + torch_rows, size=n,
    )
