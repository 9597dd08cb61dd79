"""TP012: what ``TRITON_INTERPRET=1`` catches, and what it does not.

Run it: ``python snippets/debugging/interpreter_mode.py``
(on a machine without a GPU it runs through Triton's interpreter).
``--far-load`` runs a load far outside any allocation (it crashes the process on purpose).
"""

import os
import signal
import subprocess
import sys
import traceback
from pathlib import Path

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

ROOT = Path(__file__).resolve().parents[2]


# --8<-- [start:caught]
@triton.jit
def arange_of_100(out_ptr):
    offs = tl.arange(0, 100)  # not a power of two
    tl.store(out_ptr + offs, offs)


@triton.jit
def add_mismatched_blocks(x_ptr, out_ptr):
    a = tl.load(x_ptr + tl.arange(0, 4))
    b = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(out_ptr + tl.arange(0, 4), a + b)  # shapes (4,) and (8,)
# --8<-- [end:caught]


# --8<-- [start:test-caught]
def kernel_error(launch):
    """Launch, and return the error with its whole traceback as text."""
    with pytest.raises((InterpreterError, CompilationError)) as info:
        launch()
    return info.value, "".join(traceback.format_exception(info.value))


@pytest.mark.interpreter
def test_interpreter_names_the_kernel_line_of_a_non_power_of_two_arange():
    out = torch.zeros(128, dtype=torch.int32, device=DEVICE)
    error, text = kernel_error(lambda: arange_of_100[(1,)](out))
    assert isinstance(error, InterpreterError)
    assert str(error) == 'ValueError("arange\'s range must be a power of 2")'
    assert f'File "{__file__}"' in text and ", in arange_of_100" in text
    assert "offs = tl.arange(0, 100)  # not a power of two" in text


@pytest.mark.interpreter
def test_interpreter_names_the_kernel_line_of_a_shape_mismatch():
    x, out = torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE)
    error, text = kernel_error(lambda: add_mismatched_blocks[(1,)](x, out))
    assert str(error) == ("ValueError('Cannot make_shape_compatible: "
                          "incompatible dimensions at index 0: 4 and 8')")
    assert "tl.store(out_ptr + tl.arange(0, 4), a + b)  # shapes (4,) and (8,)" in text


@pytest.mark.gpu
def test_compiled_kernels_report_the_same_errors_when_they_compile():
    out = torch.zeros(128, dtype=torch.int32, device=DEVICE)
    error, _ = kernel_error(lambda: arange_of_100[(1,)](out))
    assert isinstance(error, CompilationError)
    assert "arange's range must be a power of 2" in str(error)
    assert "offs = tl.arange(0, 100)" in str(error)  # the message quotes the kernel's source


@pytest.mark.gpu
def test_compiled_kernels_report_the_shape_mismatch_when_they_compile():
    x, out = torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE)
    error, _ = kernel_error(lambda: add_mismatched_blocks[(1,)](x, out))
    assert isinstance(error, CompilationError)
    assert "incompatible dimensions at index 0: 4 and 8" in str(error)
    assert "tl.store(out_ptr + tl.arange(0, 4), a + b)" in str(error)
# --8<-- [end:test-caught]


# --8<-- [start:missed]
@triton.jit
def copy_without_mask(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # no mask: reads BLOCK elements


@triton.jit
def fill_without_mask(x_ptr, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK,), tl.float32) + value)  # no mask: writes BLOCK


def neighbours(n=4, block=8, sentinel=-7.0):
    """A tensor of `n` elements whose memory is followed by its neighbour's `sentinel`s.

    Both are views of one buffer, so going past the end of `x` stays inside memory we own.
    """
    buffer = torch.full((2 * block,), sentinel, device=DEVICE)
    x, neighbour = buffer[:n], buffer[n:]
    x.copy_(torch.arange(n, dtype=torch.float32))
    return x, neighbour
# --8<-- [end:missed]


# --8<-- [start:test-missed]
def test_out_of_bounds_load_returns_the_neighbours_value_without_error():
    x, _ = neighbours(n=4, block=8, sentinel=-7.0)
    out = torch.zeros(8, device=DEVICE)
    copy_without_mask[(1,)](x, out, BLOCK=8)  # x has 4 elements: no exception
    assert out.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, -7.0, -7.0, -7.0, -7.0]


def test_out_of_bounds_store_overwrites_the_neighbour_without_error():
    x, neighbour = neighbours(n=4, block=8, sentinel=-7.0)
    fill_without_mask[(1,)](x, 5.0, BLOCK=8)
    assert neighbour.cpu().tolist()[:4] == [5.0] * 4  # the neighbour's first 4 elements were hit
    assert neighbour.cpu().tolist()[4:] == [-7.0] * 8
# --8<-- [end:test-missed]


# --8<-- [start:checked]
import triton_faq


def missed_overrun_checked() -> str:
    """The same unmasked copy under triton_faq.checked(): the traceback the advice promises."""
    x, _ = neighbours(n=4, block=8, sentinel=-7.0)
    out = torch.zeros(8, device=DEVICE)
    try:
        with triton_faq.checked():
            copy_without_mask[(1,)](x, out, BLOCK=8)
    except triton_faq.OutOfBounds as report:
        return str(report)
    raise AssertionError("the overrun was not reported")
# --8<-- [end:checked]


# --8<-- [start:test-checked]
@pytest.mark.interpreter
def test_checked_interpreter_raises_with_the_line_argument_and_offset():
    report = missed_overrun_checked()
    assert report.startswith("out-of-bounds load in kernel copy_without_mask at ")
    assert "tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # no mask: reads BLOCK elements" in report
    assert "argument x_ptr: element offset 4 (4 lanes out of bounds, offsets 4..7)" in report
    assert "the tensor has 4 elements, valid offsets 0..3" in report
# --8<-- [end:test-checked]


# --8<-- [start:far]
@triton.jit
def far_load(x_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + shift + offs)  # FAR-LOAD: 2**40 elements past the start of x
    tl.store(out_ptr + offs, x)


def run_far_load():
    x, out = torch.zeros(4, device=DEVICE), torch.zeros(4, device=DEVICE)
    far_load[(1,)](x, out, 2**40, BLOCK=4)
    print("far load returned", out.cpu().tolist())
# --8<-- [end:far]


# --8<-- [start:test-far]
def run_snippet(*python_options):
    """Run this file with --far-load in a fresh interpreter; it is expected to crash."""
    return subprocess.run(
        [sys.executable, *python_options, __file__, "--far-load"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TRITON_FAQ_BACKEND": "interpreter"},
    )


def far_load_line() -> int:
    lines = Path(__file__).read_text().splitlines()
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
    assert f'File "{__file__}", line {far_load_line()} in far_load' in result.stderr
# --8<-- [end:test-far]


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def non_power_of_two_arange():
    arange_of_100[(1,)](torch.zeros(128, dtype=torch.int32, device=DEVICE))  # raises on both backends


def mismatched_block_shapes():
    add_mismatched_blocks[(1,)](torch.zeros(8, device=DEVICE), torch.zeros(4, device=DEVICE))  # raises


def far_load_under_faulthandler() -> str:
    result = run_snippet("-X", "faulthandler")  # crashes with SIGSEGV
    return result.stdout + result.stderr


# --8<-- [start:print-breakpoint]
@triton.jit
def inspect_me(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    print("pid", pid, "x", x)  # plain Python print: the interpreter runs this line as Python
    breakpoint()  # stops here with pid, offs, x as local variables
# --8<-- [end:print-breakpoint]


# --8<-- [start:test-print-breakpoint]
@pytest.mark.interpreter
def test_python_print_inside_an_interpreted_kernel_prints_the_values(capsys, monkeypatch):
    monkeypatch.setattr(sys, "breakpointhook", lambda *args, **kwargs: None)
    inspect_me[(2,)](torch.arange(6.0, device=DEVICE), 6, BLOCK=4)
    assert capsys.readouterr().out == "pid [0] x [0. 1. 2. 3.]\npid [1] x [4. 5. 0. 0.]\n"


@pytest.mark.interpreter
def test_breakpoint_inside_an_interpreted_kernel_sees_the_kernel_locals(monkeypatch, capsys):
    seen = []

    def hook(*args, **kwargs):  # stands in for pdb: record what the debugger would show
        frame = sys._getframe(1)
        seen.append((frame.f_code.co_name, frame.f_locals["offs"].handle.data.tolist()))

    monkeypatch.setattr(sys, "breakpointhook", hook)
    inspect_me[(2,)](torch.arange(6.0, device=DEVICE), 6, BLOCK=4)
    assert seen == [("inspect_me", [0, 1, 2, 3]), ("inspect_me", [4, 5, 6, 7])]
# --8<-- [end:test-print-breakpoint]


def main():
    if "--far-load" in sys.argv:
        run_far_load()
        return
    print(describe())
    x, neighbour = neighbours()
    out = torch.zeros(8, device=DEVICE)
    copy_without_mask[(1,)](x, out, BLOCK=8)
    print("x has 4 elements; an unmasked load of 8 returned", out.cpu().tolist(), "and no error")
    out = torch.zeros(128, dtype=torch.int32, device=DEVICE)
    try:
        arange_of_100[(1,)](out)
    except (InterpreterError, CompilationError) as error:
        print("tl.arange(0, 100) raised:", str(error).splitlines()[-1])


if __name__ == "__main__":
    main()
