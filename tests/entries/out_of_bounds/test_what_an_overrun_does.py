"""TP004's claims, one test each: snippets/out_of_bounds/what_an_overrun_does.py.

Every overrun past a real allocation runs in a child process (`entry.run_child`, once per test run): a far one can
kill the interpreter's process or break the CUDA context. This file also holds the functions
that the page names: the `reproduce:` functions of its `errors:` and `far_overrun_report`.
"""

import inspect
import re
import signal

import pytest
import torch

import triton_checked
from triton_faq.backend import DEVICE  # picks the backend before the reader's file loads Triton
from snippets.out_of_bounds import what_an_overrun_does as entry
from triton_faq.fresh import once_per_run
from triton_faq.testing import checked_error

run_child = once_per_run(entry.run_child)  # each child once per test run: the error gate asks for the same ones

CUDA_ERROR = re.compile(r"an illegal memory access was encountered|misaligned address|unspecified launch failure")


def test_near_overrun_inside_an_allocation_reads_the_neighbours_silently():
    out = entry.near_overrun_in_a_view()  # no exception on either backend
    assert out.tolist() == [entry.SENTINEL] * entry.BLOCK


def test_near_overrun_past_the_allocation_finishes_without_an_error():
    child = run_child("near")
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["launch returned", "finished without an error"]


def test_fix_masks_every_lane_of_a_far_overrun_and_reads_nothing():
    x = torch.arange(8.0, device=DEVICE)
    out = torch.full((8,), float("nan"), device=DEVICE)
    entry.copy_at_masked[(1,)](x, out, entry.FAR, 8, BLOCK=8)  # in this process: nothing is read
    assert torch.isnan(out).all()


def test_fix_copies_the_lanes_inside_and_leaves_the_others():
    x = torch.arange(8.0, device=DEVICE)
    out = torch.full((8,), float("nan"), device=DEVICE)
    entry.copy_at_masked[(1,)](x, out, 5, 8, BLOCK=8)
    assert out[:3].tolist() == [5.0, 6.0, 7.0] and torch.isnan(out[3:]).all()


def kernel_line(text: str) -> int:
    """The line number of `text` inside `copy_at`, as faulthandler prints it."""
    source, first = inspect.getsourcelines(entry.copy_at.fn)
    return first + next(i for i, line in enumerate(source) if text in line)


@pytest.mark.interpreter
def test_interpreter_far_overrun_kills_the_process_with_sigsegv():
    child = run_child("far", "-X", "faulthandler")
    assert child.returncode == -signal.SIGSEGV
    assert child.stdout == ""  # no "launch returned", no Python exception caught
    assert "Fatal Python error: Segmentation fault" in child.stderr
    # faulthandler's stack names the kernel line that read the bad address
    assert f'what_an_overrun_does.py", line {kernel_line("tl.load")} in copy_at' in child.stderr
    assert "triton/runtime/interpreter.py" in child.stderr  # where the read happened: in Triton's interpreter


@pytest.mark.gpu
def test_cuda_far_overrun_is_a_python_runtime_error_not_a_segfault():
    child = run_child("far")
    assert child.returncode == 3, child.stderr  # our `except` ran: the process did not crash
    assert "is a RuntimeError: True" in child.stdout
    assert CUDA_ERROR.search(child.stdout), child.stdout


@pytest.mark.gpu
def test_cuda_far_overrun_surfaces_at_the_next_synchronising_call():
    child = run_child("far")
    lines = child.stdout.splitlines()
    assert lines[0] == "launch returned"  # the launch itself reported nothing
    assert lines[1] == "failed at: torch.cuda.synchronize()"


@pytest.mark.gpu
def test_cuda_launch_blocking_reports_it_at_the_launch_line():
    child = run_child("far", CUDA_LAUNCH_BLOCKING="1")
    lines = child.stdout.splitlines()
    assert "launch returned" not in lines
    assert lines[0] == "failed at: copy_at[(1,)](x, out, offset, BLOCK=BLOCK)"
    assert CUDA_ERROR.search(child.stdout), child.stdout


# The checked interpreter (triton_checked.checked()): the same overrun as a report instead of a crash.
def overrun_checked(offset: int) -> str:
    """The overrun under triton_checked.checked(): the report, raised before the read."""
    x = torch.arange(entry.BLOCK, dtype=torch.float32, device=DEVICE)
    out = torch.zeros(entry.BLOCK, device=DEVICE)
    return str(checked_error(lambda: entry.copy_at[(1,)](x, out, offset, BLOCK=entry.BLOCK),
                             triton_checked.OutOfBounds))  # an IndexError


def far_overrun_report() -> str:
    """The page's `<!-- checked-report: far_overrun_report -->`."""
    return overrun_checked(entry.FAR)


@pytest.mark.interpreter
def test_checked_far_overrun_is_an_index_error_naming_line_argument_offset_and_size():
    far = entry.FAR
    report = overrun_checked(far)  # in this process: nothing is read, nothing crashes
    assert "out-of-bounds load in kernel copy_at at " in report
    assert "what_an_overrun_does.py:" in report and "x = tl.load(x_ptr + offset + offs)" in report
    assert f"argument x_ptr: element offset {far} (8 lanes out of bounds, offsets {far}..{far + 7})" in report
    assert "the tensor has 8 elements, valid offsets 0..7" in report


@pytest.mark.interpreter
def test_checked_near_overrun_is_reported_too():
    report = overrun_checked(entry.NEAR)
    assert "argument x_ptr: element offset 8 (8 lanes out of bounds, offsets 8..15)" in report


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def far_overrun_output(*python_flags: str, **env: str) -> str:
    """Everything the child printed for a far overrun, stdout then stderr."""
    child = run_child("far", *python_flags, **env)
    return child.stdout + child.stderr


def far_overrun_on_cuda() -> str:
    return far_overrun_output()  # raised by torch.cuda.synchronize(): "CUDA error: ..."


def far_overrun_on_cuda_with_launch_blocking() -> str:
    return far_overrun_output(CUDA_LAUNCH_BLOCKING="1")  # raised by the launch: "Triton Error [CUDA]: ..."


def far_overrun_on_the_interpreter() -> str:
    return far_overrun_output("-X", "faulthandler")  # SIGSEGV; faulthandler prints the stack
