"""TP076's claims, one test each: snippets/compilation/global_list_or_numpy_array.py.

Compiling for sm_90 without a GPU happens in a fresh process (`in_fresh_process_by_case`).
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch

from snippets.compilation import global_list_or_numpy_array as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case


def offline_case(name):
    """Compile one of the entry's kernels for sm_90 (no GPU); "compiled" or the innermost error."""
    import triton
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    kernel = getattr(entry, name)
    signature = {"x_ptr": "*fp32", **({"w_ptr": "*fp32"} if name == "weigh" else {}), "out_ptr": "*fp32", "n": "i32",
                 "BLOCK": "constexpr"}
    if triton.__version__.startswith("3.2."):  # 3.2 takes constants by name, outside the signature
        signature.pop("BLOCK")
    source = triton.compiler.ASTSource(JITFunction(kernel.fn), signature, {"BLOCK": 128})
    try:
        triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    except triton.compiler.errors.CompilationError as error:
        while error.__cause__ is not None:
            error = error.__cause__
        return f"{type(error).__name__}: {str(error).strip().splitlines()[-1]}"
    return "compiled"


NAMES = ["weigh_list", "weigh_numpy", "weigh", "weigh_const"]


def offline(name):
    return in_fresh_process_by_case(Path(__file__), "offline_case", NAMES, compile_ready=True)[name]["value"]


def reproduce_list_compiled():
    return offline("weigh_list")


def reproduce_numpy_index_interpreter():
    entry.run(entry.weigh_numpy, fresh_randn(16))


def expected(x):
    w = torch.tensor(entry.WEIGHTS, dtype=torch.float64)
    return x.double() * w[torch.arange(x.numel()) % 4].to(x.device)


@pytest.mark.parametrize("name,table", [("weigh_list", "WEIGHTS"), ("weigh_numpy", "WEIGHTS_NP")])
def test_pitfall_compiled_refuses_a_global_list_or_array(name, table):
    assert f"Cannot access global variable {table} from within @jit'ed function" in offline(name)


@pytest.mark.interpreter
def test_pitfall_interpreter_reads_the_list_silently():
    x = fresh_randn(100)
    assert_matches_float64(entry.run(entry.weigh_list, x), x.double() * entry.WEIGHTS[1])


@pytest.mark.interpreter
def test_pitfall_interpreter_cannot_index_numpy_with_a_block():
    with pytest.raises(Exception, match=r"IndexError\('only integers, slices"):
        reproduce_numpy_index_interpreter()


def test_fix_and_constexpr_tuple_compile_for_sm_90():
    assert offline("weigh") == "compiled"
    assert offline("weigh_const") == "compiled"


@pytest.mark.parametrize("n", [1, 7, 128, 1000])
def test_fix_matches_float64(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.run(entry.weigh, x, entry.W), expected(x))


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_constexpr_tuple_matches_float64(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.run(entry.weigh_const, x), expected(x))


@pytest.mark.interpreter
def test_interpreter_3_2_fails_every_kernel_of_a_module_with_a_global_array():
    """Triton 3.2's interpreter compares each global of the kernel's module with `tl` using `in`,
    which a NumPy array of several elements refuses: even the fix, in this file, cannot run there."""
    import triton

    x = fresh_randn(16)
    if triton.__version__.startswith("3.2."):
        with pytest.raises(ValueError, match="The truth value of an array with more than one element is ambiguous"):
            entry.run(entry.weigh, x, entry.W)
    else:
        assert_matches_float64(entry.run(entry.weigh, x, entry.W), expected(x))
