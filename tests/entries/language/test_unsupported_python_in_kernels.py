"""TP047's claims, one test each: snippets/language/unsupported_python_in_kernels.py.

Every kernel is compiled for sm_90 without a GPU in one fresh process (`in_fresh_process`), each
in a new empty kernel cache; the interpreter's side runs here.
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch

from snippets.language import unsupported_python_in_kernels as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

COMPILED = {  # what compiling for sm_90 gives: the last line of the error, or the constant the kernel stores
    "dict": "unsupported AST node type: Dict",
    "try / except": "unsupported AST node type: Try",
    "generator expression": "unsupported AST node type: GeneratorExp",
    "builtin sum()": "NameError('sum is not defined')",
    "lambda": "unsupported AST node type: Lambda",
    "set": "unsupported AST node type: Set",
    "walrus :=": "unsupported AST node type: NamedExpr",
    "break": "unsupported AST node type: Break",
    "item assignment t[0] = ...": "NotImplementedError('__setitem__ is not supported in triton')",
    "comprehension over range()": "NotImplementedError('only tuple comprehensions are supported')",
    "nested comprehension": "ValueError('nested comprehensions are not supported')",
    "comprehension with if": "compiles, stores 10",
    "comprehension over a tuple": "compiles, stores 6",
}

INTERPRETED = {  # what the interpreter's launch stores: Python's answer
    "dict": 2, "try / except": 1, "generator expression": 2, "builtin sum()": 6, "lambda": 2, "set": 2,
    "walrus :=": 6, "break": 6,
    "item assignment t[0] = ...": "InterpreterError: TypeError(\"'tuple' object does not support item assignment\")",
    "comprehension over range()": 4, "nested comprehension": 8, "comprehension with if": 30,
    "comprehension over a tuple": 6,
}


# -- compiled for the H200 without a GPU, in one fresh process

def offline_case(what):
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    if what in entry.CONSTRUCTS:
        return entry.compile_construct(what)
    kernel = {"sum_even_rows": entry.sum_even_rows, "sum_even_rows_fixed": entry.sum_even_rows_fixed}[what]
    ttir = entry.compile_for_h200(kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 8}).asm["ttir"]
    return ttir.count("tt.load")


CASES = [*entry.CONSTRUCTS, "sum_even_rows", "sum_even_rows_fixed"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES)


def offline(case):
    return _offline_results()[case]["value"]


def reproduce_dict():
    return offline("dict")


def reproduce_nested_comprehension():
    return offline("nested comprehension")


def reproduce_comprehension_over_range():
    return offline("comprehension over range()")


def reproduce_item_assignment():
    return offline("item assignment t[0] = ...")


# -- the page's table

def constructs_report():
    """The table on the page: each construct compiled for sm_90, and launched on the interpreter."""
    import triton_faq

    compiled = {name: offline(name) for name in entry.CONSTRUCTS}
    with triton_faq.checked():
        interpreted = {name: entry.run_construct(name) for name in entry.CONSTRUCTS}
    lines = [f"{'construct':28}  {'compiled for sm_90':62}  interpreter", "-" * 110]
    lines += [f"{name:28}  {compiled[name]:62}  {interpreted[name]}" for name in entry.CONSTRUCTS]
    return "\n".join(lines) + "\n"


# -- what the compiler accepts

def test_compiled_constructs_give_these_errors():
    assert {name: offline(name) for name in entry.CONSTRUCTS} == COMPILED


@pytest.mark.interpreter
def test_interpreter_runs_every_construct_but_item_assignment():
    assert {name: entry.run_construct(name) for name in entry.CONSTRUCTS} == INTERPRETED


@pytest.mark.gpu
def test_gpu_launch_gives_the_compile_results():
    for name, compiled in COMPILED.items():
        launched = entry.run_construct(name)
        if compiled.startswith("compiles, stores "):
            assert launched == int(compiled.removeprefix("compiles, stores ")), name
        else:
            assert launched.endswith(compiled), name


def test_the_builtins_a_kernel_can_call():
    from triton.compiler.code_generator import CodeGenerator

    assert sorted(CodeGenerator.builtin_namespace) == [
        "float", "getattr", "hasattr", "int", "isinstance", "len", "list", "max", "min", "print", "range"]


# -- the comprehension whose `if` is dropped

def test_compiled_comprehension_keeps_every_element():
    assert offline("comprehension with if") == "compiles, stores 10"  # the first element of all four, not 30
    assert offline("sum_even_rows") == 4  # four loads: rows 0, 1, 2 and 3


def test_compiler_source_never_reads_the_comprehension_filter():
    import inspect

    from triton.compiler.code_generator import CodeGenerator

    source = inspect.getsource(CodeGenerator.visit_ListComp)
    assert "results.append(self.visit(node.elt))" in source and ".ifs" not in source


@pytest.mark.gpu
def test_gpu_pitfall_sums_all_four_rows():
    x = fresh_randn(4, 8)
    assert_matches_float64(entry.sum_rows(entry.sum_even_rows, x), x.double().sum(dim=0))


@pytest.mark.interpreter
def test_interpreter_pitfall_sums_rows_0_and_2():
    x = fresh_randn(4, 8)
    assert_matches_float64(entry.sum_rows(entry.sum_even_rows, x), x.double()[0] + x.double()[2])


# -- the fix

def test_fix_compiles_to_two_loads():
    assert offline("sum_even_rows_fixed") == 2


def test_fix_matches_float64():
    x = fresh_randn(4, 8)
    assert_matches_float64(entry.sum_rows(entry.sum_even_rows_fixed, x), x.double()[0] + x.double()[2])


def test_fix_example_values():
    x = torch.arange(32.0, device=entry.DEVICE).reshape(4, 8)
    assert entry.sum_rows(entry.sum_even_rows_fixed, x).tolist() == (x[0] + x[2]).tolist()
