"""TP037's claims, one test each: snippets/launching/grid_axis_above_65535.py.

The launches that fail on a GPU run in one fresh process (`in_fresh_process`), in the order of
GPU_CASES, so that a failed launch cannot affect the rest of the suite; the same process then
launches the fixes, which shows whether the failure left the CUDA context usable.
"""

import functools
import importlib.util
import inspect
from pathlib import Path

import pytest

from snippets.launching import grid_axis_above_65535 as entry
from triton_faq.backend import BACKEND
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process

MESSAGE = "Triton Error [CUDA]: invalid argument"
N_COLS = 50  # two column blocks of 32: the mask matters


def scaled_rows_match_float64(scale_rows, n_rows, **options):
    x, s = fresh_randn(n_rows, N_COLS), fresh_randn(n_rows)
    assert_matches_float64(scale_rows(x, s, **options), x.double() * s.double()[:, None])
    return "matches float64"


LAUNCHERS = {"pitfall": entry.scale_rows_pitfall, "fix": entry.scale_rows, "loop": entry.scale_rows_looped}


def on_gpu(what, argument):
    """One GPU launch (run by `gpu_results`, in one fresh process, in the order of GPU_CASES)."""
    if what == "programs":
        return entry.programs_run(tuple(argument))
    return scaled_rows_match_float64(LAUNCHERS[what], argument)


GPU_CASES = [
    ("programs", [1, 65535]),
    ("programs", [1, 65536]),
    ("programs", [1, 1, 65535]),
    ("programs", [1, 1, 65536]),
    ("programs", [1 << 20]),
    ("pitfall", 65535),
    ("pitfall", 65536),
    ("fix", 65536),  # after the failed launches, in the same process
    ("fix", 100_000),
    ("loop", 100_000),
]


@functools.cache
def _gpu_results():
    results = in_fresh_process(Path(__file__), "on_gpu", GPU_CASES)
    return {(what, str(argument)): result for (what, argument), result in zip(GPU_CASES, results)}


def on_gpu_result(what, argument):
    return _gpu_results()[(what, str(argument))]


FAILED = {"error": "RuntimeError", "message": MESSAGE}


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_axis_1_above_65535():
    """On CUDA: the pitfall with 65536 rows, in a fresh process; returns what it raised."""
    [result] = in_fresh_process(Path(__file__), "on_gpu", [("pitfall", 65536)])
    if "error" not in result:
        return f"no error: {result}"
    return f"{result['error']}: {result['message']}"


# -- the pitfall

@pytest.mark.gpu
def test_gpu_pitfall_launches_65535_rows_and_fails_at_65536():
    assert on_gpu_result("pitfall", 65535) == {"value": "matches float64"}
    assert on_gpu_result("pitfall", 65536) == FAILED


@pytest.mark.gpu
def test_gpu_axis_1_and_axis_2_take_at_most_65535_programs():
    assert on_gpu_result("programs", [1, 65535]) == {"value": 65535}
    assert on_gpu_result("programs", [1, 65536]) == FAILED
    assert on_gpu_result("programs", [1, 1, 65535]) == {"value": 65535}
    assert on_gpu_result("programs", [1, 1, 65536]) == FAILED


@pytest.mark.gpu
def test_gpu_axis_0_takes_a_million_programs():
    assert on_gpu_result("programs", [1 << 20]) == {"value": 1 << 20}


@pytest.mark.gpu
def test_gpu_the_device_reports_the_grid_limits():
    import ctypes

    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0
    device = ctypes.c_int()
    assert cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
    limits = []
    for attribute in (5, 6, 7):  # CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, _Y, _Z in cuda.h
        value = ctypes.c_int()
        assert cuda.cuDeviceGetAttribute(ctypes.byref(value), attribute, device) == 0
        limits.append(value.value)
    assert limits == [2**31 - 1, 65535, 65535]


@pytest.mark.interpreter
def test_interpreter_runs_65536_programs_on_axis_1():
    assert entry.programs_run((1, 65536)) == 65536


def test_interpreter_loops_over_the_grid_and_checks_no_limit():
    import triton.runtime.interpreter as interpreter

    run = " ".join(inspect.getsource(interpreter.GridExecutor.__call__).split())
    assert "for x in range(grid[0]): for y in range(grid[1]): for z in range(grid[2]):" in run
    assert "65535" not in inspect.getsource(interpreter)


def test_pitfall_kernel_is_right_below_the_limit():
    for n_rows in (1, 7, 40):
        scaled_rows_match_float64(entry.scale_rows_pitfall, n_rows)


# -- where the message comes from: the launcher and cuda.h of the installed Triton

def nvidia_backend() -> Path:
    return Path(importlib.util.find_spec("triton.backends.nvidia").origin).parent


def launcher_source() -> str:
    """The C source of Triton's CUDA launcher (driver.py up to 3.6, driver.c where it exists)."""
    folder = nvidia_backend()
    return " ".join("".join((folder / name).read_text() for name in ("driver.py", "driver.c")
                            if (folder / name).exists()).split())


def test_launcher_hands_the_grid_to_the_driver_unchecked():
    source = launcher_source()
    handed = ("config.gridDimY = gridY; config.gridDimZ = gridZ;" in source  # cuLaunchKernelEx's config
              or "cuLaunchKernel(function, gridX, gridY, gridZ," in source)  # the plain launch of Triton 3.2
    assert handed and "cuLaunchKernel" in source
    assert "65535" not in source and "MAX_GRID_DIM" not in source


def test_launcher_message_is_triton_error_cuda_and_the_driver_error_string():
    source = launcher_source()
    assert '"Triton Error [CUDA]: "' in source and "cuGetErrorString(code, &str);" in source
    assert "PyErr_SetString(PyExc_RuntimeError, err);" in source


def test_cuda_h_names_the_grid_limits_and_the_error_code():
    header = " ".join((nvidia_backend() / "include" / "cuda.h").read_text().split())
    assert "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6, /**< Maximum grid dimension Y */" in header
    code = header.index("CUDA_ERROR_INVALID_VALUE = 1,")
    assert header[code - 200:code].endswith("is not within an acceptable range of values. */ ")


# -- the fixes

FIX_ROWS = (1, 7, 40) if BACKEND == "interpreter" else (1, 65535, 65536, 100_000)


def test_fix_rows_on_axis_0_matches_float64():
    for n_rows in FIX_ROWS:
        scaled_rows_match_float64(entry.scale_rows, n_rows)


def test_fix_loop_over_rows_matches_float64():
    for n_rows, programs in ((1, 8), (50, 8), (50, 64)):  # fewer programs than rows, and more
        scaled_rows_match_float64(entry.scale_rows_looped, n_rows, programs=programs)


@pytest.mark.gpu
def test_gpu_fixes_launch_after_the_failed_launch_in_the_same_process():
    assert on_gpu_result("fix", 65536) == {"value": "matches float64"}
    assert on_gpu_result("fix", 100_000) == {"value": "matches float64"}
    assert on_gpu_result("loop", 100_000) == {"value": "matches float64"}
