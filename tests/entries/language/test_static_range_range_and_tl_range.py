"""TP045's claims, one test each: snippets/language/static_range_range_and_tl_range.py.

The compiles for sm_90 (no GPU needed) run in one fresh process that imports Triton before the
reader's file may set TRITON_INTERPRET=1, each case in a new empty kernel cache.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
import torch

from snippets.language import static_range_range_and_tl_range as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

ROOT = Path(__file__).resolve().parents[3]
RUNTIME_BOUND = "int32[] used as tl.static_range start value is not a constexpr"
REDEFINED = "SCALE is already defined. constexpr cannot be reassigned."


STRIDED = {"x_ptr": "*fp32", "out_ptr": "*fp32", "start": "i32", "stop": "i32", "step": "i32"}
SCALAR = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def offline_case(case):
    """One compile for sm_90 (run in the fresh process)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # a new empty kernel cache for each case
    if case in ("sum_blocks_static_range", "sum_blocks_range", "sum_blocks_tl_range", "sum_blocks_unrolled"):
        return entry.ir_counts(getattr(entry, case))
    if case in ("pitfall, start 88 and stop -1 known", "fix, start 88 and stop -1 known"):
        kernel = entry.strided_sum_pitfall if case.startswith("pitfall") else entry.strided_sum_fixed
        signature = {k: v for k, v in STRIDED.items() if k not in ("start", "stop")}
        ttir = entry.compile_for_h200(kernel, signature, {"start": 88, "stop": -1}).asm["ttir"]
        return {"loops": ttir.count("scf.for"), "loads": ttir.count("tt.load")}
    if case == "pitfall, all runtime":
        ttir = entry.compile_for_h200(entry.strided_sum_pitfall, STRIDED, {}).asm["ttir"]
        return re.findall(r"scf\.for %\w+ = (%\w+) to (%\w+) step (%\w+)", ttir)
    if case == "constexpr step -8":
        signature = {k: v for k, v in STRIDED.items() if k != "step"}
        ttir = entry.compile_for_h200(entry.strided_sum_pitfall, signature, {"step": -8}).asm["ttir"]
        return re.findall(r"scf\.for %\w+ = (%\w+) to (%\w+) step (%\w+)", ttir)
    if case == "static_range, runtime bound":
        entry.compile_for_h200(entry.sum_first_static_range_runtime, SCALAR, {})
    if case == "constexpr defined in static_range":
        entry.compile_for_h200(entry.sum_scaled_constexpr_in_static_range, SCALAR, {})
    return "compiled"


CASES = ["sum_blocks_static_range", "sum_blocks_range", "sum_blocks_tl_range", "sum_blocks_unrolled",
         "pitfall, start 88 and stop -1 known", "fix, start 88 and stop -1 known", "pitfall, all runtime",
         "constexpr step -8", "static_range, runtime bound", "constexpr defined in static_range"]


def _offline_results():
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES, compile_ready=True)


def offline(case):
    return _offline_results()[case]


def reference_strided_sum(x, start, stop, step):
    return x.double().cpu()[list(range(start, stop, step))].sum().reshape(1)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_static_range_runtime_bound():
    result = offline("static_range, runtime bound")
    return f"{result.get('error')}: {result.get('message')}"


def reproduce_constexpr_redefined_in_static_range():
    result = offline("constexpr defined in static_range")
    return f"{result.get('error')}: {result.get('message')}"


# -- the pitfall: a runtime negative step

@pytest.mark.interpreter
def test_interpreter_runs_a_runtime_negative_step_downward():
    x = fresh_randn(96).abs() + 0.5  # positive: a float32 sum of a dozen terms cannot cancel to near zero
    assert_matches_float64(entry.strided_sum(entry.strided_sum_pitfall, x, 88, -1, -8),
                           reference_strided_sum(x, 88, -1, -8))


@pytest.mark.gpu
def test_gpu_runtime_negative_step_runs_zero_times():
    x = fresh_randn(96)
    assert entry.strided_sum(entry.strided_sum_pitfall, x, 88, -1, -8).tolist() == [0.0]


def test_compiled_loop_uses_the_runtime_step_as_it_is():
    assert offline("pitfall, all runtime") == {"value": [["%start", "%stop", "%step"]]}


def test_compiler_deletes_the_loop_when_it_knows_the_bounds():
    assert offline("pitfall, start 88 and stop -1 known") == {"value": {"loops": 0, "loads": 0}}


def test_constexpr_negative_step_is_turned_into_a_positive_one():
    """Bounds swapped, step negated: the frontend rewrites a negative step it can see."""
    assert offline("constexpr step -8") == {"value": [["%stop", "%start", "%c8_i32"]]}


# -- the fix: count up, compute the index

def test_fix_keeps_its_loop_when_the_bounds_are_known():
    assert offline("fix, start 88 and stop -1 known") == {"value": {"loops": 1, "loads": 1}}


def test_fix_matches_float64_for_either_sign_of_step():
    x = fresh_randn(96).abs() + 0.5  # positive: a float32 sum of a dozen terms cannot cancel to near zero
    for start, stop, step in [(88, -1, -8), (95, 0, -1), (5, 10, -3), (3, 40, 5), (10, 5, 2), (0, 96, 7)]:
        out = entry.strided_sum(entry.strided_sum_fixed, x, start, stop, step)  # NaN until written
        assert_matches_float64(out, reference_strided_sum(x, start, stop, step))


# -- what each loop becomes, compiled for sm_90

def test_static_range_leaves_no_loop_in_the_ttir():
    assert offline("sum_blocks_static_range") == {"value": {"loops": 0, "loads": 4, "attributes": [], "async copies": 0}}


def test_range_is_one_loop_and_its_load_is_not_pipelined():
    assert offline("sum_blocks_range") == {"value": {"loops": 1, "loads": 1, "attributes": [], "async copies": 0}}


def test_tl_range_num_stages_pipelines_the_load():
    assert offline("sum_blocks_tl_range") == {
        "value": {"loops": 1, "loads": 1, "attributes": ["tt.num_stages = 4"], "async copies": 4}}


def test_tl_range_loop_unroll_factor_unrolls_in_the_ttir():
    assert offline("sum_blocks_unrolled") == {
        "value": {"loops": 2, "loads": 3, "attributes": ["tt.num_stages = 1"], "async copies": 0}}


def test_every_loop_kind_gives_the_same_sums():
    x = fresh_randn(96)
    reference = x.double().reshape(6, 16).sum(dim=0)
    for kernel in (entry.sum_blocks_static_range, entry.sum_blocks_range, entry.sum_blocks_tl_range,
                   entry.sum_blocks_unrolled):
        assert_matches_float64(entry.sum_blocks(kernel, x), reference)


# -- static_range's own errors

def test_static_range_with_a_runtime_bound_is_a_compile_error():
    result = offline("static_range, runtime bound")
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == f"AssertionError('{RUNTIME_BOUND}')"


def test_constexpr_defined_inside_static_range_is_a_compile_error():
    result = offline("constexpr defined in static_range")
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == f"ValueError('{REDEFINED}')"


@pytest.mark.interpreter
def test_interpreter_runs_both_static_range_errors_silently():
    x = fresh_randn(8).abs() + 0.5  # positive: a float32 sum of a few terms cannot cancel to near zero
    for kernel, reference in ((entry.sum_first_static_range_runtime, x.double()[:4].sum()),
                              (entry.sum_scaled_constexpr_in_static_range, 2 * x.double()[:3].sum())):
        out = torch.full((1,), float("nan"), device=DEVICE)
        kernel[(1,)](x, out, 4)
        assert_matches_float64(out, reference.reshape(1))
