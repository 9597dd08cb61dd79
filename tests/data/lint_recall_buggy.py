"""Kernels and host code with one handbook pitfall each, as they are written in real code: the lint
must find each at the line marked ``# expect: TPnnn`` (tests/test_lint_recall.py). Not run."""

import time
from time import perf_counter

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice  # noqa: F401
from triton.testing import do_bench as bench, do_bench_cudagraph

exp = tl.exp
EPS = 1e-6


# 1. TP001: a row maximum over a masked load with no `other`, through an intermediate name
@triton.jit
def softmax_rowmax(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)
    scaled = x * 0.5
    m = tl.max(scaled, axis=0)  # expect: TP001
    tl.store(out_ptr + row, m)


# 2. TP001: a product reduction of a masked load
@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def row_product(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n_cols)
    tl.store(out_ptr, tl.reduce(x, 0, _mul))  # expect: TP001


# 3. TP003: the tutorial's two-step offsets, no mask
@triton.jit
def add_no_mask(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # expect: TP003
    y = tl.load(y_ptr + offsets)  # expect: TP003
    tl.store(out_ptr + offsets, x + y)  # expect: TP003


# 4. TP006: a per-row maximum that reduces the whole 2-D tile
@triton.jit
def row_max_2d(x_ptr, out_ptr, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    tile = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])  # expect: TP003
    tl.store(out_ptr + rows, tl.max(tile))  # expect: TP006 TP003


# 5. TP009: a block of 96 lanes
@triton.jit
def head_dim_96(x_ptr, out_ptr):
    d = tl.arange(0, 96)  # expect: TP009
    tl.store(out_ptr + d, tl.load(x_ptr + d))


# 6. TP021: the Triton 2 spelling of tanh
@triton.jit
def gelu_tanh(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)
    tl.store(out_ptr + offs, 0.5 * x * (1 + tl.math.tanh(inner)), mask=offs < n)  # expect: TP021


# 7. TP022: tanh by hand, split over statements, exp through an alias
@triton.jit
def tanh_split(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    e2x = exp(2.0 * x)
    numerator = e2x - 1.0
    denominator = e2x + 1.0
    tl.store(out_ptr + offs, numerator / denominator, mask=offs < n)  # expect: TP022


# 8. TP022: the exp(x) / exp(-x) form
@triton.jit
def tanh_sinh_cosh(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    ep, en = tl.exp(x), tl.exp(-x)
    tl.store(out_ptr + offs, (ep - en) / (ep + en), mask=offs < n)  # expect: TP022


# 9. TP024: the expert-weight offset that wraps: rows times K over all experts
@triton.jit
def moe_weight_rows(w_ptr, out_ptr, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    w = tl.load(w_ptr + offs_m[:, None] * K + offs_k[None, :])  # expect: TP024 TP003
    tl.store(out_ptr + offs_m, tl.sum(w, axis=1))  # expect: TP003


# 10. TP028: split-K accumulation through a pointer advanced with +=, autotuned, nothing reset
@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])  # expect: TP028
@triton.jit
def column_sums(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    target = out_ptr
    target += tl.program_id(1) * stride
    tl.atomic_add(target, tl.sum(x, axis=0))


# 11. TP028: an in-place update, autotuned over configs built elsewhere
CONFIGS = [triton.Config({"BLOCK": b}) for b in (64, 128, 256)]


@triton.autotune(configs=CONFIGS, key=["n"])  # expect: TP028
@triton.jit
def scale_in_place(x_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * alpha, mask=offs < n)


# 12. TP032: block pointers (once per file)
@triton.jit
def copy_tile(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride, 1), offsets=(0, 0),  # expect: TP032
                            block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(stride, 1), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))


# 13. TP033: a plain global epsilon
@triton.jit
def rms_norm(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / n + EPS)  # expect: TP033
    tl.store(out_ptr + cols, x / rms, mask=cols < n)


# 14. TP043: an early exit from a search loop
@triton.jit
def first_nonzero(x_ptr, out_ptr, n):
    for i in range(0, n):
        if tl.load(x_ptr + i) != 0:
            tl.store(out_ptr, i)
            return  # expect: TP043
    tl.store(out_ptr, n)


# 15. TP046: ReLU with Python's max
@triton.jit
def relu_builtin(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, max(x, 0.0), mask=offs < n)  # expect: TP046


# 16. TP046: a clamp with min and an abs
@triton.jit
def clamp_abs(x_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = min(abs(x), limit)  # expect: TP046 TP046
    tl.store(x_ptr + offs, y, mask=offs < n)


# 17. TP048: two masks joined with `and`
@triton.jit
def masked_2d(x_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = rm[:, None] < M and rn[None, :] < N  # expect: TP048
    tl.store(x_ptr + rm[:, None] * stride + rn[None, :], 0.0, mask=mask)


# 18. TP048: the chained comparison and an `if` on a block
@triton.jit
def in_window(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inside = x > lo & x < hi  # expect: TP048
    if x > 0:  # expect: TP048
        x = x * 2
    tl.store(out_ptr + offs, inside.to(tl.int32) + x.to(tl.int32), mask=offs < n)


# 19. TP013 and TP014: a print in every program, an assert compiled out
@triton.jit
def debug_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_print("x", x)  # expect: TP013
    tl.device_assert(x == x, "NaN")  # expect: TP014


# 20. TP034 and TP035: argmax ties, a float32 dot
@triton.jit
def dot_and_argmax(a_ptr, b_ptr, c_ptr, i_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    a = tl.load(a_ptr + i[:, None] * B + i[None, :])
    b = tl.load(b_ptr + i[:, None] * B + i[None, :])
    c = tl.dot(a, b)  # expect: TP035
    tl.store(c_ptr + i[:, None] * B + i[None, :], c)
    tl.store(i_ptr + i, tl.argmax(c, axis=1, tie_break_left=False))  # expect: TP034


# 21. TP047: a lookup table as a dict, and a filtered comprehension
@triton.jit
def activation(x_ptr, n, KIND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    slope = {"relu": 0.0, "leaky": 0.01}[KIND]  # expect: TP047
    rows = [r for r in (0, 1, 2, 3) if r != 2]  # expect: TP047
    tl.store(x_ptr + offs + len(rows), tl.where(x > 0, x, x * slope), mask=offs < n)


# ---- host code

def launch_add(x, y, out):
    add_no_mask[(triton.cdiv(x.numel(), 1000),)](x, y, out, x.numel(), BLOCK_SIZE=1000)  # expect: TP009


# 22. TP017: a timer handed a same-file launcher's result
def bench_add_wrong(x, y, out):
    return bench(launch_add(x, y, out), quantiles=[0.5])  # expect: TP017


# 23. TP018: a launch through a same-file function, timed with an imported perf_counter
def time_add(x, y, out):
    start = perf_counter()
    launch_add(x, y, out)
    return perf_counter() - start  # expect: TP018


# 24. TP018: timing through a decorator
def timed(fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        result = fn(*args, **kwargs)
        print(f"{fn.__name__}: {time.perf_counter() - t0:.6f} s")  # expect: TP018
        return result
    return wrapper


# 25. TP018: timing a local lambda
def time_relu(x):
    run = lambda: relu_builtin[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)  # noqa: E731
    t0 = time.time()
    for _ in range(10):
        run()
    return (time.time() - t0) / 10  # expect: TP018


# 26. TP031: do_bench under another name, do_bench_cudagraph, both the mean (once per file)
def bench_both(x, y, out):
    eager = bench(lambda: launch_add(x, y, out))  # expect: TP031
    graph = do_bench_cudagraph(lambda: launch_add(x, y, out))
    return eager, graph


# 27. TP031: fast_flush
def bench_flush(x, y, out):
    return bench(lambda: launch_add(x, y, out), fast_flush=False, return_mode="median")  # expect: TP031


# 28. TP037: one program per row on axis 1
def scale_rows(x, s, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_cols, 256), n_rows)  # expect: TP037
    row_max_2d[grid](x, out, n_cols, ROWS=1, COLS=256)
    return out


# 29. TP037: batch * heads on axis 1 of an attention grid
def attention_grid(q):
    batch, heads, seq, _ = q.shape
    return lambda meta: (triton.cdiv(seq, meta["BLOCK_M"]), batch * heads)  # not a launch: not reported


def attention(q, out):
    batch, heads, seq, _ = q.shape
    softmax_rowmax[(triton.cdiv(seq, 64), batch * heads)](q, out, seq, q.stride(2), BLOCK=64)  # expect: TP037


if __name__ == "__main__":
    torch.manual_seed(0)
