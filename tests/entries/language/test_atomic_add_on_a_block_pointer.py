"""TP085's claims, one test each: snippets/language/atomic_add_on_a_block_pointer.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache, with the process's stderr and stdout caught around the compile (3.2 and 3.3 report the
error there); the launches run on the backend of the session.
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton

from snippets.language import atomic_add_on_a_block_pointer as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"
REMOVED = "NotImplementedError('Block pointers have been removed in favor of the tensor descriptor API')"


def compiled_error():
    """What compiling the pitfall for sm_90 gives, by release: (exception, its cause or stderr's error)."""
    if RELEASE < (3, 4):
        return "RuntimeError", "'tt.atomic_rmw' op failed to verify that ptr type matches value type"
    if RELEASE < (3, 8):
        return "CompilationError", "AttributeError(\"'block_type' object has no attribute 'primitive_bitwidth'\")"
    if RELEASE < (3, 9):
        return "CompilationError", "AttributeError(\"'_aggregate_type' object has no attribute 'scalar'\")"
    return "CompilationError", REMOVED


def interpreter_error():
    """The cause of the InterpreterError a launch of the pitfall gives, by release."""
    if RELEASE < (3, 4):
        return "AttributeError(\"'BlockPointerHandle' object has no attribute 'data'\")"
    return compiled_error()[1]


SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32", "BLOCK_R": "constexpr",
             "BLOCK_C": "constexpr"}


def offline_case(name):
    """Compile one kernel for sm_90 without a GPU: "compiled", or the exception's type and its cause
    (or, when it has none, the first `error:` line the compiler wrote), run by `offline`."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    source = triton.compiler.ASTSource(triton.runtime.jit.JITFunction(getattr(entry, name).fn), SIGNATURE,
                                       {"BLOCK_R": 16, "BLOCK_C": 128})
    with tempfile.TemporaryFile() as caught:
        saved = [os.dup(1), os.dup(2)]
        os.dup2(caught.fileno(), 1)
        os.dup2(caught.fileno(), 2)
        try:
            triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
            result = "compiled"
        except Exception as error:
            result = [type(error).__name__, repr(error.__cause__) if error.__cause__ else None]
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        caught.seek(0)
        written = caught.read().decode("utf-8", "replace")
    if result != "compiled" and result[1] is None:
        result[1] = next((line.split("error: ", 1)[1] for line in written.splitlines() if "error: " in line), None)
    return result


def offline(name):
    return in_fresh_process_by_case(Path(__file__), "offline_case",
                                    ["split_sum_pitfall", "split_sum_fixed", "split_sum_descriptor"],
                                    compile_ready=True)[name]["value"]


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_compiled():
    return offline("split_sum_pitfall")[1]


# -- the pitfall

def test_pitfall_compiled_fails_with_the_releases_message():
    assert offline("split_sum_pitfall") == list(compiled_error())


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's behaviour")
def test_pitfall_on_the_interpreter_fails_with_the_releases_message():
    with pytest.raises(Exception) as caught:
        entry.split_sum(entry.split_sum_pitfall, fresh_randn(2, 32, 32))
    assert repr(caught.value.__cause__) == interpreter_error()


@pytest.mark.gpu
def test_gpu_a_launch_fails():
    with pytest.raises(Exception):
        entry.split_sum(entry.split_sum_pitfall, fresh_randn(2, 32, 32))


# -- the fixes

def test_fix_compiles():
    assert offline("split_sum_fixed") == "compiled"


def test_fix_with_a_tensor_descriptor_compiles_from_3_4():
    if RELEASE >= (3, 4):
        assert offline("split_sum_descriptor") == "compiled"
    else:
        assert offline("split_sum_descriptor")[0] in ("CompilationError", "AttributeError")


@pytest.mark.parametrize("shape", [(4, 32, 32), (3, 50, 70), (1, 17, 5)])
def test_fix_matches_float64(shape):
    x = fresh_randn(*shape)
    assert_matches_float64(entry.split_sum(entry.split_sum_fixed, x), x.double().sum(0))


@pytest.mark.gpu
def test_gpu_the_descriptor_fix_matches_float64():
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    x = fresh_randn(4, 64, 128)
    assert_matches_float64(entry.split_sum(entry.split_sum_descriptor, x), x.double().sum(0))
