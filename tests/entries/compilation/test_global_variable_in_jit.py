"""TP033's claims, one test each: snippets/compilation/global_variable_in_jit.py.

Compiling without a GPU happens in a fresh process (`in_fresh_process`), each case in a new
empty kernel cache: on some Triton releases a kernel run by the interpreter breaks the real
compiler later in the same process.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
import triton
import triton.language as tl
from triton.compiler.errors import CompilationError
from triton.runtime.jit import JITFunction

from snippets.compilation import global_variable_in_jit as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

NAME_ERROR = "Cannot access global variable BLOCK from within @jit'ed function"


# -- the on-disk cache: the same kernel compiled twice into one empty cache, the global changed between

VALUE = 7  # read by the kernel only under TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1
VALUE_CONST = tl.constexpr(7)


@triton.jit
def store_value(out_ptr):
    tl.store(out_ptr, VALUE)


@triton.jit
def store_value_const(out_ptr):
    tl.store(out_ptr, VALUE_CONST)


def stored_constants(kernel, global_name, new_value):
    """Compile `kernel` twice into one cache, changing the global in between (as an edit of the
    file between two runs would); return the constant each compiled kernel stores."""
    stored = []
    for value in (globals()[global_name], new_value):
        globals()[global_name] = value
        ttir = entry.compile_for_h200(kernel, signature={"out_ptr": "*i32"}).asm["ttir"]
        stored.append(int(re.search(r"arith.constant (\d+) : i32", ttir).group(1)))
    return stored


def offline_case(case):
    """One compile experiment without a GPU, in a new empty kernel cache (run by `offline`)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    os.environ.pop("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", None)
    if case == "plain global":
        entry.compile_for_h200(entry.double_global_block)
    elif case == "annotated global":
        entry.compile_for_h200(entry.double_annotated_block)
    elif case == "constexpr global":
        entry.compile_for_h200(entry.double_constexpr_global)
    elif case == "argument and @jit helper":
        if not isinstance(entry._twice, JITFunction):  # under the interpreter: compile the plain function
            entry._twice = JITFunction(entry._twice.fn)
        entry.compile_for_h200(entry.double_block_argument, {"BLOCK": 128})
    elif case == "plain global, env var set after import":
        os.environ["TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"] = "1"
        entry.compile_for_h200(entry.double_global_block)
    elif case == "disk cache, plain global":
        os.environ["TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"] = "1"
        return stored_constants(store_value, "VALUE", 8)
    elif case == "disk cache, constexpr global":
        return stored_constants(store_value_const, "VALUE_CONST", tl.constexpr(8))
    return "compiled"


CASES = ["plain global", "annotated global", "constexpr global", "argument and @jit helper",
         "plain global, env var set after import", "disk cache, plain global", "disk cache, constexpr global"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES)


def offline(case):
    return _offline_results()[case]


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_plain_global():
    result = offline("plain global")
    return f"{result.get('error')}: {result.get('message')}"


def reproduce_changed_global():
    entry.scale_twice_changing_factor(fresh_randn(1000))


# -- the pitfall

def test_pitfall_plain_int_global_is_a_compile_error():
    result = offline("plain global")
    assert result["error"] == "CompilationError"
    assert f'NameError("{NAME_ERROR}.' in result["message"]
    assert "(`x = triton.language.constexpr(42)`)" in result["message"]
    assert "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1, but we do not promise to support this forever." in result["message"]


def test_pitfall_annotated_global_is_the_same_error():
    result = offline("annotated global")
    assert result["error"] == "CompilationError"
    assert "Cannot access global variable BLOCK_ANNOTATED from within @jit'ed function" in result["message"]
    assert ("Note that this is different from annotating a variable as constexpr "
            "(`x: triton.language.constexpr = 42`), which is not supported.") in result["message"]


@pytest.mark.gpu
def test_gpu_plain_int_global_fails_at_the_first_launch():
    with pytest.raises(CompilationError, match=re.escape(NAME_ERROR)):
        entry.launch(entry.double_global_block, fresh_randn(1000))


@pytest.mark.interpreter
def test_interpreter_reads_the_plain_global_without_error():
    x = fresh_randn(1000)
    assert_matches_float64(entry.launch(entry.double_global_block, x), 2 * x.double())


# -- the fix

def test_fix_constexpr_global_and_argument_compile():
    assert offline("constexpr global") == {"value": "compiled"}
    assert offline("argument and @jit helper") == {"value": "compiled"}


def test_fix_constexpr_global_matches_float64():
    x = fresh_randn(1000)
    assert_matches_float64(entry.launch(entry.double_constexpr_global, x), 2 * x.double())


def test_fix_constexpr_argument_matches_float64():
    x = fresh_randn(1000)
    for block in (64, 128, 256):  # one kernel, several block sizes; launch fills y with NaN first
        assert_matches_float64(entry.launch(entry.double_block_argument, x, BLOCK=block), 2 * x.double())


# -- the escape hatch

def test_env_var_set_after_import_lets_the_plain_global_compile():
    assert offline("plain global, env var set after import") == {"value": "compiled"}


# -- a global changed after the first launch, in one process

@pytest.mark.gpu
def test_gpu_changing_a_constexpr_global_after_the_first_launch_raises():
    with pytest.raises(RuntimeError) as raised:
        entry.scale_twice_changing_factor(fresh_randn(1000))
    assert str(raised.value) == ("Global variable FACTOR has changed since we compiled this kernel, "
                                 "from constexpr[2.0] to constexpr[3.0]")


@pytest.mark.interpreter
def test_interpreter_uses_the_new_value_silently():
    x = fresh_randn(1000)
    first, second = entry.scale_twice_changing_factor(x)
    assert_matches_float64(first, 2 * x.double())
    assert_matches_float64(second, 3 * x.double())


# -- across runs: the on-disk kernel cache

def test_disk_cache_serves_a_stale_plain_global_under_the_env_var():
    assert offline("disk cache, plain global") == {"value": [7, 7]}


def test_disk_cache_notices_a_changed_constexpr_global():
    assert offline("disk cache, constexpr global") == {"value": [7, 8]}
