"""Correct kernels and host code that look close to a pitfall: the lint's default rules (and the
opt-in rules that are not heuristics) must report nothing here (tests/test_lint_recall.py). Not run."""

import time

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.testing import do_bench

EPS = tl.constexpr(1e-6)


def zero_output(nargs):
    nargs["out_ptr"].zero_()


# 1. the identity as `other`, then a where that keeps it
@triton.jit
def softmax_rowmax(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


# 2. block-wise quantisation: one scale for the whole tile is meant
@triton.jit
def quantise_block(x_ptr, y_ptr, s_ptr, M, N, BLOCK: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    scale = tl.max(tl.abs(x)) / 448.0
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], x / scale, mask=mask)
    tl.store(s_ptr + tl.program_id(0) * tl.num_programs(1) + tl.program_id(1), scale)


# 3. libdevice.tanh, and the stable hand-written form
@triton.jit
def tanh_right(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    y = tl.where(x >= 0, t, -t) + libdevice.tanh(x)
    tl.store(out_ptr + offs, y, mask=offs < n)


# 4. an atomic split-K, reset by a pre_hook of each config
@triton.autotune(configs=[triton.Config({"BLOCK": 64}, pre_hook=zero_output),
                          triton.Config({"BLOCK": 128}, pre_hook=zero_output)], key=["n"])
@triton.jit
def column_sums(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr + tl.program_id(1) * stride, tl.sum(x, axis=0))


# 5. an in-place update with restore_value; an atomic that no config reaches
@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"],
                 restore_value=["x_ptr"])
@triton.jit
def scale_in_place(x_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * alpha, mask=offs < n)


@triton.autotune(configs=[triton.Config({"BLOCK": 64, "SPLIT": 1}), triton.Config({"BLOCK": 128, "SPLIT": 1})],
                 key=["n"])
@triton.jit
def maybe_split(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SPLIT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    if SPLIT == 1:
        tl.store(out_ptr, total)
    else:
        tl.atomic_add(out_ptr, total)


# 6. tl.maximum / tl.minimum / tl.abs on blocks; Python's max on scalars
@triton.jit
def clamp_right(x_ptr, n, limit, K, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    steps = max(K, 1)
    y = tl.minimum(tl.abs(x), limit) + tl.maximum(x, 0.0) * steps
    tl.store(x_ptr + offs, y, mask=offs < n)


# 7. & on masks; `and` on constexpr flags; a return outside any loop
@triton.jit
def masked_2d(x_ptr, M, N, stride, HAS_X: tl.constexpr, EVEN: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    if not HAS_X and not EVEN:
        return
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(x_ptr + rm[:, None] * stride + rn[None, :], 0.0, mask=mask)


# 8. a constexpr global, a print guarded by the program id, an assert in debug mode
@triton.jit(debug=True)
def rms_norm(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / n + EPS)
    tl.device_assert(rms > 0, "zero row")
    if tl.program_id(0) == 0:
        tl.device_print("rms", rms)
    tl.store(out_ptr + cols, x / rms, mask=cols < n)


# ---- host code

def launch(x, out):
    n = x.numel()
    softmax_rowmax[(n // 1024,)](x, out, 1024, 1024, BLOCK=1024)


# 9. a synchronize before the second read; a CPU timer; a sync() callback in a deadline loop
def time_launch(x, out):
    start = time.perf_counter()
    launch(x, out)
    torch.cuda.synchronize()
    return time.perf_counter() - start


def time_on_cpu(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start  # a CPU function: named so


def wait_until(done, sync, deadline_s):
    start = time.monotonic()
    while not done():
        sync()
        if time.monotonic() - start > deadline_s:
            raise TimeoutError


# 10. do_bench asked for the median; rows on axis 0
def bench_launch(x, out):
    return do_bench(lambda: launch(x, out), return_mode="median")


def scale_rows(x, out):
    n_rows, n_cols = x.shape
    softmax_rowmax[(n_rows, triton.cdiv(n_cols, 256))](x, out, n_cols, n_cols, BLOCK=256)
