"""TP013's claims, one test each: snippets/debugging/device_print.py."""

import functools
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch
import triton.language as tl
from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

from evidence.debugging import device_print as evidence
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


TIME_PRINT = ("sys.stderr.write(f'with-print {entry.seconds_per_launch(True)}\\n'"
              " f'without-print {entry.seconds_per_launch(False)}\\n')")
GPU_LINE = re.compile(r"^pid \((\d+), (\d+), (\d+)\) idx \( *(\d+)\) My Offsets: (\d+)$")


@functools.lru_cache(maxsize=None)
def printed():
    """Every launch of the evidence (print_offsets, print_sum, scale, print_scalars) at num_warps 1, 2,
    the default and 8, each launch's stdout lines apart: the same child program the GPU data comes from."""
    return evidence.printed_lines()


def lines_of(launch, num_warps):
    return printed()[evidence.case_name(launch, num_warps)]


def threads(num_warps):
    return 32 * (4 if num_warps is None else num_warps)  # Triton's default is 4 warps of 32 threads


def offset_lines(launch, num_warps):
    lines = lines_of(launch, num_warps)
    parsed = [GPU_LINE.match(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m][:5]
    return Counter(tuple(int(g) for g in m.groups()) for m in parsed)


@pytest.mark.gpu
@pytest.mark.parametrize("block", [8, 32, 1024])
@pytest.mark.parametrize("num_warps", evidence.NUM_WARPS)
def test_gpu_each_element_prints_once_per_thread_that_holds_it(block, num_warps):
    # a block smaller than the program's threads is held by several threads, each of which prints it
    counts = offset_lines(f"print_offsets, 2 programs of {block}", num_warps)
    assert sorted(counts) == [(p, 0, 0, i, block * p + i) for p in range(2) for i in range(block)]
    assert set(counts.values()) == {max(1, threads(num_warps) // block)}
    assert sum(counts.values()) == 2 * max(block, threads(num_warps))


@pytest.mark.gpu
def test_gpu_with_the_defaults_two_programs_of_32_print_256_lines():
    counts = offset_lines("print_offsets, 2 programs of 32", None)
    assert sum(counts.values()) == 256 and set(counts.values()) == {4}  # 64 elements, each 4 times


@pytest.mark.gpu
def test_gpu_num_warps_1_prints_one_line_per_element_of_a_block_of_32_or_more():
    for block in (32, 1024):
        counts = offset_lines(f"print_offsets, 2 programs of {block}", 1)
        assert len(counts) == sum(counts.values()) == 2 * block


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", evidence.NUM_WARPS)
def test_gpu_if_pid_0_keeps_the_lines_of_one_program(num_warps):
    counts = offset_lines("print_offsets_pid0, 2 programs of 32", num_warps)
    assert sorted(counts) == [(0, 0, 0, i, i) for i in range(32)]
    assert sum(counts.values()) == max(32, threads(num_warps))


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", evidence.NUM_WARPS)
def test_gpu_a_scalar_prints_one_line_per_thread(num_warps):
    x = torch.arange(4096, dtype=torch.float64)  # the child's input
    counts = Counter(lines_of("print_sum, 2 programs of 32", num_warps))
    assert counts == {f"pid ({p}, 0, 0) idx () sum: {x[32 * p:32 * p + 32].sum().item():f}": threads(num_warps)
                      for p in range(2)}


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", evidence.NUM_WARPS)
def test_gpu_a_small_block_and_a_reduction_print_a_line_per_thread_each(num_warps):
    counts = Counter(lines_of("scale, 8 programs of 8", num_warps))
    expected = {f"pid (0, 0, 0) idx ({i}) first 4: {i:f}" for i in range(4)} | {"pid (0, 0, 0) idx () max: 7.000000"}
    assert set(counts) == expected, counts
    for line, count in counts.items():  # each of the 4 elements by a quarter of the threads, the max by all
        assert count == (threads(num_warps) // 4 if "first 4" in line else threads(num_warps)), counts
    assert sum(counts.values()) == 2 * threads(num_warps)  # 256 lines from two prints at the defaults


@pytest.mark.gpu
def test_gpu_prints_python_scalars_and_constexprs():
    counts = Counter(lines_of("print_scalars, 1 program", None))
    assert counts == {"pid (0, 0, 0) idx () three: 3": 128, "pid (0, 0, 0) idx () half: 0.500000": 128,
                      "pid (0, 0, 0) idx () BLOCK: 8": 128, "pid (0, 0, 0) idx () n: 6": 128}


@pytest.mark.gpu
def test_gpu_a_kernel_that_prints_is_at_least_ten_times_slower():
    # The fastest of three runs of each: the one least disturbed by other work on the GPU (the suite
    # runs in parallel, and a kernel of 19 µs waits behind other processes' kernels)
    runs = [dict(line.split() for line in run_child(TIME_PRINT).stderr.splitlines()
                 if line.startswith(("with-print", "without-print"))) for _ in range(3)]
    fastest = {kind: min(float(run[kind]) for run in runs) for kind in ("with-print", "without-print")}
    assert fastest["with-print"] >= 10 * fastest["without-print"], runs
