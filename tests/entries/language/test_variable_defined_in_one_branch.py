"""TP041's claims, one test each: snippets/language/variable_defined_in_one_branch.py.

The compiles without a GPU run in one fresh process (`in_fresh_process`), in a new empty cache.
What the H200 stores for the loop variable is recorded by evidence/language/variable_defined_in_one_branch.py.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
from triton.compiler.errors import CompilationError

from snippets.language import variable_defined_in_one_branch as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case


def offline_case(case):
    """One compile experiment for sm_90 (run by `offline`, in a fresh process)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    if case in ("column_mean_pitfall", "shift_pitfall"):
        try:
            entry.compile_for_h200(getattr(entry, case))
        except CompilationError as error:
            return {"line": str(error).splitlines()[0], "last": str(error).splitlines()[-1]}
        return "compiled"
    if case == "stored":
        return {kernel: entry.stored_last_row(getattr(entry, kernel)) for kernel in
                ("column_mean_last_row_pitfall", "column_mean_last_row_prebound", "column_mean_last_row_fixed")}
    if case == "llvm":
        llir = entry.compile_for_h200(entry.column_mean_last_row_pitfall).asm["llir"]
        return [line.split('"(')[1].split(",")[0] for line in llir.splitlines() if "st.global.b32" in line]
    if case == "fixes":
        return [type(entry.compile_for_h200(getattr(entry, name))).__name__ for name in ("column_mean_fixed", "shift_fixed")]
    raise ValueError(case)


CASES = ["column_mean_pitfall", "shift_pitfall", "stored", "llvm", "fixes"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES)


def offline(case):
    return _offline_results()[case]["value"]


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_loop_only():
    return offline("column_mean_pitfall")["last"]


def unbound(name):
    return f"UnboundLocalError(\"cannot access local variable '{name}' where it is not associated with a value\")"


# -- a variable assigned only inside a loop or one branch

def test_pitfall_a_variable_assigned_only_in_a_loop_is_a_name_error():
    assert offline("column_mean_pitfall") == {"line": "at 7:27:", "last": "NameError('mean is not defined')"}


def test_pitfall_a_variable_assigned_in_one_branch_is_a_name_error():
    assert offline("shift_pitfall") == {"line": "at 7:27:", "last": "NameError('y is not defined')"}


@pytest.mark.gpu
def test_gpu_both_fail_at_the_first_launch():
    with pytest.raises(CompilationError, match=re.escape("NameError('mean is not defined')")):
        entry.column_mean(entry.column_mean_pitfall, fresh_randn(3, 16))
    with pytest.raises(CompilationError, match=re.escape("NameError('y is not defined')")):
        entry.shift(entry.shift_pitfall, fresh_randn(300), 1.5)


@pytest.mark.interpreter
def test_interpreter_runs_them_when_the_path_is_taken():
    x = fresh_randn(5, 16)
    assert_matches_float64(entry.column_mean(entry.column_mean_pitfall, x), x.double().mean(dim=0))
    x = fresh_randn(300)
    assert_matches_float64(entry.shift(entry.shift_pitfall, x, 1.5), x.double() + 1.5)


@pytest.mark.interpreter
def test_interpreter_raises_unbound_local_error_when_it_is_not():
    with pytest.raises(Exception) as raised:
        entry.shift(entry.shift_pitfall, fresh_randn(300), 0.0)
    assert (type(raised.value).__name__, str(raised.value)) == ("InterpreterError", unbound("y"))
    with pytest.raises(Exception) as raised:
        entry.column_mean(entry.column_mean_pitfall, torch.zeros(0, 16))
    assert (type(raised.value).__name__, str(raised.value)) == ("InterpreterError", unbound("mean"))


# -- the loop variable read after a dynamic loop

def test_compiled_loop_variable_after_the_loop_is_poison():
    assert offline("stored") == {"column_mean_last_row_pitfall": "ub.poison",
                                 "column_mean_last_row_prebound": "ub.poison",
                                 "column_mean_last_row_fixed": "scf.for"}


def test_compiled_llvm_ir_stores_poison():
    assert offline("llvm")[-1] == "i32 poison"  # the last store: the last row's (the one before it stores the means)


@pytest.mark.interpreter
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # the means of 0 rows
def test_interpreter_loop_variable_is_the_last_index():
    for n_rows in (1, 5):
        assert entry.column_mean_and_last_row(entry.column_mean_last_row_pitfall, fresh_randn(n_rows, 16))[1] == n_rows - 1
        assert entry.column_mean_and_last_row(entry.column_mean_last_row_prebound, fresh_randn(n_rows, 16))[1] == n_rows - 1
    assert entry.column_mean_and_last_row(entry.column_mean_last_row_prebound, torch.zeros(0, 16))[1] == -1


# -- the fixes

def test_fixes_compile():
    assert offline("fixes") == ["CompiledKernel", "CompiledKernel"]


@pytest.mark.parametrize("n_rows", [1, 3, 17])
def test_fix_column_mean_matches_float64(n_rows):
    x = fresh_randn(n_rows, 16)
    assert_matches_float64(entry.column_mean(entry.column_mean_fixed, x), x.double().mean(dim=0))


@pytest.mark.parametrize("amount", [0.0, 1.5])
def test_fix_shift_matches_float64(amount):
    x = fresh_randn(300)
    assert_matches_float64(entry.shift(entry.shift_fixed, x, amount), x.double() + amount)


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # the means of 0 rows
def test_fix_carried_last_row_is_right_on_every_backend():
    for n_rows in (1, 5, 40):
        x = fresh_randn(n_rows, 16)
        y, last = entry.column_mean_and_last_row(entry.column_mean_last_row_fixed, x)
        assert last == n_rows - 1
        assert_matches_float64(y, x.double().mean(dim=0))
    assert entry.column_mean_and_last_row(entry.column_mean_last_row_fixed, torch.zeros(0, 16, device=x.device))[1] == -1
