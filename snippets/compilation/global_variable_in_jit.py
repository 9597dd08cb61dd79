"""TP033: "NameError: Cannot access global variable BLOCK from within @jit'ed function".

Run it: ``python snippets/compilation/global_variable_in_jit.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import functools
import os
import re
import tempfile

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.compiler.errors import CompilationError
from triton.runtime.jit import JITFunction

from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process, poisoned

NAME_ERROR = "Cannot access global variable BLOCK from within @jit'ed function"


# --8<-- [start:pitfall]
BLOCK = 128  # a plain Python int at module level


@triton.jit
def double_global_block(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # reads the global BLOCK
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:annotated]
BLOCK_ANNOTATED: tl.constexpr = 128  # only an annotation: the value is still the int 128


@triton.jit
def double_annotated_block(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * BLOCK_ANNOTATED + tl.arange(0, BLOCK_ANNOTATED)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
# --8<-- [end:annotated]


# --8<-- [start:fix]
BLOCK_CONST = tl.constexpr(128)  # an instance of tl.constexpr: allowed


@triton.jit
def double_constexpr_global(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * BLOCK_CONST + tl.arange(0, BLOCK_CONST)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


@triton.jit
def _twice(x):  # a global @jit function: allowed
    return x * 2


@triton.jit
def double_block_argument(x_ptr, y_ptr, n, BLOCK: tl.constexpr):  # the clean fix: an argument
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # `tl` is a global module: allowed
    mask = offs < n
    tl.store(y_ptr + offs, _twice(tl.load(x_ptr + offs, mask=mask)), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x, y, **constexprs):
    n = x.numel()
    kernel[(triton.cdiv(n, 128),)](x, y, n, **constexprs)
    return y
# --8<-- [end:launch]


# --8<-- [start:changed]
FACTOR = tl.constexpr(2.0)


@triton.jit
def scale_by_factor(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)


def scale_twice_changing_factor(x):
    """Launch, set FACTOR to 3.0, launch again; FACTOR is restored afterwards."""
    global FACTOR
    first, second = poisoned(x.numel()), poisoned(x.numel())
    launch(scale_by_factor, x, first, BLOCK=128)
    FACTOR = tl.constexpr(3.0)
    try:
        launch(scale_by_factor, x, second, BLOCK=128)
    finally:
        FACTOR = tl.constexpr(2.0)
    return first, second
# --8<-- [end:changed]


# --8<-- [start:offline]
H200 = GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}


def compile_offline(kernel, constexprs=None, signature=SIGNATURE):
    fn = JITFunction(kernel.fn)  # a fresh object, as in a new process: its cache key is computed afresh
    signature = dict(signature, **{name: "constexpr" for name in constexprs or {}})
    return triton.compile(ASTSource(fn, signature, constexprs or {}), target=H200)
# --8<-- [end:offline]


# --8<-- [start:disk-cache]
VALUE = 7  # read by the kernel only under TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1
VALUE_CONST = tl.constexpr(7)


@triton.jit
def store_value(out_ptr):
    tl.store(out_ptr, VALUE)


@triton.jit
def store_value_const(out_ptr):
    tl.store(out_ptr, VALUE_CONST)


def stored_constants(kernel, global_name, new_value):
    """Compile `kernel` twice into one empty cache, changing the global in between (as an
    edit of the file between two runs would); return the constant each compiled kernel stores."""
    stored = []
    for value in (globals()[global_name], new_value):
        globals()[global_name] = value
        ttir = compile_offline(kernel, signature={"out_ptr": "*i32"}).asm["ttir"]
        stored.append(int(re.search(r"arith.constant (\d+) : i32", ttir).group(1)))
    return stored
# --8<-- [end:disk-cache]


def offline_case(case):
    """One compile experiment without a GPU, in a new empty kernel cache (see `offline`)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    os.environ.pop("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", None)
    if case == "plain global":
        compile_offline(double_global_block)
    elif case == "annotated global":
        compile_offline(double_annotated_block)
    elif case == "constexpr global":
        compile_offline(double_constexpr_global)
    elif case == "argument and @jit helper":
        if not isinstance(_twice, JITFunction):  # under the interpreter: compile the plain function
            globals()["_twice"] = JITFunction(_twice.fn)
        compile_offline(double_block_argument, {"BLOCK": 128})
    elif case == "plain global, env var set after import":
        os.environ["TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"] = "1"
        compile_offline(double_global_block)
    elif case == "disk cache, plain global":
        os.environ["TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"] = "1"
        return stored_constants(store_value, "VALUE", 8)
    elif case == "disk cache, constexpr global":
        return stored_constants(store_value_const, "VALUE_CONST", tl.constexpr(8))
    return "compiled"


CASES = ["plain global", "annotated global", "constexpr global", "argument and @jit helper",
         "plain global, env var set after import", "disk cache, plain global", "disk cache, constexpr global"]


@functools.cache
def _offline_results():
    # a fresh process: the interpreter, once it has run a kernel, breaks the compiler in its process
    return dict(zip(CASES, in_fresh_process(__file__, "offline_case", [(case,) for case in CASES])))


def offline(case):
    return _offline_results()[case]


def reproduce_plain_global():
    result = offline("plain global")
    return f"{result.get('error')}: {result.get('message')}"


def reproduce_changed_global():
    scale_twice_changing_factor(fresh_randn(1000))


# --8<-- [start:test-pitfall]
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
        launch(double_global_block, fresh_randn(1000), poisoned(1000))


@pytest.mark.interpreter
def test_interpreter_reads_the_plain_global_without_error():
    x = fresh_randn(1000)
    assert_matches_float64(launch(double_global_block, x, poisoned(1000)), 2 * x.double())
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
def test_fix_constexpr_global_and_argument_compile():
    assert offline("constexpr global") == {"value": "compiled"}
    assert offline("argument and @jit helper") == {"value": "compiled"}


def test_fix_constexpr_global_matches_float64():
    x = fresh_randn(1000)
    assert_matches_float64(launch(double_constexpr_global, x, poisoned(1000)), 2 * x.double())


def test_fix_constexpr_argument_matches_float64():
    x = fresh_randn(1000)
    for block in (64, 128, 256):
        y = poisoned(1000)
        double_block_argument[(triton.cdiv(1000, block),)](x, y, 1000, BLOCK=block)
        assert_matches_float64(y, 2 * x.double())
# --8<-- [end:test-fix]


# --8<-- [start:test-env]
def test_env_var_set_after_import_lets_the_plain_global_compile():
    assert offline("plain global, env var set after import") == {"value": "compiled"}
# --8<-- [end:test-env]


# --8<-- [start:test-changed]
@pytest.mark.gpu
def test_gpu_changing_a_constexpr_global_after_the_first_launch_raises():
    with pytest.raises(RuntimeError) as raised:
        scale_twice_changing_factor(fresh_randn(1000))
    assert str(raised.value) == ("Global variable FACTOR has changed since we compiled this kernel, "
                                 "from constexpr[2.0] to constexpr[3.0]")


@pytest.mark.interpreter
def test_interpreter_uses_the_new_value_silently():
    x = fresh_randn(1000)
    first, second = scale_twice_changing_factor(x)
    assert_matches_float64(first, 2 * x.double())
    assert_matches_float64(second, 3 * x.double())
# --8<-- [end:test-changed]


# --8<-- [start:test-disk-cache]
def test_disk_cache_serves_a_stale_plain_global_under_the_env_var():
    assert offline("disk cache, plain global") == {"value": [7, 7]}


def test_disk_cache_notices_a_changed_constexpr_global():
    assert offline("disk cache, constexpr global") == {"value": [7, 8]}
# --8<-- [end:test-disk-cache]


def main():
    print(describe())
    for case in CASES:
        result = offline(case)
        shown = result["value"] if "value" in result else f"{result['error']}: {result['message'].splitlines()[-1][:120]}..."
        print(f"compiled for sm_90, {case}: {shown}")
    x = fresh_randn(1000)
    try:
        launch(double_global_block, x, poisoned(1000))
        print("launch with the plain global: ran")
    except Exception as error:
        print(f"launch with the plain global: {type(error).__name__}")
    try:
        first, second = scale_twice_changing_factor(x)
        print("FACTOR 2.0 then 3.0: y/x =", float((first / x)[0]), float((second / x)[0]))
    except RuntimeError as error:
        print(f"FACTOR 2.0 then 3.0: RuntimeError: {error}")


if __name__ == "__main__":
    main()
