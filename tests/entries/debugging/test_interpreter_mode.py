"""TP012's claims, one test each: snippets/debugging/interpreter_mode.py."""

import os
import re
import signal
import sys
import traceback
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl
import triton.testing
from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

import triton_checked
from snippets.debugging import interpreter_mode as entry
from triton_faq.backend import DEVICE
from triton_faq.fresh import run_python_once
from triton_faq.testing import assert_matches_float64, checked_error, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[3]
SNIPPET = Path(entry.__file__)
NO_DRIVER = "0 active drivers ([]). There should only be one."


def kernel_error(launch):
    """Launch, and return the error with its whole traceback as text."""
    with pytest.raises((InterpreterError, CompilationError)) as info:
        launch()
    return info.value, "".join(traceback.format_exception(info.value))


# ---------------------------------------------------------------- what it misses
def test_out_of_bounds_load_returns_the_neighbours_value_without_error():
    out = entry.copy_block(entry.copy_without_mask, n=4, block=8)  # x has 4 elements: no exception
    assert out.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, -7.0, -7.0, -7.0, -7.0]


def test_out_of_bounds_store_overwrites_the_neighbour_without_error():
    x, neighbour = entry.neighbours(n=4, block=8, sentinel=-7.0)
    entry.fill_without_mask[(1,)](x, 5.0, BLOCK=8)
    assert neighbour.cpu().tolist()[:4] == [5.0] * 4  # the neighbour's first 4 elements were hit
    assert neighbour.cpu().tolist()[4:] == [-7.0] * 8


@pytest.mark.parametrize("n", [1, 4, 8])
def test_fix_copies_the_n_elements_and_leaves_the_rest_unwritten(n):
    x = fresh_randn(n)
    out = poisoned(8)
    entry.copy_with_mask[(1,)](x, out, n, BLOCK=8)
    assert_matches_float64(out[:n], x.double())
    assert torch.isnan(out[n:]).all()


# ---------------------------------------------------------------- the far load
def run_snippet(*python_options):
    """Run the reader's file with --far-load in a fresh interpreter; it is expected to crash."""
    return run_python_once([*python_options, str(SNIPPET), "--far-load"], {**os.environ, "TRITON_INTERPRET": "1"},
                           timeout=120)  # once per test run: the error gate asks for the same run


def far_load_line() -> int:
    lines = SNIPPET.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# FAR-LOAD:" in line and "tl.load" in line)


@pytest.mark.interpreter
def test_interpreter_crashes_on_a_far_load_without_a_python_traceback():
    result = run_snippet()
    assert result.returncode == -signal.SIGSEGV
    assert "Traceback" not in result.stderr and "far load returned" not in result.stdout


@pytest.mark.interpreter
def test_faulthandler_shows_the_kernel_line_of_the_crash():
    result = run_snippet("-X", "faulthandler")
    assert result.returncode == -signal.SIGSEGV
    assert "Fatal Python error: Segmentation fault" in result.stderr
    assert f'File "{SNIPPET}", line {far_load_line()} in far_load' in result.stderr


# ---------------------------------------------------------------- what it catches
@pytest.mark.interpreter
def test_interpreter_names_the_kernel_line_of_a_shape_mismatch():
    x, out = torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE)
    error, text = kernel_error(lambda: entry.add_mismatched_blocks[(1,)](x, out))
    assert str(error) == ("ValueError('Cannot make_shape_compatible: "
                          "incompatible dimensions at index 0: 4 and 8')")
    assert f'File "{SNIPPET}"' in text
    assert "tl.store(out_ptr + tl.arange(0, 4), a + b)  # shapes (4,) and (8,)" in text


@pytest.mark.interpreter
def test_interpreter_names_the_kernel_line_of_a_non_power_of_two_arange():
    out = torch.zeros(128, dtype=torch.int32, device=DEVICE)
    error, text = kernel_error(lambda: entry.arange_of_100[(1,)](out))
    assert isinstance(error, InterpreterError)
    assert str(error) == 'ValueError("arange\'s range must be a power of 2")'
    assert f'File "{SNIPPET}"' in text and ", in arange_of_100" in text
    assert "offs = tl.arange(0, 100)  # not a power of two" in text


@pytest.mark.gpu
def test_compiled_kernels_report_the_shape_mismatch_when_they_compile():
    x, out = torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE)
    error, _ = kernel_error(lambda: entry.add_mismatched_blocks[(1,)](x, out))
    assert isinstance(error, CompilationError)
    assert "incompatible dimensions at index 0: 4 and 8" in str(error)
    assert "tl.store(out_ptr + tl.arange(0, 4), a + b)" in str(error)  # the message quotes the source


@pytest.mark.gpu
def test_compiled_kernels_report_the_same_errors_when_they_compile():
    out = torch.zeros(128, dtype=torch.int32, device=DEVICE)
    error, _ = kernel_error(lambda: entry.arange_of_100[(1,)](out))
    assert isinstance(error, CompilationError)
    assert "arange's range must be a power of 2" in str(error)
    assert "offs = tl.arange(0, 100)" in str(error)


# ---------------------------------------------------------------- print and breakpoint
@pytest.mark.interpreter
def test_python_print_inside_an_interpreted_kernel_prints_the_values(capsys, monkeypatch):
    monkeypatch.setattr(sys, "breakpointhook", lambda *args, **kwargs: None)
    entry.inspect_me[(2,)](torch.arange(6.0, device=DEVICE), 6, BLOCK=4)
    assert capsys.readouterr().out == "pid [0] x [0. 1. 2. 3.]\npid [1] x [4. 5. 0. 0.]\n"


@pytest.mark.interpreter
def test_breakpoint_inside_an_interpreted_kernel_sees_the_kernel_locals(monkeypatch, capsys):
    seen = []

    def hook(*args, **kwargs):  # stands in for pdb: record what the debugger would show
        frame = sys._getframe(1)
        seen.append((frame.f_code.co_name, frame.f_locals["offs"].handle.data.tolist()))

    monkeypatch.setattr(sys, "breakpointhook", hook)
    entry.inspect_me[(2,)](torch.arange(6.0, device=DEVICE), 6, BLOCK=4)
    assert seen == [("inspect_me", [0, 1, 2, 3]), ("inspect_me", [4, 5, 6, 7])]


# ---------------------------------------------------------------- GPU-only APIs without a GPU
@pytest.mark.interpreter
def test_do_bench_without_a_gpu_has_no_driver():
    if torch.cuda.is_available():
        pytest.skip("a CUDA driver is present, so do_bench finds it")
    with pytest.raises(RuntimeError, match=re.escape(NO_DRIVER)):
        gpu_timer_without_a_gpu()


@pytest.mark.interpreter
def test_autotune_without_a_gpu_and_without_do_bench_fails_the_same_way():
    if torch.cuda.is_available():
        pytest.skip("a CUDA driver is present, so the autotuner's default timer works")
    with pytest.raises(RuntimeError, match=re.escape(NO_DRIVER)):
        autotune_without_a_gpu()


@pytest.mark.interpreter
def test_autotune_with_its_own_do_bench_runs_on_the_interpreter():
    tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=wall_clock_bench)(add_one)
    x = torch.zeros(100, device=DEVICE)
    tuned[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, 100)
    assert tuned.best_config in CONFIGS
    assert x.cpu().tolist()[0] >= 1.0  # the kernel ran (once per config while tuning, then for real)


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def mismatched_block_shapes():
    entry.add_mismatched_blocks[(1,)](torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE))  # raises


def far_load_under_faulthandler() -> str:
    result = run_snippet("-X", "faulthandler")  # crashes with SIGSEGV
    return result.stdout + result.stderr


def gpu_timer_without_a_gpu():
    triton.testing.do_bench(lambda: None)  # raises on a machine without a GPU driver


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


CONFIGS = [triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})]


def wall_clock_bench(fn, quantiles):
    """A timer for the interpreter, shaped like do_bench: one time per quantile asked for."""
    import time

    start = time.perf_counter()
    fn()
    return [(time.perf_counter() - start) * 1e3] * len(quantiles)


def autotune_without_a_gpu():
    tuned = triton.autotune(configs=CONFIGS, key=["n"])(add_one)  # no do_bench: the GPU's timer
    x = torch.zeros(100, device=DEVICE)
    tuned[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, 100)


# The function the page's checked-report marker shows.
def missed_overrun_checked() -> str:
    """The same unmasked copy under triton_checked.checked(): the traceback the advice promises."""
    x, _ = entry.neighbours(n=4, block=8, sentinel=-7.0)
    out = torch.zeros(8, device=DEVICE)
    return str(checked_error(lambda: entry.copy_without_mask[(1,)](x, out, 4, BLOCK=8), triton_checked.OutOfBounds))


@pytest.mark.interpreter
def test_checked_interpreter_raises_with_the_line_argument_and_offset():
    report = missed_overrun_checked()
    assert report.startswith("out-of-bounds load in kernel copy_without_mask at ")
    assert "tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # no mask: reads BLOCK elements" in report
    assert "argument x_ptr: element offset 4 (4 lanes out of bounds, offsets 4..7)" in report
    assert "the tensor has 4 elements, valid offsets 0..3" in report
