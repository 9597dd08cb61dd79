"""TP004: what an out-of-bounds access actually does, per backend and per distance.

Run it: ``python snippets/out_of_bounds/what_an_overrun_does.py``
(on a machine without a GPU it runs through Triton's interpreter).

``python snippets/out_of_bounds/what_an_overrun_does.py --overrun near|far`` runs one overrun
past a real allocation and reports how it ended. The tests always run it in a child process:
a far overrun can kill the interpreter's process or break the CUDA context.
"""

import argparse
import inspect
import os
import re
import signal
import subprocess
import sys
import traceback
from pathlib import Path

import torch

from triton_faq import backend
from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(__file__).resolve().parents[2]


# --8<-- [start:kernel]
@triton.jit
def copy_at(x_ptr, out_ptr, offset, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offset + offs)  # no mask: reads x[offset : offset + BLOCK]
    tl.store(out_ptr + offs, x)
# --8<-- [end:kernel]


# --8<-- [start:overrun]
BLOCK = 8
NEAR = BLOCK  # the 8 elements right after an 8-element tensor
FAR = 2**40  # 2**40 elements (4 TiB of float32) past its start


def overrun(offset: int) -> None:
    """Read BLOCK elements at `offset` from an 8-element tensor, then report how it went."""
    x = torch.arange(BLOCK, dtype=torch.float32, device=DEVICE)
    out = torch.zeros(BLOCK, device=DEVICE)
    try:
        copy_at[(1,)](x, out, offset, BLOCK=BLOCK)
        print("launch returned", flush=True)
        if DEVICE == "cuda":
            torch.cuda.synchronize()
        print("finished without an error", flush=True)
    except Exception as error:
        here = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
        print(f"failed at: {here[-1].line}")
        print(f"is a RuntimeError: {isinstance(error, RuntimeError)}")
        print(f"error: {str(error).splitlines()[0]}", flush=True)
        os._exit(3)  # skip interpreter teardown: the CUDA context is unusable now
# --8<-- [end:overrun]


# --8<-- [start:child]
def run_child(distance: str, *python_flags: str, **env: str) -> subprocess.CompletedProcess:
    """Run `overrun` in a fresh Python process on the current backend."""
    environ = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
    environ.update(TRITON_FAQ_BACKEND=backend.BACKEND, **env)
    command = [sys.executable, *python_flags, __file__, "--overrun", distance]
    return subprocess.run(command, env=environ, cwd=ROOT, capture_output=True, text=True, timeout=300)
# --8<-- [end:child]


# --8<-- [start:test-near-view]
SENTINEL = 1000.0


def test_near_overrun_inside_an_allocation_reads_the_neighbours_silently():
    buffer = torch.full((2 * BLOCK,), SENTINEL, device=DEVICE)
    buffer[:BLOCK] = torch.arange(BLOCK, device=DEVICE)
    x = buffer[:BLOCK]  # an 8-element tensor with 8 sentinels behind it
    out = torch.zeros(BLOCK, device=DEVICE)
    copy_at[(1,)](x, out, NEAR, BLOCK=BLOCK)  # no exception on either backend
    assert out.tolist() == [SENTINEL] * BLOCK
# --8<-- [end:test-near-view]


# --8<-- [start:test-near]
def test_near_overrun_past_the_allocation_finishes_without_an_error():
    child = run_child("near")
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["launch returned", "finished without an error"]
# --8<-- [end:test-near]


# --8<-- [start:test-interpreter-far]
def kernel_line(text: str) -> int:
    """The line number of `text` inside `copy_at`, as faulthandler prints it."""
    source, first = inspect.getsourcelines(copy_at.fn)
    return first + next(i for i, line in enumerate(source) if text in line)


@pytest.mark.interpreter
def test_interpreter_far_overrun_kills_the_process_with_sigsegv():
    child = run_child("far", "-X", "faulthandler")
    assert child.returncode == -signal.SIGSEGV
    assert child.stdout == ""  # no "launch returned", no Python exception caught
    assert "Fatal Python error: Segmentation fault" in child.stderr
    # faulthandler's stack names the kernel line that read the bad address
    assert f'what_an_overrun_does.py", line {kernel_line("tl.load")} in copy_at' in child.stderr
# --8<-- [end:test-interpreter-far]


# --8<-- [start:checked]
import triton_faq


def overrun_checked(offset: int) -> str:
    """The same overrun under triton_faq.checked(): the report instead of the crash."""
    x = torch.arange(BLOCK, dtype=torch.float32, device=DEVICE)
    out = torch.zeros(BLOCK, device=DEVICE)
    try:
        with triton_faq.checked():
            copy_at[(1,)](x, out, offset, BLOCK=BLOCK)
    except triton_faq.OutOfBounds as report:  # an IndexError, raised before the read
        return str(report)
    raise AssertionError("the overrun was not reported")


def far_overrun_report() -> str:
    return overrun_checked(FAR)
# --8<-- [end:checked]


# --8<-- [start:test-checked]
@pytest.mark.interpreter
def test_checked_far_overrun_is_an_index_error_naming_line_argument_offset_and_size():
    report = overrun_checked(FAR)  # in this process: nothing is read, nothing crashes
    assert "out-of-bounds load in kernel copy_at at " in report
    assert "what_an_overrun_does.py:" in report and "x = tl.load(x_ptr + offset + offs)" in report
    assert f"argument x_ptr: element offset {FAR} (8 lanes out of bounds, offsets {FAR}..{FAR + 7})" in report
    assert "the tensor has 8 elements, valid offsets 0..7" in report


@pytest.mark.interpreter
def test_checked_near_overrun_is_reported_too():
    report = overrun_checked(NEAR)
    assert "argument x_ptr: element offset 8 (8 lanes out of bounds, offsets 8..15)" in report
# --8<-- [end:test-checked]


# --8<-- [start:test-gpu-far]
CUDA_ERROR = re.compile(r"an illegal memory access was encountered|misaligned address|unspecified launch failure")


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
# --8<-- [end:test-gpu-far]


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


def after(prefix: str, lines: list[str]) -> str:
    """What follows `prefix` on the first line that starts with it, or "" when no line does."""
    return next((line.removeprefix(prefix) for line in lines if line.startswith(prefix)), "")


def code(text: str) -> str:
    """`text` as inline code for a table cell (a captured line may hold brackets or a backtick)."""
    return f"`` {text} ``" if text else ""


@gpu_evidence("overrun-outcomes")
def observe_overrun_outcomes():
    """How each overrun ends in a child process on the GPU, with and without CUDA_LAUNCH_BLOCKING=1."""
    rows = []
    for distance, offset in [("near", code(f"NEAR = {NEAR}")), ("far", code(f"FAR = {FAR}"))]:
        for blocking in [False, True]:
            child = run_child(distance, CUDA_LAUNCH_BLOCKING="1") if blocking else run_child(distance)
            lines = child.stdout.splitlines()
            failed_at = after("failed at: ", lines)
            runtime_error = after("is a RuntimeError: ", lines)
            rows.append([offset, blocking, child.returncode, "launch returned" in lines,
                         "finished without an error" in lines, code(failed_at),
                         runtime_error == "True" if runtime_error else "", code(after("error: ", lines))])
    return table(
        [label("offset (elements)", "偏移（元素数）"), label("CUDA_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=1"),
         label("return code", "返回码"), label("printed \"launch returned\"", "打印了 \"launch returned\""),
         label("printed \"finished without an error\"", "打印了 \"finished without an error\""),
         label("failed at", "出错的语句"), label("a RuntimeError", "是 RuntimeError"),
         label("error text (first line)", "错误信息（第一行）")],
        rows,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--overrun", choices=["near", "far"], help="run one overrun and report it")
    args, _ = parser.parse_known_args(argv)  # ignore a test runner's own arguments
    if args.overrun:
        overrun(NEAR if args.overrun == "near" else FAR)
        return
    print(describe())
    test_near_overrun_inside_an_allocation_reads_the_neighbours_silently()
    print(f"near overrun inside an allocation: read the {BLOCK} sentinels behind x, no error")
    child = run_child("far", "-X", "faulthandler")
    print(f"far overrun ({FAR} elements) in a child process: return code {child.returncode}")
    print("  stdout:", child.stdout.splitlines())
    print("  stderr:", *[line for line in child.stderr.splitlines() if "Fatal" in line or "copy_at" in line], sep="\n    ")


if __name__ == "__main__":
    main()
