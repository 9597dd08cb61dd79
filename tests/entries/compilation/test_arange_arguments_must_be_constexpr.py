"""TP077's claims, one test each: snippets/compilation/arange_arguments_must_be_constexpr.py."""

import os
import tempfile
from pathlib import Path

import pytest
import triton

from snippets.compilation import arange_arguments_must_be_constexpr as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

MESSAGE = "arange's arguments must be of type tl.constexpr"


def reproduce_unannotated_block():
    entry.double_rows(entry.double_pitfall, fresh_randn(3, 100), BLOCK=128)


def reproduce_runtime_length():
    entry.double_rows(entry.double_runtime_length, fresh_randn(3, 128))


def test_pitfall_unannotated_block_size_is_refused():
    with pytest.raises(Exception) as caught:
        reproduce_unannotated_block()
    assert MESSAGE in str(caught.value) or MESSAGE in repr(caught.value.__cause__)


def test_pitfall_a_run_time_length_is_refused_even_when_it_is_a_power_of_2():
    with pytest.raises(Exception) as caught:
        reproduce_runtime_length()
    assert MESSAGE in str(caught.value) or MESSAGE in repr(caught.value.__cause__)


@pytest.mark.parametrize("n_cols", [1, 37, 100, 128, 1000])
def test_fix_matches_float64(n_cols):
    x = fresh_randn(5, n_cols)
    got = entry.double_rows(entry.double_fixed, x, BLOCK=triton.next_power_of_2(n_cols))
    assert_matches_float64(got, 2 * x.double())


def offline_case(name):
    """Compile a kernel with a block size set inside it for sm_90 (no GPU); "compiled" or the cause."""
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    source = triton.compiler.ASTSource(JITFunction(getattr(entry, name).fn),
                                       {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32"}, {})
    try:
        triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    except triton.compiler.errors.CompilationError as error:
        return repr(error.__cause__)
    return "compiled"


def offline(name):
    return in_fresh_process_by_case(Path(__file__), "offline_case", ["double_local_block", "double_local_fixed"],
                                    compile_ready=True)[name]["value"]


def test_pitfall_compiled_refuses_an_int_assigned_in_the_kernel():
    assert offline("double_local_block") == f'ValueError("{MESSAGE}")'


def test_fix_an_annotated_local_compiles_and_matches_float64():
    assert offline("double_local_fixed") == "compiled"
    x = fresh_randn(4, 100)
    assert_matches_float64(entry.double_rows(entry.double_local_fixed, x), 2 * x.double())
