"""TP013: what ``tl.device_print`` prints, what it accepts, and how to keep it short.

Run it: ``python snippets/debugging/device_print.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

ROOT = Path(__file__).resolve().parents[2]


# --8<-- [start:offsets]
@triton.jit
def print_offsets(x_ptr, n, BLOCK_SIZE: tl.constexpr, ONLY_PID0: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    if ONLY_PID0:
        if pid == 0:
            tl.device_print("My Offsets:", offsets)
    else:
        tl.device_print("My Offsets:", offsets)
# --8<-- [end:offsets]


# --8<-- [start:scalars]
@triton.jit
def print_scalars(x_ptr, n, BLOCK: tl.constexpr):
    tl.device_print("three", 3)  # a Python int literal
    tl.device_print("half", 0.5)  # a Python float literal
    tl.device_print("BLOCK", BLOCK)  # a constexpr
    tl.device_print("n", n)  # an int argument of the launch


@triton.jit
def print_a_string(x_ptr):
    tl.device_print("s", "hello")
# --8<-- [end:scalars]


# --8<-- [start:small]
@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if pid == 0:  # one program only
        tl.device_print("first 4", tl.load(x_ptr + tl.arange(0, 4)))  # a small block of its own
        tl.device_print("max", tl.max(x, axis=0))  # a scalar summary instead of the block
    tl.store(out_ptr + offs, 2 * x, mask=offs < n)
# --8<-- [end:small]


# --8<-- [start:test-interpreter-format]
@pytest.mark.interpreter
def test_interpreter_prints_one_line_per_program_with_numpy_formatting(capsys):
    print_offsets[(2,)](torch.zeros(1, device=DEVICE), 16, BLOCK_SIZE=8, ONLY_PID0=False)
    assert capsys.readouterr().out == (
        "(0, 0, 0)  My Offsets:  [0 1 2 3 4 5 6 7]\n"
        "(1, 0, 0)  My Offsets:  [ 8  9 10 11 12 13 14 15]\n"
    )


@pytest.mark.interpreter
def test_interpreter_elides_the_middle_of_a_large_block(capsys):
    print_offsets[(1,)](torch.zeros(1, device=DEVICE), 2048, BLOCK_SIZE=2048, ONLY_PID0=True)
    assert capsys.readouterr().out == "(0, 0, 0)  My Offsets:  [   0    1    2 ... 2045 2046 2047]\n"
# --8<-- [end:test-interpreter-format]


# --8<-- [start:test-scalars]
@pytest.mark.interpreter
def test_interpreter_prints_python_scalars_constexprs_and_int_arguments(capsys):
    print_scalars[(1,)](torch.zeros(1, device=DEVICE), 6, BLOCK=8)
    assert capsys.readouterr().out == (
        "(0, 0, 0)  three:  [3]\n"
        "(0, 0, 0)  half:  [0.5]\n"
        "(0, 0, 0)  BLOCK:  [8]\n"
        "(0, 0, 0)  n:  [6]\n"
    )


def test_what_cannot_be_printed_is_a_string():
    with pytest.raises((InterpreterError, CompilationError),
                       match=re.escape("cannot convert hello of type <class 'str'> to tensor")):
        print_a_string[(1,)](torch.zeros(1, device=DEVICE))


def test_the_docstring_allows_scalars():
    doc = " ".join(tl.device_print.__doc__.split())
    assert "all following values must be scalars or tensors" in doc
    assert ":param args: the values to print. They can be any tensor or scalar." in doc
# --8<-- [end:test-scalars]


# --8<-- [start:test-small]
@pytest.mark.interpreter
def test_print_in_pid_0_only_a_small_block_and_a_scalar(capsys):
    x = torch.arange(64, dtype=torch.float32, device=DEVICE)
    out = torch.zeros(64, device=DEVICE)
    scale[(8,)](x, out, 64, BLOCK=8)  # 8 programs, 2 lines in all
    assert capsys.readouterr().out == "(0, 0, 0)  first 4:  [0. 1. 2. 3.]\n(0, 0, 0)  max:  [7.]\n"
    assert torch.equal(out, 2 * x)
# --8<-- [end:test-small]


# The error message this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that this produces the message it is claimed for.
def print_a_string_value():
    print_a_string[(1,)](torch.zeros(1, device=DEVICE))  # raises on both backends


# ---------------------------------------------------------------- on the GPU
# device_print on CUDA goes through the device printf buffer to the process's stdout (file
# descriptor 1), so each GPU test runs this file in a child process and reads its stdout.

def run_child(mode):
    result = subprocess.run(
        [sys.executable, __file__, mode], capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    return result


GPU_LINE = re.compile(r"^pid \((\d+), (\d+), (\d+)\) idx \( *(\d+)\) My Offsets: (\d+)$")


def gpu_offset_lines(mode):
    lines = run_child(mode).stdout.splitlines()
    parsed = [GPU_LINE.match(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m][:5]
    return sorted(tuple(int(g) for g in m.groups()) for m in parsed)


# --8<-- [start:test-gpu]
@pytest.mark.gpu
def test_gpu_prints_one_line_per_element_with_pid_and_index():
    # 2 programs x 32 offsets, num_warps=1: one thread per element
    assert gpu_offset_lines("--print-all") == [(p, 0, 0, i, 32 * p + i) for p in range(2) for i in range(32)]


@pytest.mark.gpu
def test_gpu_if_pid_0_keeps_the_lines_of_one_program():
    assert gpu_offset_lines("--print-pid0") == [(0, 0, 0, i, i) for i in range(32)]


@pytest.mark.gpu
def test_gpu_prints_python_scalars_and_constexprs():
    lines = set(run_child("--print-scalars").stdout.splitlines())
    assert {"pid (0, 0, 0) idx () three: 3", "pid (0, 0, 0) idx () half: 0.500000",
            "pid (0, 0, 0) idx () BLOCK: 8", "pid (0, 0, 0) idx () n: 6"} <= lines


@pytest.mark.gpu
def test_gpu_a_kernel_that_prints_is_at_least_ten_times_slower():
    timings = dict(line.split() for line in run_child("--time-print").stderr.splitlines()
                   if line.startswith(("with-print", "without-print")))
    assert float(timings["with-print"]) >= 10 * float(timings["without-print"])
# --8<-- [end:test-gpu]


@gpu_evidence("device-print-output")
def observe_device_print_output():
    """The first lines the child prints for 2 programs x 32 offsets (num_warps=1), and how many in all."""
    lines = run_child("--print-all").stdout.splitlines()
    return table(
        [label("line", "行"),
         label(f"stdout: the first 8 of {len(lines)} lines", f"stdout：共 {len(lines)} 行中的前 8 行")],
        [[i, f"`{line}`"] for i, line in enumerate(lines[:8], 1)],
        lines_in_all=len(lines),
    )


@gpu_evidence("device-print-timing")
def observe_device_print_timing():
    """Median wall time of launch + synchronize with and without a print of 8192 values, from the child."""
    timings = dict(line.split() for line in run_child("--time-print").stderr.splitlines()
                   if line.startswith(("with-print", "without-print")))
    with_print, without_print = float(timings["with-print"]), float(timings["without-print"])
    return table(
        [label("PRINT", "PRINT"), label("median ms per launch + synchronize (20 launches)",
                                        "每次启动加同步的中位数 毫秒（20 次启动）"),
         label("times the kernel without the print", "是不打印版本的倍数")],
        [[True, with_print * 1e3, with_print / without_print], [False, without_print * 1e3, 1.0]],
    )


CHILD_MODES = ("--print-all", "--print-pid0", "--print-scalars", "--time-print")


def child(mode):
    x = torch.zeros(1, device=DEVICE)
    if mode in ("--print-all", "--print-pid0"):
        print_offsets[(2,)](x, 64, BLOCK_SIZE=32, ONLY_PID0=mode == "--print-pid0", num_warps=1)
    elif mode == "--print-scalars":
        print_scalars[(1,)](x, 6, BLOCK=8, num_warps=1)
    elif mode == "--time-print":
        sys.stderr.write(f"with-print {seconds_per_launch(True)}\nwithout-print {seconds_per_launch(False)}\n")
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    sys.stdout.flush()


# --8<-- [start:timing]
@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr, PRINT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if PRINT:
        tl.device_print("x", x)
    tl.store(out_ptr + offs, 2 * x, mask=offs < n)


def seconds_per_launch(with_print, n=8 * 1024, repeats=20):
    """Median wall time of one launch + synchronize (8 programs of 1024; printing 8192 lines)."""
    x, out = torch.ones(n, device=DEVICE), torch.empty(n, device=DEVICE)
    double[(8,)](x, out, n, BLOCK=1024, PRINT=with_print)  # compile and warm up
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        double[(8,)](x, out, n, BLOCK=1024, PRINT=with_print)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
# --8<-- [end:timing]


def main():
    if len(sys.argv) > 1 and sys.argv[1] in CHILD_MODES:
        child(sys.argv[1])
        return
    print(describe())
    print("tl.device_print of offsets, 2 programs of 8 (ONLY_PID0=False):", flush=True)
    print_offsets[(2,)](torch.zeros(1, device=DEVICE), 16, BLOCK_SIZE=8, ONLY_PID0=False)
    print("Python scalars, a constexpr and an int argument:", flush=True)
    print_scalars[(1,)](torch.zeros(1, device=DEVICE), 6, BLOCK=8)
    if DEVICE == "cuda":
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
