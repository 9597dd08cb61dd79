"""TP046's claims, one test each: snippets/language/builtin_min_max_abs.py.

The compiles for sm_90 (no GPU needed) run in one fresh process that imports Triton before the
reader's file may set TRITON_INTERPRET=1, each case in a new empty kernel cache.
"""

import inspect
import os
import re
import tempfile
import warnings
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import builtin_min_max_abs as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case, poisoned

ROOT = Path(__file__).resolve().parents[3]
DEPRECATION = "builtin max on non-scalar tensor values is deprecated, use tl.maximum instead"



def offline_case(case):
    """Compile one kernel for sm_90 (run in the fresh process): its max ops and the warnings shown."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # a new empty kernel cache for each case
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        compiled = entry.compile_for_h200(getattr(entry, case))
    return {"ttir": sorted(set(re.findall(r"arith\.(?:maxnumf|maximumf)", compiled.asm["ttir"]))),
            "ptx": sorted(set(re.findall(r"\bmax(?:\.NaN)?\.f32", compiled.asm["ptx"]))),
            "warnings": [str(w.message) for w in shown]}


CASES = ["relu_pitfall", "relu_nan_dropped", "relu_fixed", "abs_pitfall"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES, compile_ready=True)


def offline(case):
    return _offline_results()[case]


@triton.jit
def python_max_min(x_ptr, y_ptr, max_ptr, min_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    tl.store(max_ptr + offs, max(x, y))
    tl.store(min_ptr + offs, min(x, y))


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_abs_compiled():
    result = offline("abs_pitfall")
    return f"{result.get('error')}: {result.get('message')}"


def reproduce_abs_interpreted():
    entry.launch(entry.abs_pitfall, fresh_randn(100))


# -- the pitfall: Python's max on a block

@pytest.mark.interpreter
def test_interpreter_python_max_of_blocks_returns_the_second_argument():
    x = fresh_randn(200)
    assert torch.equal(entry.launch(entry.relu_pitfall, x), torch.zeros(200))  # 0.0 everywhere
    x, y = fresh_randn(16), fresh_randn(16)
    out_max, out_min = poisoned(16), poisoned(16)
    python_max_min[(1,)](x, y, out_max, out_min, BLOCK=16)
    assert torch.equal(out_max, y) and torch.equal(out_min, y)  # y whole, for max and for min


@pytest.mark.gpu
def test_gpu_python_max_of_blocks_is_elementwise():
    x = fresh_randn(200)
    assert_matches_float64(entry.launch(entry.relu_pitfall, x), x.double().clamp_min(0.0))


def test_compiled_python_max_is_tl_maximum_and_shows_no_warning():
    assert offline("relu_pitfall") == {"value": {"ttir": ["arith.maxnumf"], "ptx": ["max.f32"], "warnings": []}}


def test_triton_3_6_silences_its_own_deprecation_warning():
    """The warning is in tl.core.builtin_max, but the code generator ignores DeprecationWarning."""
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's source; installed: {triton.__version__}")
    from triton.compiler import code_generator

    assert f'warn("{DEPRECATION}", DeprecationWarning)' in inspect.getsource(tl.core.builtin_max)
    visit = inspect.getsource(code_generator.CodeGenerator.visit)
    assert 'warnings.simplefilter("ignore", DeprecationWarning)' in visit


# -- abs

def test_compiled_python_abs_is_a_name_error():
    result = offline("abs_pitfall")
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == "NameError('abs is not defined')"


@pytest.mark.interpreter
def test_interpreter_python_abs_is_a_type_error():
    from triton.runtime.errors import InterpreterError

    with pytest.raises(InterpreterError) as raised:
        entry.launch(entry.abs_pitfall, fresh_randn(100))
    assert str(raised.value) == "TypeError(\"bad operand type for abs(): 'tensor'\")"


def test_fix_tl_abs_matches_float64():
    x = fresh_randn(200)
    assert_matches_float64(entry.launch(entry.abs_fixed, x), x.double().abs())


# -- the fix, and NaN

def with_nans(n):
    x = fresh_randn(n)
    x[::7] = float("nan")
    return x


def launch_over_sentinel(kernel, x, block=64):
    """entry.launch with the output filled with -7.0, which no ReLU returns: a NaN in it was written."""
    out = torch.full_like(x, -7.0)
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out


def test_fix_matches_torch_relu_in_float64_nan_included():
    x = with_nans(200)
    assert_matches_float64(launch_over_sentinel(entry.relu_fixed, x), torch.relu(x.double()))


def test_fix_compiles_to_the_nan_propagating_max():
    assert offline("relu_fixed") == {"value": {"ttir": ["arith.maximumf"], "ptx": ["max.NaN.f32"], "warnings": []}}
    assert offline("relu_nan_dropped")["value"]["ptx"] == ["max.f32"]


@pytest.mark.interpreter
def test_interpreter_tl_maximum_keeps_nan_even_with_the_default():
    x = with_nans(200)
    assert_matches_float64(launch_over_sentinel(entry.relu_nan_dropped, x), torch.relu(x.double()))


@pytest.mark.gpu
def test_gpu_tl_maximum_default_turns_nan_into_the_other_operand():
    x = with_nans(200)
    out = launch_over_sentinel(entry.relu_nan_dropped, x)
    assert_matches_float64(out, torch.relu(x.double()).nan_to_num(nan=0.0))
