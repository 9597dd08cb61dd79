"""TP024: offsets computed in int32 wrap around on tensors beyond 2**31 elements.

Run it: python int32_offset_overflow.py  (without a GPU, Triton's interpreter runs it on the CPU)

`python int32_offset_overflow.py --offsets [--int64]` prints the offsets `pid * stride` of four
programs; `run_child` runs that in a fresh process with TRITON_DEBUG=1, because a failed device
assert leaves the CUDA context unusable.
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

import inspect
import subprocess
import sys

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def scale_pitfall(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # int32
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # int32: wraps once pid * BLOCK > 2**31 - 1
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * alpha, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scale(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # the fix: promote before the first multiplication
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # int64 from here on
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * alpha, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:offsets]
STRIDE = 2**30 + 1  # a row stride below 2**31: passed to the kernel as int32


@triton.jit
def row_offsets(out_ptr, stride):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, pid * stride)  # <- int32 * int32 when stride < 2**31


@triton.jit
def row_offsets_int64(out_ptr, stride):
    pid = tl.program_id(0).to(tl.int64)
    tl.store(out_ptr + pid, pid * stride)


def offsets(kernel, stride, programs=4):
    """What `pid * stride` comes out as in programs 0, 1, 2, 3 (stored into int64)."""
    out = torch.zeros(programs, dtype=torch.int64, device=DEVICE)
    kernel[(programs,)](out, stride)
    return out.tolist()
# --8<-- [end:offsets]


# --8<-- [start:types]
@triton.jit
def check_types(stride, STRIDE_IS_INT64: tl.constexpr):
    tl.static_assert(tl.program_id(0).dtype == tl.int32)
    if STRIDE_IS_INT64:
        tl.static_assert(stride.dtype == tl.int64)
    else:
        tl.static_assert(stride.dtype == tl.int32)
# --8<-- [end:types]


# --8<-- [start:child]
def run_child(*flags, **env):
    """`python <this file> --offsets [flags]` in a fresh process on the same backend."""
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_DEBUG"}
    environ.update(env)
    script = inspect.getsourcefile(run_child)  # this file
    return subprocess.run([sys.executable, script, "--offsets", *flags], env=environ,
                          capture_output=True, text=True, timeout=300)
# --8<-- [end:child]


# --8<-- [start:big]
BLOCK = 1024
N_BIG = 2**31 + BLOCK  # just beyond 2**31 elements: the last block starts at offset 2**31
PAD = 2**31  # x and y start PAD elements into buffers we own, so a wrapped offset lands in them
TAIL = 4 * BLOCK


def launch_big(kernel):
    """Run `kernel` on float16 x, y of N_BIG elements (GPU only: 16 GiB); report what it wrote, where."""
    x_buf = torch.zeros(PAD + N_BIG, dtype=torch.float16, device=DEVICE)
    y_buf = torch.full((PAD + N_BIG,), float("nan"), dtype=torch.float16, device=DEVICE)
    x, y = x_buf[PAD:], y_buf[PAD:]  # 4 GiB each; x is 0 except where set below
    x_buf[:BLOCK] = torch.randn(BLOCK, device=DEVICE)  # data 2**31 elements before x
    x[-TAIL:] = torch.randn(TAIL, device=DEVICE)
    kernel[(triton.cdiv(N_BIG, BLOCK),)](x, y, N_BIG, 2.0, BLOCK=BLOCK)
    result = {
        "x_before": x_buf[:BLOCK].cpu(), "y_before": y_buf[:BLOCK].cpu(),  # 2**31 elements before x, y
        "rest_before_y_is_nan": bool(torch.isnan(y_buf[BLOCK:PAD]).all()),
        "x_tail": x[-TAIL:].cpu(), "y_tail": y[-TAIL:].cpu(),
        "y_middle_is_zero": bool((y[:-TAIL] == 0).all()),
    }
    del x_buf, y_buf, x, y
    torch.cuda.empty_cache()
    return result
# --8<-- [end:big]


def main():
    if "--offsets" in sys.argv:
        kernel = row_offsets_int64 if "--int64" in sys.argv else row_offsets
        print("offsets:", offsets(kernel, STRIDE), flush=True)
        return
    print(f"pid * stride for pids 0..3, stride = 2**30 + 1 = {STRIDE}")
    print("  exact           :", [pid * STRIDE for pid in range(4)])
    print("  int32 (pitfall) :", offsets(row_offsets, STRIDE))
    print("  int64 (fix)     :", offsets(row_offsets_int64, STRIDE))
    print("  stride = 2**31  :", offsets(row_offsets, 2**31), "(passed as int64)")


if __name__ == "__main__":
    main()
