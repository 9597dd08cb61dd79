"""TP014: ``tl.device_assert`` does nothing unless debug mode is on (and never on the interpreter).

Run it: ``python snippets/debugging/device_assert.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import inspect
import os
import re
import subprocess
import sys
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


# --8<-- [start:kernels]
@triton.jit
def add_one_checked(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(x_ptr + offs, x + 1)


@triton.jit(debug=True)
def add_one_checked_debug(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(x_ptr + offs, x + 1)
# --8<-- [end:kernels]


# --8<-- [start:python-assert]
@triton.jit
def add_one_python_assert(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    assert x > 0, "block condition"  # a block of booleans
    assert tl.min(x, axis=0) > 0, "scalar condition"  # one boolean
    tl.store(x_ptr + offs, x + 1)
# --8<-- [end:python-assert]


# --8<-- [start:mask]
@triton.jit
def add_one_tail(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)  # lanes past n hold `other`: 0.0
    tl.device_assert(x > 0, "x must be positive")    # checks every lane, padding included
    tl.store(x_ptr + offs, x + 1, mask=mask)


@triton.jit
def add_one_tail_masked_assert(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.device_assert(x > 0, "x must be positive", mask=mask)  # only the lanes of the mask
    tl.store(x_ptr + offs, x + 1, mask=mask)
# --8<-- [end:mask]


# --8<-- [start:static-assert]
@triton.jit
def add_one_block_multiple_of_4(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 4 == 0, "BLOCK must be a multiple of 4")  # checked at compile time
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)
# --8<-- [end:static-assert]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
@pytest.mark.parametrize("how", ["plain", "TRITON_DEBUG=1", "jit(debug=True)", "launch debug=True"])
def test_interpreter_never_fires_device_assert(how, monkeypatch):
    x = torch.zeros(4, device=DEVICE)  # every element fails `x > 0`
    if how == "TRITON_DEBUG=1":
        monkeypatch.setenv("TRITON_DEBUG", "1")
    if how == "jit(debug=True)":
        add_one_checked_debug[(1,)](x, BLOCK=4)
    elif how == "launch debug=True":
        add_one_checked[(1,)](x, BLOCK=4, debug=True)
    else:
        add_one_checked[(1,)](x, BLOCK=4)
    assert x.cpu().tolist() == [1.0, 1.0, 1.0, 1.0]  # the kernel ran to the end


@pytest.mark.interpreter
def test_interpreter_runs_a_python_assert_on_a_scalar_but_not_on_a_block():
    x = torch.zeros(4, device=DEVICE)
    with pytest.raises(InterpreterError, match=re.escape("AssertionError('scalar condition')")):
        add_one_python_assert[(1,)](x, BLOCK=4)  # the block condition above it passed
# --8<-- [end:test-interpreter]


# --8<-- [start:test-semantic]
def test_device_assert_is_dropped_unless_the_options_say_debug():
    import inspect
    from triton.language.semantic import TritonSemantic
    source = inspect.getsource(TritonSemantic.device_assert)
    assert "if not self.builder.options.debug:\n            return" in source


def test_the_docstring_says_a_python_assert_is_a_device_assert_that_needs_triton_debug():
    doc = " ".join(tl.device_assert.__doc__.split())
    assert "Requires that the environment variable :code:`TRITON_DEBUG` is set" in doc
    assert "Using the Python :code:`assert` statement is the same as calling this function" in doc


def test_the_interpreter_options_have_debug_off():
    from triton.runtime.interpreter import interpreter_builder
    assert interpreter_builder.options.debug is False
# --8<-- [end:test-semantic]


# --8<-- [start:test-overflow]
def test_debug_mode_also_checks_int32_add_sub_mul_for_overflow():
    source = inspect.getsource(tl.semantic)
    assert 'msg = f"int{lhs_sca_ty.int_bitwidth} overflow detected for operation {binary_op.__name__}"' in source
    for op in ("add", "sub", "mul"):  # each calls the check, which emits a device assert
        assert re.search(rf"binary_op_sanitize_overflow_impl\(input, other, [\w., ]*\b{op}\)", source)
    assert re.search(r"device_assert\(cond, msg, \w+\)", source)
# --8<-- [end:test-overflow]


# --8<-- [start:test-mask]
def test_device_assert_has_a_mask_parameter():
    assert "mask" in inspect.signature(tl.device_assert).parameters


def test_mask_turns_the_condition_into_cond_or_not_mask():
    assert "cond = self.or_(cond, self.not_(mask))" in inspect.getsource(tl.semantic)
# --8<-- [end:test-mask]


# --8<-- [start:test-static-assert]
def test_static_assert_fails_without_debug_mode_on_both_backends():
    x = torch.zeros(2, device=DEVICE)
    with pytest.raises((CompilationError, InterpreterError), match="BLOCK must be a multiple of 4"):
        add_one_block_multiple_of_4[(1,)](x, BLOCK=2)
    assert x.cpu().tolist() == [0.0, 0.0]  # the kernel did not run
# --8<-- [end:test-static-assert]


# ---------------------------------------------------------------- on the GPU
# A failed device assert poisons the CUDA context, so each GPU case runs in a child process.

def run_child(mode, **env):
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_DEBUG"}
    return subprocess.run(
        [sys.executable, __file__, mode], capture_output=True, text=True, timeout=300,
        env={**environ, "PYTHONPATH": str(ROOT), **env},
    )


# --8<-- [start:test-gpu]
@pytest.mark.gpu
def test_gpu_failing_device_assert_is_silent_without_debug():
    result = run_child("--plain")
    assert result.returncode == 0, result.stderr
    assert "kernel finished: [1.0, 1.0, 1.0, 1.0]" in result.stdout
    assert "Assertion" not in result.stdout + result.stderr


@pytest.mark.gpu
def test_gpu_triton_debug_1_makes_it_fire():
    result = run_child("--plain", TRITON_DEBUG="1")
    assert result.returncode != 0
    assert re.search(r"device-side assert triggered", result.stderr)


@pytest.mark.gpu
def test_gpu_the_report_quotes_the_message():
    result = run_child("--plain", TRITON_DEBUG="1")
    assert re.search(r"Assertion `x must be positive` failed", result.stdout + result.stderr)


@pytest.mark.gpu
def test_gpu_jit_debug_true_makes_it_fire_without_the_variable():
    result = run_child("--jit-debug")
    assert result.returncode != 0
    assert re.search(r"device-side assert triggered", result.stderr)


@pytest.mark.gpu
def test_gpu_the_report_names_file_and_line_but_calls_the_kernel_unknown():
    result = run_child("--plain", TRITON_DEBUG="1")
    where = f"{Path(__file__).name}:{assert_line(add_one_checked)}: unknown: block: "
    assert where in result.stdout + result.stderr
# --8<-- [end:test-gpu]


# --8<-- [start:test-gpu-mask]
@pytest.mark.gpu
def test_gpu_assert_after_a_masked_load_checks_the_padding_lanes():
    result = run_child("--tail", TRITON_DEBUG="1")  # x = [1, 1, 1], BLOCK = 4: lane 3 holds 0.0
    assert result.returncode != 0
    assert "Assertion `x must be positive` failed" in result.stdout + result.stderr


@pytest.mark.gpu
def test_gpu_mask_argument_skips_the_padding_lanes():
    result = run_child("--tail-mask", TRITON_DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert "kernel finished: [2.0, 2.0, 2.0]" in result.stdout
# --8<-- [end:test-gpu-mask]


def assert_line(kernel) -> int:
    """The line number, in this file, of the kernel's tl.device_assert."""
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if "tl.device_assert(" in line)


# The error messages this entry answers (the `errors:` of its page): tests/test_error_index.py
# checks that each of these produces the message it is claimed for.
def failing_assert_with_triton_debug() -> str:
    result = run_child("--plain", TRITON_DEBUG="1")  # fires: debug mode from the environment
    return result.stdout + result.stderr


def failing_assert_with_jit_debug() -> str:
    result = run_child("--jit-debug")  # fires: @triton.jit(debug=True)
    return result.stdout + result.stderr


def python_assert_on_the_interpreter():
    add_one_python_assert[(1,)](torch.zeros(4, device=DEVICE), BLOCK=4)  # raises InterpreterError


def first_line_with(text, output):
    """The first line of `output` that contains `text`, without this repository's path; "" if none."""
    line = next((line for line in output.splitlines() if text in line), "")
    return f"`` {line.strip().replace(str(ROOT) + os.sep, '')} ``" if line else ""  # may hold a backtick


@gpu_evidence("device-assert-outcomes")
def observe_device_assert_outcomes():
    """How a failing device assert ends in a child process on the GPU, per way of asking for debug mode."""
    rows = []
    cases = [("@triton.jit", "--plain", {}), ("@triton.jit + TRITON_DEBUG=1", "--plain", {"TRITON_DEBUG": "1"}),
             ("@triton.jit(debug=True)", "--jit-debug", {}),
             ("TRITON_DEBUG=1, masked load, assert without mask=", "--tail", {"TRITON_DEBUG": "1"}),
             ("TRITON_DEBUG=1, masked load, assert with mask=", "--tail-mask", {"TRITON_DEBUG": "1"})]
    for how, mode, env in cases:
        result = run_child(mode, **env)
        rows.append([f"`{how}`", result.returncode, first_line_with("kernel finished", result.stdout),
                     first_line_with("Assertion", result.stdout + result.stderr),
                     first_line_with("device-side assert", result.stderr)])
    return table(
        [label("debug mode", "调试模式"), label("return code", "返回码"),
         label("stdout: kernel finished", "stdout：kernel finished"),
         label("first line quoting the assertion (stdout, stderr)", "第一行引用断言的输出（stdout、stderr）"),
         label("first stderr line with \"device-side assert\"", "stderr 中第一行含 \"device-side assert\" 的")],
        rows,
    )


CHILD_MODES = ("--plain", "--jit-debug", "--tail", "--tail-mask")


def child(mode):
    if mode in ("--tail", "--tail-mask"):
        x = torch.ones(3, device=DEVICE)  # every element passes `x > 0`; the padding lane does not
        kernel = add_one_tail_masked_assert if mode == "--tail-mask" else add_one_tail
        kernel[(1,)](x, 3, BLOCK=4)
    else:
        x = torch.zeros(4, device=DEVICE)
        kernel = add_one_checked_debug if mode == "--jit-debug" else add_one_checked
        kernel[(1,)](x, BLOCK=4)
    if DEVICE == "cuda":
        torch.cuda.synchronize()  # a device assert surfaces here as a CUDA error
    print("kernel finished:", x.cpu().tolist(), flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] in CHILD_MODES:
        child(sys.argv[1])
        return
    print(describe())
    x = torch.zeros(4, device=DEVICE)
    add_one_checked[(1,)](x, BLOCK=4)  # never fires here: no debug mode (and never on the interpreter)
    print("tl.device_assert(x > 0) on x = 0, no debug mode: kernel finished with", x.cpu().tolist())


if __name__ == "__main__":
    main()
