"""TP063's claims, one test each: snippets/debugging/when_it_is_a_triton_bug.py.

Both bugs depend on what ran earlier in the process, so every reproducer runs in a fresh process
(`in_fresh_process`), the steps in the order that fails. Bug 2 needs a process that interprets
kernels: on a GPU machine the fresh process gets TRITON_INTERPRET=1 too. The version matrix runs
these tests against each Triton release; where a test asserts a text exactly, it does so on 3.6.0.
"""

import contextlib
import functools
import inspect
import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.debugging import when_it_is_a_triton_bug as entry
from triton_faq.testing import in_fresh_process, poisoned

HERE = Path(__file__)
NEWER_FIRST = "Feature 'cvt with .e4m3x2/.e5m2x2' requires .target sm_89 or higher"
IR_VALUE = "'triton._C.libtriton.ir.value' object has no attribute 'dtype'"
INTERNALS = re.compile(r"'triton\._C\.libtriton\.ir\.\w+' object has no attribute '\w+'")
LEAKED = re.compile(r"'(triton\._C\.libtriton\.ir\.)?(value|block_argument)' object has no attribute '\w+'")  # 3.9 drops the module
BUG_2_ON_3_6 = ("CompilationError: at 2:11:\n"
                "def to_float32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                "           ^\n"
                f'AttributeError("{IR_VALUE}")')


@contextlib.contextmanager
def interpreting():
    """TRITON_INTERPRET=1 for the fresh processes started meanwhile (already so on the CPU suite)."""
    saved = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TRITON_INTERPRET")
        else:
            os.environ["TRITON_INTERPRET"] = saved


@functools.cache
def fresh(function, *args, interpret=False):
    """`function(*args)` of this file, alone in a fresh process; its value (or the error, as a dict)."""
    with interpreting() if interpret else contextlib.nullcontext():
        [result] = in_fresh_process(HERE, function, [args])
    return result.get("value", result)


# -- what the fresh processes run (functions of this file, so that the reader's file stays small)

def call(name, *args):
    return getattr(entry, name)(*args)


def sm80_ptx_after_sm90():
    """The error of the sm_80 e5m2 compile that follows an sm_90 fp8 compile, and the PTX it handed to ptxas."""
    entry.compile_kernel(90, "fp8e4nv")
    dump = tempfile.mkdtemp()
    os.environ.update(TRITON_KERNEL_DUMP="1", TRITON_DUMP_DIR=dump)  # every stage that finished, as a file
    try:
        entry.compile_kernel(80, "fp8e5")
        error = "compiled"
    except Exception as raised:
        error = f"{type(raised).__name__}: {str(raised).splitlines()[0]}"
    ptx = [Path(folder, name).read_text() for folder, _, names in os.walk(dump) for name in names if name.endswith(".ptx")]
    return {"error": error, "target": re.findall(r"^\.target \w+", "".join(ptx), re.MULTILINE),
            "e5m2 cvt": sorted(set(re.findall(r"cvt\.rn\.f16x2\.e5m2x2", "".join(ptx))))}


@triton.jit
def store_one(y_ptr):  # another kernel, another variant of the message
    tl.store(y_ptr + tl.program_id(0), 1.0)


def leak_then_compile_store_one():
    """row_sum on the interpreter, then a compile of store_one for sm_90: the error's last line."""
    entry.row_sum[(1,)](torch.arange(64, dtype=torch.float32), torch.full((1,), float("nan")), BLOCK=64)
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    source = triton.compiler.ASTSource(triton.runtime.jit.JITFunction(store_one.fn), {"y_ptr": "*fp32"}, {})
    try:
        triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    except Exception as error:
        return str(error).splitlines()[-1]
    return "compiled"


@triton.jit
def row_max(x_ptr, out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr, tl.max(tl.load(x_ptr + tl.arange(0, BLOCK)), axis=0))


@triton.jit
def twice(x):  # a helper of your own, in the kernel's file
    return x * 2


@triton.jit
def calls_a_helper(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, twice(tl.load(x_ptr + offs)))


def names_changed_by(launch):
    """The names of triton.language and triton.language.core that a launch on the interpreter left changed,
    and whether to_float32 compiles for sm_90 afterwards."""
    modules = {"tl": tl, "tl.core": tl.core}
    before = {prefix: dict(vars(module)) for prefix, module in modules.items()}
    x, out = torch.arange(64, dtype=torch.float32), torch.full((64,), float("nan"))
    if launch == "to_float32":
        entry.to_float32[(1,)](x, out, 64, BLOCK=64)
    else:
        {"tl.sum": entry.row_sum, "tl.max": row_max, "helper": calls_a_helper}[launch][(1,)](x, out, BLOCK=64)
    changed = sorted(f"{prefix}.{name}" for prefix, module in modules.items()
                     for name, value in vars(module).items() if before[prefix].get(name) is not value)
    return {"changed": changed, "compile": entry.compile_for(90).splitlines()[-1]}


@triton.jit
def cast_kernel(X_PTR, BLOCK_SIZE: tl.constexpr):  # issue 5491's kernel, as posted
    idx = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X_PTR + idx)
    x_bf16 = x.to(tl.bfloat16)
    x_fp8 = x_bf16.to(tl.float8e4nv)
    tl.store(X_PTR + idx, x_fp8)


@triton.jit
def scaled_fp8_quant_kernel(out_ptr, input_ptr, scale_ptr, num_elems, BLOCK_SIZE: tl.constexpr):  # issue 3899's
    pid = tl.program_id(0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < num_elems
    input_vals = tl.load(input_ptr + offsets, mask=mask)
    scale_val = tl.load(scale_ptr)
    output_vals = input_vals / scale_val
    output_vals_fp8 = output_vals.to(tl.float8e4nv)
    tl.store(out_ptr + offsets, output_vals_fp8, mask=mask)


def compile_issue_kernel(issue):
    """Compile an issue's kernel for sm_89 (no GPU needed): "compiled" and its PTX facts, or the ptxas error."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    kernel, signature, constexprs = {
        5491: (cast_kernel, {"X_PTR": "*fp8e4nv", "BLOCK_SIZE": "constexpr"}, {"BLOCK_SIZE": 128}),
        3899: (scaled_fp8_quant_kernel, {"out_ptr": "*fp8e4nv", "input_ptr": "*fp32", "scale_ptr": "*fp32",
                                         "num_elems": "i32", "BLOCK_SIZE": "constexpr"}, {"BLOCK_SIZE": 1024}),
    }[issue]
    source = triton.compiler.ASTSource(triton.runtime.jit.JITFunction(kernel.fn), signature, constexprs)
    try:
        compiled = triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 89, 32))
    except Exception as error:
        return next((line.split("error   : ")[-1] for line in str(error).splitlines() if "error   : " in line),
                    str(error).splitlines()[-1])
    ptx = compiled.asm["ptx"]
    return {"ptx version": re.search(r"^\.version (\d+)\.(\d+)", ptx, re.MULTILINE).groups(),
            "e4m3 cvt": sorted(set(re.findall(r"cvt\.rn\.satfinite\.e4m3x2\.\w+", ptx)))}


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_ir_value_has_no_dtype():
    """The compile error after an interpreted kernel that calls tl.sum, in one fresh process."""
    return fresh("call", "interpreter_then_compile", interpret=True)[2]


# -- bug 1: a newer target first breaks the sm_80 e5m2 compile (TP036)

def test_pitfall_a_newer_target_first_breaks_the_sm80_e5m2_compile():
    assert fresh("call", "newer_target_first") == ["compiled", NEWER_FIRST]


def test_the_sm80_ptx_holds_the_sm89_instruction_the_sm90_compile_chose():
    found = fresh("sm80_ptx_after_sm90")
    assert found["target"] == [".target sm_80"] and found["e5m2 cvt"] == ["cvt.rn.f16x2.e5m2x2"]
    assert found["error"].endswith("Internal Triton PTX codegen error")  # ptxas refused it
    if triton.__version__ == "3.6.0":
        assert found["error"] == "PTXASError: PTXAS error: Internal Triton PTX codegen error"


def test_fix_the_sm80_compile_alone_compiles():
    assert fresh("call", "compile_for", 80, "fp8e5") == "compiled"


# -- bug 2: patches the interpreter leaves behind break a later compile

def test_pitfall_a_nested_jit_call_on_the_interpreter_breaks_a_later_compile():
    before, total, after = fresh("call", "interpreter_then_compile", interpret=True)
    assert before == "compiled" and total == 2016.0  # the compile worked, and the interpreted sum is right
    assert after.startswith("CompilationError: at ")
    if triton.__version__ == "3.6.0":
        assert after == BUG_2_ON_3_6


def test_the_message_names_triton_internals_and_points_at_your_kernel():
    after = fresh("call", "interpreter_then_compile", interpret=True)[2]
    assert INTERNALS.search(after.splitlines()[-1])  # a class of Triton's C++ IR, not a name of your code
    assert after.splitlines()[1] == "def to_float32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):"


def test_another_kernel_gives_the_block_argument_variant():
    last = fresh("leak_then_compile_store_one", interpret=True)
    assert LEAKED.search(last)
    if triton.__version__ == "3.6.0":
        assert last == 'AttributeError("\'triton._C.libtriton.ir.block_argument\' object has no attribute \'get_element_ty\'")'


def test_a_launch_that_calls_tl_sum_or_tl_max_leaves_triton_language_core_patched():
    for launch in ("tl.sum", "tl.max"):
        found = fresh("names_changed_by", launch, interpret=True)
        assert {f"tl.core.{name}" for name in ("program_id", "arange", "load", "store", "add", "mul")} \
            <= set(found["changed"])
        assert LEAKED.search(found["compile"])


def test_a_launch_without_nested_calls_leaves_nothing_behind():
    assert fresh("names_changed_by", "to_float32", interpret=True) == {"changed": [], "compile": "compiled"}


def test_a_helper_in_the_kernels_own_file_leaves_nothing_behind():
    assert fresh("names_changed_by", "helper", interpret=True) == {"changed": [], "compile": "compiled"}


def test_a_nested_call_patches_triton_language_and_keeps_no_way_to_undo_it():
    """The source: the grid launch keeps what _patch_lang returns and restores it; a nested call drops it."""
    from triton.runtime.interpreter import GridExecutor, InterpretedFunction

    nested = inspect.getsource(InterpretedFunction.__call__)
    assert re.search(r"^\s+_patch_lang\(self\.fn\)$", nested, re.MULTILINE) and "restore" not in nested
    launch = inspect.getsource(GridExecutor.__call__)
    assert "patch_scope = _patch_lang(self.fn)" in launch and "patch_scope.restore()" in launch


def test_fix_the_same_compile_in_a_fresh_process_compiles():
    assert fresh("call", "compile_for", 90) == "compiled"


def test_the_readers_new_process_compiles_where_nothing_ran():
    assert entry.compile_fresh(80, "fp8e5") == "compiled"


# -- the report

def test_the_environment_names_the_versions_and_the_gpu():
    found = entry.environment()
    assert sorted(found) == ["cuda", "gpu", "python", "torch", "triton"]
    assert found["triton"] == triton.__version__ and found["torch"] == torch.__version__
    assert found["gpu"].endswith(")") if torch.cuda.is_available() else found["gpu"] == "none: compiled for a GPUTarget"


# -- what others say

def test_issue_5491_fp8_to_bf16_cast_compiles_for_sm89():
    compiled = fresh("compile_issue_kernel", 5491)
    assert isinstance(compiled, dict), compiled  # else the ptxas error
    assert compiled["e4m3 cvt"]


def test_issue_3899_fp8_cast_for_sm89_declares_ptx_8_1_or_later():
    compiled = fresh("compile_issue_kernel", 3899)
    assert isinstance(compiled, dict), compiled
    assert tuple(map(int, compiled["ptx version"])) >= (8, 1)
    assert compiled["e4m3 cvt"]


@triton.jit
def shape_of_a_python_float(out):  # issue 5965's first kernel, as posted
    value = 0.0
    value_tensor = tl.full(value.shape, 0, value.dtype)
    tl.store(out, value_tensor)


@triton.jit
def to_of_a_python_int(out):  # issue 5965's second kernel
    t0 = 0
    t1 = 1
    result = t0 + t1
    tl.store(out, result.to(tl.float32))


@pytest.mark.interpreter
def test_issue_5965_scalars_get_shape_dtype_and_to_on_the_interpreter():
    for kernel, expected in ((shape_of_a_python_float, 0.0), (to_of_a_python_int, 1.0)):
        out = poisoned(1)
        kernel[(1,)](out)
        assert out.item() == expected
