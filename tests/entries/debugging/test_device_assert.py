"""TP014's claims, one test each: snippets/debugging/device_assert.py."""

import inspect
import re
from pathlib import Path

import pytest
import torch
import triton.language as tl
from triton.language import semantic  # a module of its own: tl.semantic is set only once something imports it
from triton.compiler.errors import CompilationError
from triton.runtime.errors import InterpreterError

from snippets.debugging import device_assert as entry
from triton_faq.backend import DEVICE

ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------- on every backend
def test_without_debug_mode_a_failing_assert_is_silent_and_the_kernel_runs_to_the_end():
    x = torch.zeros(4, device=DEVICE)  # every element fails `x > 0`
    entry.add_one_checked[(1,)](x, BLOCK=4)
    assert x.cpu().tolist() == [1.0, 1.0, 1.0, 1.0]


def test_device_assert_is_dropped_unless_the_options_say_debug():
    source = inspect.getsource(semantic.TritonSemantic.device_assert)
    assert "if not self.builder.options.debug:\n            return" in source


def test_the_docstring_says_a_python_assert_is_a_device_assert_that_needs_triton_debug():
    doc = " ".join(tl.device_assert.__doc__.split())
    assert "Requires that the environment variable :code:`TRITON_DEBUG` is set" in doc
    assert "Using the Python :code:`assert` statement is the same as calling this function" in doc


def test_the_interpreter_options_have_debug_off():
    from triton.runtime.interpreter import interpreter_builder
    assert interpreter_builder.options.debug is False


def test_debug_mode_also_checks_int32_add_sub_mul_for_overflow():
    source = inspect.getsource(semantic)
    assert 'msg = f"int{lhs_sca_ty.int_bitwidth} overflow detected for operation {binary_op.__name__}"' in source
    for op in ("add", "sub", "mul"):  # each calls the check, which emits a device assert
        assert re.search(rf"binary_op_sanitize_overflow_impl\(input, other, [\w., ]*\b{op}\)", source)
    assert re.search(r"device_assert\(cond, msg, \w+\)", source)


def test_device_assert_has_a_mask_parameter():
    assert "mask" in inspect.signature(tl.device_assert).parameters


def test_mask_turns_the_condition_into_cond_or_not_mask():
    assert "cond = self.or_(cond, self.not_(mask))" in inspect.getsource(semantic)


def test_static_assert_fails_without_debug_mode_on_both_backends():
    x = torch.zeros(2, device=DEVICE)
    with pytest.raises((CompilationError, InterpreterError), match="BLOCK must be a multiple of 4"):
        entry.add_one_block_multiple_of_4[(1,)](x, BLOCK=2)
    assert x.cpu().tolist() == [0.0, 0.0]  # the kernel did not run


# ---------------------------------------------------------------- on the interpreter
@pytest.mark.interpreter
@pytest.mark.parametrize("how", ["plain", "TRITON_DEBUG=1", "jit(debug=True)", "launch debug=True"])
def test_interpreter_never_fires_device_assert(how, monkeypatch):
    x = torch.zeros(4, device=DEVICE)  # every element fails `x > 0`
    if how == "TRITON_DEBUG=1":
        monkeypatch.setenv("TRITON_DEBUG", "1")
    if how == "jit(debug=True)":
        entry.add_one_checked_debug[(1,)](x, BLOCK=4)
    elif how == "launch debug=True":
        entry.add_one_checked[(1,)](x, BLOCK=4, debug=True)
    else:
        entry.add_one_checked[(1,)](x, BLOCK=4)
    assert x.cpu().tolist() == [1.0, 1.0, 1.0, 1.0]  # the kernel ran to the end


@pytest.mark.interpreter
def test_interpreter_runs_a_python_assert_on_a_scalar_but_not_on_a_block():
    x = torch.zeros(4, device=DEVICE)
    with pytest.raises(InterpreterError, match=re.escape("AssertionError('scalar condition')")):
        entry.add_one_python_assert[(1,)](x, BLOCK=4)  # the block condition above it passed


# ---------------------------------------------------------------- on the GPU
# A failed device assert leaves the CUDA context unusable, so each GPU case runs in a child process:
# the same child program the GPU evidence runs (evidence/debugging/device_assert.py).
from evidence.debugging.device_assert import run_child  # noqa: E402


def assert_line(kernel) -> int:
    """The line number, in the reader's file, of the kernel's tl.device_assert."""
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if "tl.device_assert(" in line)


@pytest.mark.gpu
def test_gpu_failing_device_assert_is_silent_without_debug():
    result = run_child("plain")
    assert result.returncode == 0, result.stderr
    assert "kernel finished: [1.0, 1.0, 1.0, 1.0]" in result.stdout
    assert "Assertion" not in result.stdout + result.stderr


@pytest.mark.gpu
def test_gpu_triton_debug_1_makes_it_fire():
    result = run_child("plain", TRITON_DEBUG="1")
    assert result.returncode != 0
    assert re.search(r"device-side assert triggered", result.stderr)


@pytest.mark.gpu
def test_gpu_the_report_quotes_the_message():
    result = run_child("plain", TRITON_DEBUG="1")
    assert re.search(r"Assertion `x must be positive` failed", result.stdout + result.stderr)


@pytest.mark.gpu
def test_gpu_jit_debug_true_makes_it_fire_without_the_variable():
    result = run_child("jit-debug")
    assert result.returncode != 0
    assert re.search(r"device-side assert triggered", result.stderr)


@pytest.mark.gpu
def test_gpu_launch_debug_true_makes_it_fire_without_the_variable():
    result = run_child("launch-debug")  # add_one_checked[(1,)](x, BLOCK=4, debug=True)
    assert result.returncode != 0
    assert re.search(r"device-side assert triggered", result.stderr)
    assert "Assertion `x must be positive` failed" in result.stdout + result.stderr


@pytest.mark.gpu
def test_gpu_the_report_names_file_and_line_but_calls_the_kernel_unknown():
    result = run_child("plain", TRITON_DEBUG="1")
    where = f"{Path(entry.__file__).name}:{assert_line(entry.add_one_checked)}: unknown: block: "
    assert where in result.stdout + result.stderr


@pytest.mark.gpu
def test_gpu_assert_after_a_masked_load_checks_the_padding_lanes():
    result = run_child("tail", TRITON_DEBUG="1")  # x = [1, 1, 1], BLOCK = 4: lane 3 holds 0.0
    assert result.returncode != 0
    assert "Assertion `x must be positive` failed" in result.stdout + result.stderr


@pytest.mark.gpu
def test_gpu_mask_argument_skips_the_padding_lanes():
    result = run_child("tail-mask", TRITON_DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert "kernel finished: [2.0, 2.0, 2.0]" in result.stdout


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def failing_assert_with_triton_debug() -> str:
    result = run_child("plain", TRITON_DEBUG="1")  # fires: debug mode from the environment
    return result.stdout + result.stderr


def failing_assert_with_jit_debug() -> str:
    result = run_child("jit-debug")  # fires: @triton.jit(debug=True)
    return result.stdout + result.stderr


def python_assert_on_the_interpreter():
    entry.add_one_python_assert[(1,)](torch.zeros(4, device=DEVICE), BLOCK=4)  # raises InterpreterError
