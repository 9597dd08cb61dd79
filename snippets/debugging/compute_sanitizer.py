"""TP015: compute-sanitizer sees no overrun in a PyTorch tensor until the caching allocator is off.

Run it: ``python snippets/debugging/compute_sanitizer.py`` (prints the commands), and on a GPU:
``compute-sanitizer --tool memcheck python snippets/debugging/compute_sanitizer.py --overrun``
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import torch

import triton_faq
from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[2]


# --8<-- [start:pitfall]
@triton.jit
def sum_without_mask(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # OVERRUN: reads BLOCK elements, whatever the size of x
    tl.store(out_ptr, tl.sum(x, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def sum_with_mask(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(x, axis=0))
# --8<-- [end:fix]


# --8<-- [start:overrun]
N, BLOCK = 1000, 2048  # 1000 floats; the pitfall reads 2048 of them


def overrun():
    """The pitfall on 1000 floats: it reads past the end of x (run only on CUDA)."""
    x = torch.ones(N, device=DEVICE)
    out = torch.zeros(1, device=DEVICE)
    sum_without_mask[(1,)](x, out, BLOCK=BLOCK)
    torch.cuda.synchronize()
    print("overrun kernel finished", flush=True)
# --8<-- [end:overrun]


# --8<-- [start:same-allocation]
ROWS, COLS = 8, 4


@triton.jit
def row_sums(x_ptr, out_ptr, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * stride_row + tl.arange(0, BLOCK))
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def preallocated_buffer():
    return torch.arange(2 * ROWS * COLS, dtype=torch.float32, device=DEVICE).reshape(2 * ROWS, COLS)


def rows_of_a_buffer():
    """The first ROWS rows of a preallocated (2 * ROWS, COLS) buffer: a view, one allocation."""
    return preallocated_buffer()[:ROWS]


def row_sums_wrong_stride(x, out):
    row_sums[(ROWS,)](x, out, x.shape[0], BLOCK=COLS)  # BUG: x.shape[0] (8) where x.stride(0) (4) belongs


def row_sums_right_stride(x, out):
    row_sums[(ROWS,)](x, out, x.stride(0), BLOCK=COLS)
# --8<-- [end:same-allocation]


# --8<-- [start:wrong-stride]
def wrong_stride():
    """The wrong row stride on a view: it reads past the view, but not past the buffer."""
    x = rows_of_a_buffer()
    out = torch.zeros(ROWS, device=DEVICE)
    row_sums_wrong_stride(x, out)
    torch.cuda.synchronize()
    print("wrong-stride kernel finished:", out.tolist(), flush=True)
# --8<-- [end:wrong-stride]


# --8<-- [start:test-same-allocation]
def test_wrong_stride_silently_sums_every_other_row_of_the_buffer():
    buffer = preallocated_buffer()
    out = poisoned(ROWS)
    row_sums_wrong_stride(buffer[:ROWS], out)
    assert out.cpu().tolist() == buffer[::2].sum(dim=1).cpu().tolist()  # buffer rows 0, 2, ..., 14


@pytest.mark.interpreter
def test_checked_reports_the_wrong_stride_where_it_leaves_the_view():
    x = rows_of_a_buffer()
    with pytest.raises(triton_faq.OutOfBounds) as raised:
        with triton_faq.checked():
            row_sums_wrong_stride(x, poisoned(ROWS))
    report = str(raised.value)
    assert "out-of-bounds load in kernel row_sums at " in report
    assert "argument x_ptr: element offset 32 (4 lanes out of bounds, offsets 32..35)" in report
    assert "the tensor has 32 elements, valid offsets 0..31" in report


def test_fix_row_stride_from_the_tensor_matches_float64():
    x = fresh_randn(2 * ROWS * COLS).reshape(2 * ROWS, COLS)[:ROWS]
    out = poisoned(ROWS)
    row_sums_right_stride(x, out)
    assert_matches_float64(out, x.double().sum(dim=1))
# --8<-- [end:test-same-allocation]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 2048])
def test_masked_sum_matches_float64(n):
    x = fresh_randn(n).abs()  # positive, so the relative error of the sum stays small
    out = poisoned(1)
    sum_with_mask[(1,)](x, out, n, BLOCK=BLOCK)
    assert_matches_float64(out, x.double().sum().reshape(1))
# --8<-- [end:test-fix]


# ---------------------------------------------------------------- on the GPU
def find_sanitizer():
    found = shutil.which("compute-sanitizer")
    if found is None and Path("/usr/local/cuda/bin/compute-sanitizer").is_file():
        found = "/usr/local/cuda/bin/compute-sanitizer"
    if found is None:
        pytest.skip("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")
    return found


def sanitize(mode="--overrun", **env):
    """compute-sanitizer --tool memcheck python <this file> <mode>, in a child process."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTORCH_NO_CUDA_MEMORY_CACHING"}
    result = subprocess.run(
        [find_sanitizer(), "--tool", "memcheck", sys.executable, __file__, mode],
        capture_output=True, text=True, timeout=540,
        env={**environ, "PYTHONPATH": str(ROOT), **env},
    )
    return result.stdout + result.stderr


def overrun_line() -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# OVERRUN:" in line and "tl.load" in line)


# --8<-- [start:test-gpu]
@pytest.mark.gpu
def test_gpu_the_overrun_goes_unnoticed_without_a_sanitizer():
    result = subprocess.run([sys.executable, __file__, "--overrun"], capture_output=True, text=True,
                            timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    assert "overrun kernel finished" in result.stdout


@pytest.mark.gpu
def test_gpu_memcheck_reports_0_errors_with_the_caching_allocator():
    report = sanitize()
    assert "overrun kernel finished" in report
    assert "ERROR SUMMARY: 0 errors" in report


@pytest.mark.gpu
def test_gpu_memcheck_reports_the_overrun_without_the_caching_allocator():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert re.search(r"ERROR SUMMARY: [1-9]\d* errors?", report)
    assert "Invalid __global__ read of size" in report


@pytest.mark.gpu
def test_gpu_memcheck_names_the_kernel():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert re.search(r"at sum_without_mask\+0x[0-9a-f]+", report)


@pytest.mark.gpu
def test_gpu_memcheck_names_the_python_line_of_the_load():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert f"{Path(__file__).name}:{overrun_line()}" in report


@pytest.mark.gpu
def test_gpu_memcheck_says_how_far_past_which_allocation():
    report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert re.search(r"is \d+ bytes after the nearest allocation at 0x[0-9a-f]+ of size 4,000 bytes", report)
# --8<-- [end:test-gpu]


# --8<-- [start:test-gpu-same-allocation]
@pytest.mark.gpu
def test_gpu_memcheck_reports_0_errors_for_an_overrun_inside_the_same_allocation():
    report = sanitize("--wrong-stride", PYTORCH_NO_CUDA_MEMORY_CACHING="1")
    assert "wrong-stride kernel finished" in report
    assert "ERROR SUMMARY: 0 errors" in report
# --8<-- [end:test-gpu-same-allocation]


# The error message this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that this produces the message it is claimed for.
def memcheck_report_without_the_caching_allocator() -> str:
    return sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1")  # skips when compute-sanitizer is missing


def memcheck_report_with_the_caching_allocator() -> str:
    return sanitize()  # the overrun, unseen: "ERROR SUMMARY: 0 errors"


def first_line(pattern, report):
    """The first line of `report` matching `pattern`, without memcheck's "=========" prefix or our path."""
    line = next((line for line in report.splitlines() if re.search(pattern, line)), "")
    line = line.removeprefix("=========").strip().replace(str(ROOT) + os.sep, "")
    return f"`` {line} ``" if line else ""  # __global__ must not become bold


@gpu_evidence("sanitizer-summary")
def observe_sanitizer_summary():
    """memcheck's report on the overrun, with the caching allocator and without it."""
    try:
        find_sanitizer()
    except pytest.skip.Exception as missing:  # a test skips; the bench must fail, saying why
        raise RuntimeError(str(missing)) from None
    rows = []
    for no_caching in (False, True):
        report = sanitize(PYTORCH_NO_CUDA_MEMORY_CACHING="1") if no_caching else sanitize()
        rows.append([no_caching, "overrun kernel finished" in report, first_line(r"ERROR SUMMARY", report),
                     first_line(r"Invalid __global__ read", report), first_line(r"at sum_without_mask\+0x", report),
                     first_line(r"^=+\s+Address ", report), first_line(r"nearest allocation", report),
                     f"{Path(__file__).name}:{overrun_line()}" in report])
    return table(
        [label("PYTORCH_NO_CUDA_MEMORY_CACHING=1", "PYTORCH_NO_CUDA_MEMORY_CACHING=1"),
         label("the script finished", "脚本跑完了"), label("summary line", "汇总行"),
         label("first invalid read", "第一条非法读取"), label("first line naming the kernel", "第一行点名内核的输出"),
         label("first address line", "第一行地址说明"),
         label("first line about the nearest allocation", "第一行关于最近分配的说明"),
         label(f"names {Path(__file__).name}:{overrun_line()} (the tl.load)",
               f"点出了 {Path(__file__).name}:{overrun_line()}（那行 tl.load）")],
        rows,
    )


def main():
    if "--overrun" in sys.argv or "--wrong-stride" in sys.argv:
        if BACKEND != "cuda":
            raise SystemExit("--overrun and --wrong-stride read out of bounds; run them on a CUDA GPU "
                             "under compute-sanitizer")
        if "--overrun" in sys.argv:
            overrun()
        else:
            wrong_stride()
        return
    print(describe())
    print("on a CUDA machine, compare:")
    print("  compute-sanitizer --tool memcheck python snippets/debugging/compute_sanitizer.py --overrun")
    print("  PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck "
          "python snippets/debugging/compute_sanitizer.py --overrun")
    x = fresh_randn(N)
    out = poisoned(1)
    sum_with_mask[(1,)](x, out, N, BLOCK=BLOCK)
    print(f"masked sum of {N} floats: {out.item():.6f} (float64 reference {x.double().sum().item():.6f})")
    x = rows_of_a_buffer()
    out = poisoned(ROWS)
    row_sums_wrong_stride(x, out)
    print("row sums of the view with the wrong row stride:", out.cpu().tolist())
    print("row sums of the view                          :", x.sum(dim=1).cpu().tolist())
    try:
        with triton_faq.checked():
            row_sums_wrong_stride(x, poisoned(ROWS))
    except triton_faq.OutOfBounds as report:
        print("under triton_faq.checked():", str(report).splitlines()[0])
    except triton_faq.CheckedModeUnavailable as why:
        print("triton_faq.checked() needs the interpreter:", why)


if __name__ == "__main__":
    main()
