"""TP039's claims, one test each: snippets/debugging/compiler_crash.py.

Every compile without a GPU runs in one fresh process (`in_fresh_process`), each case in a new
empty kernel cache; the child that crashes on purpose runs beside it, in a thread.
"""

import functools
import os
import re
import tempfile
import threading
from pathlib import Path

import pytest

from snippets.debugging import compiler_crash as entry
from triton_faq.fresh import once_per_run
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

run_child = once_per_run(entry.run_child)  # the crash child once per test run: the error gate asks for it too

PIPELINE_FAILED = "Pipeline failed while executing [`NVGPUWarpSpecialization` on 'builtin.module' operation]"


def dumped_files(directory):
    """The IR files TRITON_KERNEL_DUMP wrote under `directory` (names only, without the hash folder)."""
    return sorted(name for _, _, names in os.walk(directory) for name in names)


def set_env(**variables):
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    for name in ("MLIR_ENABLE_DUMP", "TRITON_KERNEL_DUMP", "TRITON_DUMP_DIR", "TRITON_ALWAYS_COMPILE"):
        os.environ.pop(name, None)
    os.environ.update(variables)


def offline_case(case):
    """One compile experiment without a GPU (run by `offline`, in a fresh process)."""
    set_env()
    if case == "warp specialized, sm_90":
        result, stderr = entry.with_stderr(lambda: entry.compile_for(entry.matmul_ws))
        return {"raised": f"{type(result).__name__}: {result}",
                "pipeline": [line.split(": note: ")[-1] for line in stderr.splitlines() if "Pipeline failed" in line],
                "assertion": [line.split(": ")[-1] for line in stderr.splitlines() if "Assertion" in line]}
    if case == "MLIR_ENABLE_DUMP":
        set_env(MLIR_ENABLE_DUMP="1")
        _, stderr = entry.with_stderr(lambda: entry.compile_for(entry.matmul_ws))
        return re.findall(r"IR Dump Before (\w+)", stderr)[-2:]
    if case == "TRITON_KERNEL_DUMP":
        dump = tempfile.mkdtemp()
        set_env(TRITON_KERNEL_DUMP="1", TRITON_DUMP_DIR=dump)
        entry.with_stderr(lambda: entry.compile_for(entry.matmul_ws))
        return dumped_files(dump)
    if case == "TRITON_ALWAYS_COMPILE":
        set_env()
        entry.compile_for(entry.matmul_plain)  # the kernel is now in the cache
        seen = {}
        for always in ("0", "1"):
            dump = tempfile.mkdtemp()
            os.environ.update(TRITON_KERNEL_DUMP="1", TRITON_DUMP_DIR=dump, TRITON_ALWAYS_COMPILE=always)
            entry.compile_for(entry.matmul_plain)
            seen[always] = dumped_files(dump)
        return seen
    if case == "warp specialized, sm_80":
        return type(entry.compile_for(entry.matmul_ws, entry.A100)).__name__
    if case == "warp specialized, 16x16 tile, sm_90":
        return type(entry.compile_for(entry.matmul_ws, constexprs={"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16})).__name__
    if case == "fix, sm_90":
        return type(entry.compile_for(entry.matmul_plain)).__name__
    raise ValueError(case)


CASES = ["warp specialized, sm_90", "MLIR_ENABLE_DUMP", "TRITON_KERNEL_DUMP", "TRITON_ALWAYS_COMPILE",
         "warp specialized, sm_80", "warp specialized, 16x16 tile, sm_90", "fix, sm_90"]


@functools.cache
def _offline_results():
    crashed = {}
    child = threading.Thread(target=lambda: crashed.update(crash=run_child("crash")))
    child.start()  # the child that segfaults on purpose runs while the compiles run
    results = in_fresh_process_by_case(Path(__file__), "offline_case", CASES)
    child.join()
    return {**results, "crash": crashed["crash"]}


def offline(case):
    result = _offline_results()[case]
    return result if case == "crash" else result["value"]


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_pass_manager_failed():
    result = offline("warp specialized, sm_90")
    return "\n".join(result["pipeline"] + [result["raised"]])


# -- the crash

def test_pitfall_warp_specialized_dot_loop_fails_in_the_pass_manager_for_sm_90():
    result = offline("warp specialized, sm_90")
    assert result["raised"] == "RuntimeError: PassManager::run failed"
    assert result["pipeline"] == [PIPELINE_FAILED + ": reproducer generated at `std::errs, please share the "
                                  "reproducer above with Triton project.`"]


def test_the_same_failure_prints_an_internal_assertion_first():
    assert offline("warp specialized, sm_90")["assertion"] == ["Assertion `false' failed."]


@pytest.mark.gpu
def test_gpu_the_first_launch_raises_the_same_error():
    a, b = fresh_randn(64, 64).half(), fresh_randn(64, 64).half()
    with pytest.raises(RuntimeError, match=re.escape("PassManager::run failed")):
        entry.matmul(entry.matmul_ws, a, b)


@pytest.mark.interpreter
def test_interpreter_runs_the_kernel_the_compiler_fails_on():
    a, b = fresh_randn(64, 64).half(), fresh_randn(64, 64).half()
    assert_matches_float64(entry.matmul(entry.matmul_ws, a, b), a.double() @ b.double())


# -- the triage steps

def test_faulthandler_shows_the_python_frames_of_a_crash_inside_compile():
    returncode, stderr = offline("crash")
    assert returncode == -11  # SIGSEGV
    assert "Fatal Python error: Segmentation fault" in stderr
    assert re.search(r'File ".*triton/compiler/compiler\.py", line \d+ in compile\n', stderr)
    assert re.search(r'compiler_crash\.py", line \d+ in crash_inside_compile\n', stderr)


def test_mlir_enable_dump_shows_the_failing_pass_last():
    assert offline("MLIR_ENABLE_DUMP") == ["TritonGPUCombineTensorSelectAndIf", "NVGPUWarpSpecialization"]


def test_kernel_dump_keeps_the_ir_that_reached_the_failing_stage():
    assert offline("TRITON_KERNEL_DUMP") == ["matmul_ws.ttir"]


def test_a_cached_kernel_writes_no_dump_unless_always_compile_is_set():
    seen = offline("TRITON_ALWAYS_COMPILE")
    assert seen["0"] == []
    assert seen["1"] == ["matmul_plain.cubin", "matmul_plain.llir", "matmul_plain.ptx", "matmul_plain.sass",
                         "matmul_plain.ttgir", "matmul_plain.ttir"]


def test_another_target_compiles_the_same_kernel():
    assert offline("warp specialized, sm_80") == "CompiledKernel"


def test_a_16x16_tile_compiles_with_warp_specialization():
    assert offline("warp specialized, 16x16 tile, sm_90") == "CompiledKernel"


# -- the fix: the minimal change that compiles

def test_fix_without_warp_specialize_compiles_for_sm_90():
    assert offline("fix, sm_90") == "CompiledKernel"


def test_fix_matches_float64():
    for k, block_k in ((64, 32), (128, 64)):
        a, b = fresh_randn(64, k).half(), fresh_randn(k, 64).half()
        assert_matches_float64(entry.matmul(entry.matmul_plain, a, b, block_k), a.double() @ b.double())
