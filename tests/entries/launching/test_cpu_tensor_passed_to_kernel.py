"""TP025's claims, one test each: snippets/launching/cpu_tensor_passed_to_kernel.py."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from triton.errors import TritonError

from snippets.launching import cpu_tensor_passed_to_kernel as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[3]
READERS_FILE = ROOT / "snippets" / "launching" / "cpu_tensor_passed_to_kernel.py"
CPU_TENSOR_ERROR = "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)"


def reproduce_cpu_output():
    """On CUDA: the pitfall with a GPU input and a CPU output (argument 1)."""
    entry.double_pitfall(fresh_randn(1000))


def reproduce_python_int_as_pointer():
    entry.launch(3, poisoned(1000))


def reproduce_numpy_array():
    entry.launch(np.ones(1000, dtype=np.float32), poisoned(1000))


# the pitfall

@pytest.mark.gpu
def test_gpu_cpu_output_is_a_value_error_naming_argument_1():
    x = fresh_randn(1000)  # on the GPU
    with pytest.raises(ValueError) as raised:
        entry.double_pitfall(x)  # y, the kernel's 2nd parameter (index 1), is on the CPU
    assert str(raised.value) == CPU_TENSOR_ERROR


@pytest.mark.gpu
def test_gpu_two_cpu_tensors_report_only_the_first_at_0():
    with pytest.raises(ValueError) as raised:
        entry.launch(torch.randn(1000), torch.empty(1000))
    assert str(raised.value) == "Pointer argument (at 0) cannot be accessed from Triton (cpu tensor?)"


@pytest.mark.interpreter
def test_interpreter_runs_the_pitfall_on_cpu_tensors_without_error():
    x = fresh_randn(1000)  # DEVICE is "cpu" on the interpreter
    assert_matches_float64(entry.double_pitfall(x), 2 * x.double())


# the fix

def test_fix_matches_float64_reference():
    x = fresh_randn(1000)
    out = poisoned(1000)
    assert entry.double(x, out) is out
    assert_matches_float64(out, 2 * x.double())


def test_fix_moving_a_cpu_input_with_to_device_matches_float64():
    x_cpu = torch.randn(1000, dtype=torch.float64, generator=torch.Generator().manual_seed(torch.seed()))
    out = entry.double(x_cpu.float().to(entry.DEVICE))  # output allocated by empty_like, on DEVICE
    assert out.device.type == entry.DEVICE
    assert_matches_float64(out, 2 * x_cpu.float().double())


def test_fix_rejects_a_non_contiguous_view_with_a_readable_message():
    with pytest.raises(ValueError, match=re.escape("double(): x must be a contiguous tensor on ")):
        entry.double(fresh_randn(4, 256)[:, :128])


@pytest.mark.gpu
def test_gpu_fix_rejects_a_cpu_tensor_with_a_readable_message():
    with pytest.raises(ValueError, match=re.escape("double(): x must be a contiguous tensor on 'cuda', got one on cpu")):
        entry.double(torch.randn(1000))


# what is not an error

def test_pitfall_non_contiguous_view_is_read_in_memory_order_without_error():
    wide = fresh_randn(4, 256)
    view = wide[:, :128]  # 512 elements, row stride 256: not contiguous
    y = poisoned(512)
    entry.launch(view, y)  # the kernel only gets view.data_ptr(): no error
    assert torch.equal(y.cpu(), 2 * wide.reshape(-1)[:512].cpu())  # rows 0 and 1 of `wide`, in full
    assert not torch.equal(y.cpu(), 2 * view.reshape(-1).cpu())


@pytest.mark.gpu
def test_gpu_pinned_cpu_tensor_is_accepted_and_read_over_the_bus():
    x = torch.randn(1000).pin_memory()  # page-locked host memory, mapped for the GPU
    y = poisoned(1000)
    entry.launch(x, y)
    torch.cuda.synchronize()
    assert_matches_float64(y, 2 * x.double())


# not a tensor at all

def test_pitfall_python_int_as_pointer_fails_at_tl_load():
    with pytest.raises(TritonError, match=re.escape("Unsupported ptr type <['128'], int32> in `tl.load`")):
        reproduce_python_int_as_pointer()  # 3 is specialised as an int32 argument, not a pointer


@pytest.mark.gpu
def test_gpu_numpy_array_cannot_be_specialised():
    with pytest.raises(TypeError) as raised:
        reproduce_numpy_array()
    assert str(raised.value) == "failed to specialize argument of type: numpy.ndarray"


@pytest.mark.interpreter
def test_interpreter_numpy_array_fails_inside_the_kernel():
    with pytest.raises(TritonError, match=re.escape("'numpy.ndarray' object has no attribute 'type'")):
        reproduce_numpy_array()


# where the message comes from: the launcher source of the installed Triton

def launcher_source() -> str:
    """The C source of Triton's CUDA launcher (driver.py up to 3.6, driver.c where it exists)."""
    folder = Path(importlib.util.find_spec("triton.backends.nvidia").origin).parent
    return "".join((folder / name).read_text() for name in ("driver.py", "driver.c") if (folder / name).exists())


def test_launcher_asks_the_driver_whether_the_current_context_can_use_each_pointer():
    source = " ".join(launcher_source().split())
    assert "cuPointerGetAttribute(" in source and "CU_POINTER_ATTRIBUTE_DEVICE_POINTER" in source
    check = source[source.index("CUDA_ERROR_INVALID_VALUE"):][:300]
    assert "PyExc_ValueError" in check and "cannot be accessed from Triton " in check and "(cpu tensor?)" in check


def test_launcher_message_names_the_position_of_the_argument():
    source = " ".join(launcher_source().split())
    assert '"Pointer argument (at %d) cannot be accessed from Triton (cpu tensor?)", idx' in source


# the interpreter and CUDA tensors

INTERPRET_CUDA_TENSORS = """
import os, runpy, sys
os.environ["TRITON_INTERPRET"] = "1"  # before the reader's file imports triton
import torch
entry = runpy.run_path(sys.argv[1])
x = torch.randn(1000, device="cuda")
y = torch.full((1000,), float("nan"), device="cuda")
entry["launch"](x, y)  # the interpreter copies x and y to the host, runs, copies y back
print(f"out on {y.device}, equal to 2*x: {torch.equal(y, 2 * x)}", flush=True)
"""


@pytest.mark.gpu
def test_gpu_interpreter_copies_cuda_tensors_to_the_host_and_back():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    child = subprocess.run([sys.executable, "-c", INTERPRET_CUDA_TENSORS, str(READERS_FILE)],
                           env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    assert "out on cuda:0, equal to 2*x: True" in child.stdout
