"""TP013's claims, one test each: snippets/debugging/device_print.py."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton.language as tl
from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

from snippets.debugging import device_print as entry
from triton_faq.backend import DEVICE

ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------- the interpreter's format
@pytest.mark.interpreter
def test_interpreter_prints_one_line_per_program_with_numpy_formatting(capsys):
    entry.print_offsets[(2,)](torch.zeros(1, device=DEVICE), 16, BLOCK_SIZE=8)
    assert capsys.readouterr().out == (
        "(0, 0, 0)  My Offsets:  [0 1 2 3 4 5 6 7]\n"
        "(1, 0, 0)  My Offsets:  [ 8  9 10 11 12 13 14 15]\n"
    )


@pytest.mark.interpreter
def test_interpreter_if_pid_0_keeps_the_line_of_one_program(capsys):
    entry.print_offsets_pid0[(2,)](torch.zeros(1, device=DEVICE), 16, BLOCK_SIZE=8)
    assert capsys.readouterr().out == "(0, 0, 0)  My Offsets:  [0 1 2 3 4 5 6 7]\n"


@pytest.mark.interpreter
def test_interpreter_elides_the_middle_of_a_large_block(capsys):
    entry.print_offsets_pid0[(1,)](torch.zeros(1, device=DEVICE), 2048, BLOCK_SIZE=2048)
    assert capsys.readouterr().out == "(0, 0, 0)  My Offsets:  [   0    1    2 ... 2045 2046 2047]\n"


@pytest.mark.interpreter
def test_print_in_pid_0_only_a_small_block_and_a_scalar(capsys):
    x = torch.arange(64, dtype=torch.float32, device=DEVICE)
    out = torch.full((64,), float("nan"), device=DEVICE)
    entry.scale[(8,)](x, out, 64, BLOCK=8)  # 8 programs, 2 lines in all
    assert capsys.readouterr().out == "(0, 0, 0)  first 4:  [0. 1. 2. 3.]\n(0, 0, 0)  max:  [7.]\n"
    assert torch.equal(out, 2 * x)


# ---------------------------------------------------------------- what it accepts
@pytest.mark.interpreter
def test_interpreter_prints_python_scalars_constexprs_and_int_arguments(capsys):
    entry.print_scalars[(1,)](torch.zeros(1, device=DEVICE), 6, BLOCK=8)
    assert capsys.readouterr().out == (
        "(0, 0, 0)  three:  [3]\n"
        "(0, 0, 0)  half:  [0.5]\n"
        "(0, 0, 0)  BLOCK:  [8]\n"
        "(0, 0, 0)  n:  [6]\n"
    )


def test_what_cannot_be_printed_is_a_string():
    with pytest.raises((InterpreterError, CompilationError),
                       match=re.escape("cannot convert hello of type <class 'str'> to tensor")):
        entry.print_a_string[(1,)](torch.zeros(1, device=DEVICE))


def test_the_docstring_allows_scalars():
    doc = " ".join(tl.device_print.__doc__.split())
    assert "all following values must be scalars or tensors" in doc
    assert ":param args: the values to print. They can be any tensor or scalar." in doc


# The error message this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that this produces the message it is claimed for.
def print_a_string_value():
    entry.print_a_string[(1,)](torch.zeros(1, device=DEVICE))  # raises on both backends


# ---------------------------------------------------------------- on the GPU
# device_print on CUDA goes through the device printf buffer to the process's stdout (file
# descriptor 1), so each GPU test runs the reader's file's kernels in a child process.
def run_child(code):
    """Run `code` after `import torch` and the reader's file as `entry`, with x on the GPU."""
    program = ("import sys, torch\nfrom snippets.debugging import device_print as entry\n"
               "x = torch.zeros(1, device='cuda')\n" + code + "\ntorch.cuda.synchronize()\nsys.stdout.flush()\n")
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                            cwd=ROOT, env={**environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    return result


PRINT_ALL = "entry.print_offsets[(2,)](x, 64, BLOCK_SIZE=32, num_warps=1)"  # 2 programs x 32 offsets
PRINT_PID0 = "entry.print_offsets_pid0[(2,)](x, 64, BLOCK_SIZE=32, num_warps=1)"
PRINT_SCALARS = "entry.print_scalars[(1,)](x, 6, BLOCK=8, num_warps=1)"
TIME_PRINT = ("sys.stderr.write(f'with-print {entry.seconds_per_launch(True)}\\n'"
              " f'without-print {entry.seconds_per_launch(False)}\\n')")
GPU_LINE = re.compile(r"^pid \((\d+), (\d+), (\d+)\) idx \( *(\d+)\) My Offsets: (\d+)$")


def gpu_offset_lines(code):
    lines = run_child(code).stdout.splitlines()
    parsed = [GPU_LINE.match(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m][:5]
    return sorted(tuple(int(g) for g in m.groups()) for m in parsed)


@pytest.mark.gpu
def test_gpu_prints_one_line_per_element_with_pid_and_index():
    # num_warps=1: one thread per element
    assert gpu_offset_lines(PRINT_ALL) == [(p, 0, 0, i, 32 * p + i) for p in range(2) for i in range(32)]


@pytest.mark.gpu
def test_gpu_if_pid_0_keeps_the_lines_of_one_program():
    assert gpu_offset_lines(PRINT_PID0) == [(0, 0, 0, i, i) for i in range(32)]


@pytest.mark.gpu
def test_gpu_prints_python_scalars_and_constexprs():
    lines = set(run_child(PRINT_SCALARS).stdout.splitlines())
    assert {"pid (0, 0, 0) idx () three: 3", "pid (0, 0, 0) idx () half: 0.500000",
            "pid (0, 0, 0) idx () BLOCK: 8", "pid (0, 0, 0) idx () n: 6"} <= lines


@pytest.mark.gpu
def test_gpu_a_kernel_that_prints_is_at_least_ten_times_slower():
    # The fastest of three runs of each: the one least disturbed by other work on the GPU (the suite
    # runs in parallel, and a kernel of 19 µs waits behind other processes' kernels)
    runs = [dict(line.split() for line in run_child(TIME_PRINT).stderr.splitlines()
                 if line.startswith(("with-print", "without-print"))) for _ in range(3)]
    fastest = {kind: min(float(run[kind]) for run in runs) for kind in ("with-print", "without-print")}
    assert fastest["with-print"] >= 10 * fastest["without-print"], runs
