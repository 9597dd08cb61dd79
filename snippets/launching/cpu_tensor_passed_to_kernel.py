"""TP025: "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)": a CPU tensor passed to a kernel.

Run it: ``python snippets/launching/cpu_tensor_passed_to_kernel.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import argparse
import contextlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest
from triton.errors import TritonError

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[2]
CPU_TENSOR_ERROR = "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)"
BLOCK = 128


# --8<-- [start:kernel]
@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2, mask=mask)


def launch(x, y):
    n = y.numel()
    double_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
def double_pitfall(x):
    y = torch.empty(x.shape)  # no device=: this output lives on the CPU
    launch(x, y)
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def double(x, out=None):
    out = torch.empty_like(x) if out is None else out  # empty_like: on x's device
    for name, t in (("x", x), ("out", out)):
        if t.device.type != DEVICE or not t.is_contiguous():
            raise ValueError(f"double(): {name} must be a contiguous tensor on {DEVICE!r}, "
                             f"got one on {t.device} with strides {t.stride()}")
    # Triton launches on the *current* GPU: make it the one x lives on.
    with torch.cuda.device(x.device) if x.is_cuda else contextlib.nullcontext():
        launch(x, out)
    return out
# --8<-- [end:fix]


def reproduce_cpu_output():
    """On CUDA: the pitfall with a GPU input and a CPU output (argument 1)."""
    double_pitfall(fresh_randn(1000))


def reproduce_python_int_as_pointer():
    launch(3, poisoned(1000))


def reproduce_numpy_array():
    launch(np.ones(1000, dtype=np.float32), poisoned(1000))


# --8<-- [start:test-pitfall]
@pytest.mark.gpu
def test_gpu_cpu_output_is_a_value_error_naming_argument_1():
    x = fresh_randn(1000)  # on the GPU
    with pytest.raises(ValueError) as raised:
        double_pitfall(x)  # y, the kernel's 2nd parameter (index 1), is on the CPU
    assert str(raised.value) == CPU_TENSOR_ERROR


@pytest.mark.gpu
def test_gpu_two_cpu_tensors_report_only_the_first_at_0():
    with pytest.raises(ValueError) as raised:
        launch(torch.randn(1000), torch.empty(1000))
    assert str(raised.value) == "Pointer argument (at 0) cannot be accessed from Triton (cpu tensor?)"


@pytest.mark.interpreter
def test_interpreter_runs_the_pitfall_on_cpu_tensors_without_error():
    x = fresh_randn(1000)  # DEVICE is "cpu" on the interpreter
    assert_matches_float64(double_pitfall(x), 2 * x.double())
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
def test_fix_matches_float64_reference():
    x = fresh_randn(1000)
    out = poisoned(1000)
    assert double(x, out) is out
    assert_matches_float64(out, 2 * x.double())


def test_fix_moving_a_cpu_input_with_to_device_matches_float64():
    x_cpu = torch.randn(1000, dtype=torch.float64, generator=torch.Generator().manual_seed(torch.seed()))
    out = double(x_cpu.float().to(DEVICE))  # output allocated by empty_like, on DEVICE
    assert out.device.type == DEVICE
    assert_matches_float64(out, 2 * x_cpu.float().double())


@pytest.mark.gpu
def test_gpu_fix_rejects_a_cpu_tensor_with_a_readable_message():
    with pytest.raises(ValueError, match=re.escape("double(): x must be a contiguous tensor on 'cuda', got one on cpu")):
        double(torch.randn(1000))
# --8<-- [end:test-fix]


# --8<-- [start:test-not-an-error]
def test_pitfall_non_contiguous_view_is_read_in_memory_order_without_error():
    wide = fresh_randn(4, 256)
    view = wide[:, :128]  # 512 elements, row stride 256: not contiguous
    y = poisoned(512)
    launch(view, y)  # the kernel only gets view.data_ptr(): no error
    assert torch.equal(y.cpu(), 2 * wide.reshape(-1)[:512].cpu())  # rows 0 and 1 of `wide`, in full
    assert not torch.equal(y.cpu(), 2 * view.reshape(-1).cpu())


@pytest.mark.gpu
def test_gpu_pinned_cpu_tensor_is_accepted_and_read_over_the_bus():
    x = torch.randn(1000).pin_memory()  # page-locked host memory, mapped for the GPU
    y = poisoned(1000)
    launch(x, y)
    torch.cuda.synchronize()
    assert_matches_float64(y, 2 * x.double())
# --8<-- [end:test-not-an-error]


# --8<-- [start:test-not-a-tensor]
def test_pitfall_python_int_as_pointer_fails_at_tl_load():
    with pytest.raises(TritonError, match=re.escape("Unsupported ptr type <['128'], int32> in `tl.load`")):
        launch(3, poisoned(1000))  # 3 is specialised as an int32 argument, not a pointer


@pytest.mark.gpu
def test_gpu_numpy_array_cannot_be_specialised():
    with pytest.raises(TypeError) as raised:
        reproduce_numpy_array()
    assert str(raised.value) == "failed to specialize argument of type: numpy.ndarray"


@pytest.mark.interpreter
def test_interpreter_numpy_array_fails_inside_the_kernel():
    with pytest.raises(TritonError, match=re.escape("'numpy.ndarray' object has no attribute 'type'")):
        reproduce_numpy_array()
# --8<-- [end:test-not-a-tensor]


# --8<-- [start:test-launcher-source]
def launcher_source() -> str:
    """The C source of Triton's CUDA launcher (driver.py up to 3.6, driver.c later)."""
    folder = Path(importlib.util.find_spec("triton.backends.nvidia").origin).parent
    return "".join((folder / name).read_text() for name in ("driver.py", "driver.c") if (folder / name).exists())


def test_launcher_asks_the_driver_whether_the_current_context_can_use_each_pointer():
    source = " ".join(launcher_source().split())
    assert "cuPointerGetAttribute(" in source and "CU_POINTER_ATTRIBUTE_DEVICE_POINTER" in source
    check = source[source.index("CUDA_ERROR_INVALID_VALUE"):][:300]
    assert "PyExc_ValueError" in check and "cannot be accessed from Triton " in check and "(cpu tensor?)" in check
# --8<-- [end:test-launcher-source]


# --8<-- [start:interpreter-on-cuda]
def interpret_cuda_tensors():
    """In a process with TRITON_INTERPRET=1 on a GPU machine: CUDA tensors in, CUDA tensor out."""
    x = torch.randn(1000, device="cuda")
    y = torch.full((1000,), float("nan"), device="cuda")
    launch(x, y)  # the interpreter copies x and y to the host, runs, copies y back
    print(f"out on {y.device}, equal to 2*x: {torch.equal(y, 2 * x)}", flush=True)


def run_interpreter_child() -> subprocess.CompletedProcess:
    environ = dict(os.environ, TRITON_FAQ_BACKEND="interpreter")
    command = [sys.executable, __file__, "--interpret-cuda-tensors"]
    return subprocess.run(command, env=environ, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.gpu
def test_gpu_interpreter_copies_cuda_tensors_to_the_host_and_back():
    child = run_interpreter_child()
    assert child.returncode == 0, child.stderr
    assert "out on cuda:0, equal to 2*x: True" in child.stdout
# --8<-- [end:interpreter-on-cuda]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interpret-cuda-tensors", action="store_true", help="run the kernel on CUDA tensors")
    args, _ = parser.parse_known_args(argv)  # ignore a test runner's own arguments
    if args.interpret_cuda_tensors:
        interpret_cuda_tensors()
        return
    print(describe())
    x = fresh_randn(1000)
    try:
        y = double_pitfall(x)
        print("pitfall (CPU output): ran;", "right" if torch.equal(y, 2 * x.cpu()) else "wrong")
    except ValueError as error:
        print(f"pitfall (CPU output): ValueError: {error}")
    print("fix: matches 2*x:", torch.equal(double(x).cpu(), 2 * x.cpu()))
    for name, bad in (("Python int 3", 3), ("numpy array", np.ones(1000, dtype=np.float32))):
        try:
            launch(bad, poisoned(1000))
        except Exception as error:
            print(f"{name} as x_ptr: {type(error).__name__}: {str(error).splitlines()[-1]}")


if __name__ == "__main__":
    main()
