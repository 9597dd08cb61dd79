"""TP024: offsets computed in int32 wrap around on tensors beyond 2**31 elements.

Run it: ``python snippets/out_of_bounds/int32_offset_overflow.py``
(on a machine without a GPU it runs through Triton's interpreter).

``python snippets/out_of_bounds/int32_offset_overflow.py --offsets [--int64]`` prints the
offsets `pid * stride` of four programs; the tests run it in a child process with
``TRITON_DEBUG=1``, because a failed device assert leaves the CUDA context unusable.
"""

import functools
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import torch

from triton_faq import backend
from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[2]


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
    pid = tl.program_id(0).to(tl.int64)  # promote before the first multiplication
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # int64 from here on
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * alpha, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:offsets]
@triton.jit
def row_offsets(out_ptr, stride):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, pid * stride)  # <- int32 * int32 when stride < 2**31


@triton.jit
def row_offsets_int64(out_ptr, stride):
    pid = tl.program_id(0).to(tl.int64)
    tl.store(out_ptr + pid, pid * stride)


def offsets(kernel, stride: int, programs: int = 4) -> list[int]:
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


def wrap_int32(value: int) -> int:
    """`value` as a two's-complement int32 wraps it."""
    return (value + 2**31) % 2**32 - 2**31


# ---------------------------------------------------------------- on every backend
# --8<-- [start:test-offsets]
STRIDE = 2**30 + 1  # a row stride below 2**31: passed to the kernel as int32


def test_program_id_is_int32_and_int_arguments_are_int32_below_2_31():
    check_types[(1,)](2**31 - 1, STRIDE_IS_INT64=False)
    check_types[(1,)](2**31, STRIDE_IS_INT64=True)


def test_pitfall_pid_times_stride_wraps_around_in_int32():
    assert offsets(row_offsets, STRIDE) == [0, 1073741825, -2147483646, -1073741821]
    assert offsets(row_offsets, STRIDE) == [wrap_int32(pid * STRIDE) for pid in range(4)]


def test_pitfall_the_largest_int32_stride_wraps_too():
    assert offsets(row_offsets, 2**31 - 1) == [0, 2147483647, -2, 2147483645]


def test_a_stride_of_2_31_or_more_is_int64_so_the_same_code_is_right():
    assert offsets(row_offsets, 2**31) == [pid * 2**31 for pid in range(4)]


def test_fix_int64_program_id_gives_the_true_offsets():
    assert offsets(row_offsets_int64, STRIDE) == [0, 1073741825, 2147483650, 3221225475]
    assert offsets(row_offsets_int64, STRIDE) == [pid * STRIDE for pid in range(4)]
# --8<-- [end:test-offsets]


# --8<-- [start:test-small]
@pytest.mark.parametrize("kernel", [scale_pitfall, scale], ids=["pitfall", "fix"])
@pytest.mark.parametrize("n", [1, 1000, 4096 + 7])
def test_both_kernels_are_right_on_small_tensors(kernel, n):
    x = fresh_randn(n)
    y = poisoned(n)
    kernel[(triton.cdiv(n, 1024),)](x, y, n, 2.5, BLOCK=1024)
    assert_matches_float64(y, x.double() * 2.5)
# --8<-- [end:test-small]


# ---------------------------------------------------------------- TRITON_DEBUG=1, in a child process
# --8<-- [start:child]
def run_child(*flags: str, **env: str) -> subprocess.CompletedProcess:
    """`python <this file> --offsets [flags]` in a fresh process on the current backend."""
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_DEBUG"}
    environ.update(TRITON_FAQ_BACKEND=backend.BACKEND, PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, __file__, "--offsets", *flags], env=environ, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
# --8<-- [end:child]


@functools.lru_cache(maxsize=None)
def debug_child(kernel: str) -> subprocess.CompletedProcess:
    """The offsets kernel (`int32` or `int64`) run once with TRITON_DEBUG=1."""
    return run_child(*(["--int64"] if kernel == "int64" else []), TRITON_DEBUG="1")


def line_of(marker: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.rstrip().endswith(marker))


OVERFLOW_MUL = "int32 overflow detected for operation mul"
MUL_LINE = "# <- int32 * int32 when stride < 2**31"


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
def test_interpreter_wraps_without_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert offsets(row_offsets, STRIDE) == [0, 1073741825, -2147483646, -1073741821]
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []  # numpy says nothing


@pytest.mark.interpreter
def test_interpreter_triton_debug_does_not_catch_the_overflow():
    child = debug_child("int32")
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["offsets: [0, 1073741825, -2147483646, -1073741821]"]
# --8<-- [end:test-interpreter]


# --8<-- [start:test-gpu-debug]
@pytest.mark.gpu
def test_gpu_triton_debug_reports_the_overflow():
    child = debug_child("int32")
    assert child.returncode != 0
    assert f"Assertion `{OVERFLOW_MUL}` failed" in child.stdout + child.stderr
    assert "device-side assert triggered" in child.stderr


@pytest.mark.gpu
def test_gpu_triton_debug_names_the_line_of_the_multiplication():
    child = debug_child("int32")
    lines = re.findall(rf"int32_offset_overflow\.py:(\d+): .*Assertion `{OVERFLOW_MUL}` failed",
                       child.stdout + child.stderr)
    assert lines and set(lines) == {str(line_of(MUL_LINE))}


@pytest.mark.gpu
def test_gpu_triton_debug_is_quiet_for_the_int64_fix():
    child = debug_child("int64")
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["offsets: [0, 1073741825, 2147483650, 3221225475]"]
# --8<-- [end:test-gpu-debug]


# ---------------------------------------------------------------- beyond 2**31 elements, on the GPU
# --8<-- [start:big]
BLOCK = 1024
N_BIG = 2**31 + BLOCK  # just beyond 2**31 elements: the last block starts at offset 2**31
PAD = 2**31  # x and y start PAD elements into buffers we own, so a wrapped offset lands in them
TAIL = 4 * BLOCK


@functools.lru_cache(maxsize=None)
def launch_big(name: str) -> dict:
    """Run `scale_pitfall` or `scale` on float16 x, y of N_BIG elements; report what it wrote, where."""
    kernel = {"scale_pitfall": scale_pitfall, "scale": scale}[name]
    x_buf = torch.zeros(PAD + N_BIG, dtype=torch.float16, device=DEVICE)
    y_buf = torch.full((PAD + N_BIG,), float("nan"), dtype=torch.float16, device=DEVICE)
    x, y = x_buf[PAD:], y_buf[PAD:]  # 4 GiB each; x is 0 except where set below
    x_buf[:BLOCK] = fresh_randn(BLOCK, dtype=torch.float16)  # data 2**31 elements before x
    x[-TAIL:] = fresh_randn(TAIL, dtype=torch.float16)
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


# --8<-- [start:test-gpu-big]
@pytest.mark.gpu
def test_gpu_pitfall_leaves_the_last_block_unwritten():
    r = launch_big("scale_pitfall")
    assert torch.isnan(r["y_tail"][-BLOCK:]).all()  # y[2**31:] never written
    assert_matches_float64(r["y_tail"][:-BLOCK], r["x_tail"][:-BLOCK].double() * 2)


@pytest.mark.gpu
def test_gpu_pitfall_writes_the_last_block_2_31_elements_before_y():
    r = launch_big("scale_pitfall")
    assert torch.equal(r["y_before"], r["x_before"] * 2)  # y[-2**31 : -2**31 + BLOCK] = 2 * x[-2**31 : ...]
    assert r["rest_before_y_is_nan"]


@pytest.mark.gpu
def test_gpu_fix_writes_exactly_y():
    r = launch_big("scale")
    assert_matches_float64(r["y_tail"], r["x_tail"].double() * 2)
    assert r["y_middle_is_zero"]
    assert torch.isnan(r["y_before"]).all() and r["rest_before_y_is_nan"]  # nothing written before y
# --8<-- [end:test-gpu-big]


# The error message this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that this produces the message it is claimed for.
def overflow_with_triton_debug() -> str:
    child = debug_child("int32")
    return child.stdout + child.stderr


def first_line_with(text: str, output: str) -> str:
    """The first line of `output` containing `text`, without this repository's path, as inline code."""
    line = next((line for line in output.splitlines() if text in line), "")
    return f"`` {line.strip().replace(str(ROOT) + os.sep, '')} ``" if line else ""


@gpu_evidence("beyond-2-31")
def observe_beyond_2_31():
    """Where each kernel's last block went on float16 tensors of 2**31 + 1024 elements."""
    rows = []
    for name in ["scale_pitfall", "scale"]:
        r = launch_big(name)
        last = r["y_tail"][-BLOCK:]
        rows.append([f"`{name}`", int((~torch.isnan(last)).sum()),
                     bool(torch.equal(last, r["x_tail"][-BLOCK:] * 2)),
                     int((~torch.isnan(r["y_before"])).sum()), not r["rest_before_y_is_nan"]])
    return table(
        [label("kernel", "kernel"), label("elements of y's last block written", "y 最后一个 block 写入的元素数"),
         label("y's last block = 2 * x's", "y 最后一个 block = 2 * x"),
         label("elements written in y[-2**31 : -2**31 + 1024]", "写入 y[-2**31 : -2**31 + 1024] 的元素数"),
         label("anything written further before y", "更靠前的位置也被写了")],
        rows, n_elements=N_BIG,
    )


@gpu_evidence("triton-debug-overflow")
def observe_triton_debug_overflow():
    """What TRITON_DEBUG=1 prints for `pid * stride` in int32 and in int64 (child processes)."""
    rows = []
    for name, kernel in [("`row_offsets`", "int32"), ("`row_offsets_int64`", "int64")]:
        child = debug_child(kernel)
        output = child.stdout + child.stderr
        rows.append([name, child.returncode, first_line_with("offsets:", child.stdout),
                     first_line_with("Assertion", output), first_line_with("device-side assert", child.stderr)])
    return table(
        [label("kernel", "kernel"), label("return code", "返回码"), label("printed offsets", "打印的偏移"),
         label("first line quoting the assertion", "第一行引用断言的输出"),
         label("first stderr line with \"device-side assert\"", "stderr 中第一行含 \"device-side assert\" 的")],
        rows,
    )


def main():
    if "--offsets" in sys.argv:
        kernel = row_offsets_int64 if "--int64" in sys.argv else row_offsets
        print("offsets:", offsets(kernel, STRIDE), flush=True)
        return
    print(describe())
    print(f"pid * stride for pids 0..3, stride = 2**30 + 1 = {STRIDE}")
    print("  exact           :", [pid * STRIDE for pid in range(4)])
    print("  int32 (pitfall) :", offsets(row_offsets, STRIDE))
    print("  int64 (fix)     :", offsets(row_offsets_int64, STRIDE))
    print("  stride = 2**31  :", offsets(row_offsets, 2**31), "(passed as int64)")


if __name__ == "__main__":
    main()
