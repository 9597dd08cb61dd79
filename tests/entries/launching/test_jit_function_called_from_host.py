"""TP040's claims, one test each: snippets/launching/jit_function_called_from_host.py.

Calling an interpreted @triton.jit function from host code leaves `triton.language` patched for the
rest of the process, so those calls run in one fresh process (`in_fresh_process`).
"""

import functools
import threading
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.launching import jit_function_called_from_host as entry
from triton_faq.backend import BACKEND
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

MESSAGE = "Cannot call @triton.jit'd outside of the scope of a kernel"
X = [-2.0, -0.5, 1.0, 3.0]


@triton.jit
def ones(y_ptr, BLOCK: tl.constexpr):  # the late script's kernel, in a process that set TRITON_INTERPRET first
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), dtype=tl.float32) + 1)


def host_call_case(case):
    """One host call of an interpreted @triton.jit function (run by `interpreted`, in a fresh process)."""
    x = torch.tensor(X)
    if case == "tl.zeros, TRITON_INTERPRET set before import":
        y = torch.zeros(16)
        ones[(1,)](y, BLOCK=16)
        return y.tolist()
    if case == "leaky_relu.fn before":
        entry.leaky_relu.fn(x, 0.1)
    elif case == "axpb":
        return entry.axpb(x, 2.0, 1.0).tolist()
    elif case == "leaky_relu":
        entry.leaky_relu_reference_pitfall(x, 0.1)
    elif case == "leaky_relu.fn after":
        entry.leaky_relu.fn(x, 0.1)
    return "no error"


CASES = ["tl.zeros, TRITON_INTERPRET set before import", "leaky_relu.fn before", "axpb", "leaky_relu", "leaky_relu.fn after"]


@functools.cache
def _interpreted_results():
    late = {}
    child = threading.Thread(target=lambda: late.update(late=entry.run_script(entry.LATE_SCRIPT)))
    child.start()  # the script that sets TRITON_INTERPRET too late runs while the host calls run
    results = in_fresh_process_by_case(Path(__file__), "host_call_case", CASES)
    child.join()
    return {**results, **late}


@functools.cache
def _late_result():
    if BACKEND == "interpreter":  # it ran beside the fresh process
        return _interpreted_results()["late"]
    return entry.run_script(entry.LATE_SCRIPT)


def interpreted(case):
    return _interpreted_results()[case]


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_host_call():
    triton.runtime.jit.JITFunction(entry.leaky_relu.fn)(fresh_randn(8), 0.1)


# -- the pitfall

def test_pitfall_a_compiled_jit_function_refuses_a_host_call():
    for helper, args in ((entry.leaky_relu, (0.1,)), (entry.axpb, (2.0, 1.0))):
        compiled = triton.runtime.jit.JITFunction(helper.fn)  # what @triton.jit returns without the interpreter
        with pytest.raises(RuntimeError) as raised:
            compiled(fresh_randn(8), *args)
        assert str(raised.value) == MESSAGE


@pytest.mark.gpu
def test_gpu_the_reference_function_raises():
    with pytest.raises(RuntimeError) as raised:
        entry.leaky_relu_reference_pitfall(fresh_randn(8), 0.1)
    assert str(raised.value) == MESSAGE


@pytest.mark.interpreter
def test_interpreter_runs_a_host_call_of_a_plain_operator_helper():
    assert interpreted("axpb") == {"value": [-3.0, 0.0, 3.0, 7.0]}


@pytest.mark.interpreter
def test_interpreter_fails_differently_on_a_helper_that_calls_tl():
    assert interpreted("leaky_relu") == {
        "error": "InterpreterError",
        "message": "TypeError(\"cannot convert tensor([False, False,  True,  True]) of type <class 'torch.Tensor'> "
                   "to tensor\")"}


@pytest.mark.interpreter
def test_interpreter_host_call_leaves_triton_language_patched():
    assert interpreted("leaky_relu.fn before")["error"] == "ValueError"
    assert interpreted("leaky_relu.fn after")["error"] == "TypeError"  # tl.where is still the interpreter's


# -- the other cause: TRITON_INTERPRET=1 set after `import triton`

def test_interpret_set_after_import_makes_triton_language_helpers_raise():
    returncode, last_line = _late_result()
    assert returncode == 1
    assert last_line == ("triton.runtime.errors.InterpreterError: "
                         "RuntimeError(\"Cannot call @triton.jit'd outside of the scope of a kernel\")")


@pytest.mark.interpreter
def test_interpret_set_before_import_runs_the_same_kernel():
    assert interpreted("tl.zeros, TRITON_INTERPRET set before import") == {"value": [1.0] * 16}


# -- the fixes

def test_fix_launching_a_kernel_matches_float64():
    for n in (1, 100, 1000):
        x = fresh_randn(n)
        assert_matches_float64(entry.leaky_relu_launch(x, 0.1),
                               torch.where(x.double() >= 0, x.double(), x.double() * torch.tensor(0.1).float().double()))


def test_fix_torch_twin_matches_the_kernel_and_float64():
    x = fresh_randn(1000)
    reference = torch.where(x.double() >= 0, x.double(), x.double() * torch.tensor(0.1).float().double())
    assert_matches_float64(entry.leaky_relu_torch(x, 0.1), reference)
    assert torch.equal(entry.leaky_relu_torch(x, 0.1), entry.leaky_relu_launch(x, 0.1))


def test_fix_fn_runs_a_plain_operator_helper_on_host():
    x = fresh_randn(1000)
    assert_matches_float64(entry.axpb_on_host(x, 2.0, 1.0), x.double() * 2 + 1)


def test_fn_of_a_helper_that_calls_tl_raises():
    with pytest.raises(ValueError) as raised:
        entry.leaky_relu.fn(fresh_randn(8), 0.1)
    assert str(raised.value) == ("Did you forget to add @triton.jit ? "
                                 "(`_semantic` argument must be provided outside of JIT functions.)")
