"""TP082's claims, one test each: snippets/compilation/to_on_an_argument_equal_to_1.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache, through the file's `compile_for_h200` (an int argument equal to 1 is a constant, as the
launcher makes it); the launches run on the backend of the session.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.compilation import to_on_an_argument_equal_to_1 as entry
from triton_faq.testing import assert_matches_float64, compile_offline, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"


def no_attribute(name):
    """The last line of the CompilationError for `<argument equal to 1>.<name>`, by release."""
    holder = "constexpr" if RELEASE < (3, 4) else "int"
    return f"AttributeError(\"'{holder}' object has no attribute '{name}'\")"


@triton.jit
def bits_of_a_stride(out_ptr, stride, BLOCK: tl.constexpr):
    """Another tensor attribute on an int argument: its dtype."""
    tl.store(out_ptr + tl.arange(0, BLOCK), stride.dtype.primitive_bitwidth + tl.zeros((BLOCK,), tl.int32))


@triton.jit
def bits_of_a_cast_stride(out_ptr, stride, BLOCK: tl.constexpr):
    """The dtype of tl.cast(stride, ...): a tensor whatever the stride."""
    bits = tl.cast(stride, tl.int32).dtype.primitive_bitwidth
    tl.store(out_ptr + tl.arange(0, BLOCK), bits + tl.zeros((BLOCK,), tl.int32))


@triton.jit
def widen_a_constexpr(out_ptr, BLOCK: tl.constexpr):
    """.to on a tl.constexpr parameter: the same constant, whatever its value."""
    tl.store(out_ptr + tl.arange(0, BLOCK), BLOCK.to(tl.int32) + tl.zeros((BLOCK,), tl.int32))


@triton.jit
def cast_a_constexpr(out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.cast(BLOCK, tl.int32) + tl.zeros((BLOCK,), tl.int32))


LOAD_OFFSETS = re.compile(r"tt\.addptr %\w+, %\w+ : tensor<128x!tt\.ptr<f32>>, tensor<128x(i\d+)>")


def offline_case(kernel, stride_row, stride_col, do_not_specialize=()):
    """Compile one kernel for sm_90 without a GPU: the integer widths of its pointer offsets, or the
    last line of the CompilationError (run by `offline`, in a fresh process). The entry's kernels go
    through the reader's `compile_for_h200`; this file's own through `compile_offline`, an argument
    `stride` equal to 1 typed as the launcher types it, a constant."""
    if kernel in globals():
        one = kernel.startswith("bits_of") and stride_row == 1
        constants = {"BLOCK": 8} | ({"stride": 1} if one else {})
        signature = {"out_ptr": "*i32", "stride": "constexpr" if one else "i32", "BLOCK": "constexpr"}  # in order
        if not kernel.startswith("bits_of"):
            del signature["stride"]
        done = compile_offline(globals()[kernel], signature, constants)
        compiled, error = done.compiled, done.error
    else:
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
        try:
            compiled, error = entry.compile_for_h200(getattr(entry, kernel), stride_row, stride_col,
                                                     tuple(do_not_specialize)), None
        except triton.compiler.errors.CompilationError as raised:
            compiled, error = None, raised
    if error is not None:
        if not isinstance(error, triton.compiler.errors.CompilationError):
            raise error
        return {"last": str(error).strip().splitlines()[-1]}
    return {"offsets": sorted(set(LOAD_OFFSETS.findall(compiled.asm["ttir"])))}


CASES = [(kernel, *strides)
         for kernel in ("scale_rows_pitfall", "scale_rows_fixed")
         for strides in ((100, 1), (1, 50), (200, 2), (1, 1))] + [
    ("bits_of_a_stride", 1, 0), ("bits_of_a_stride", 64, 0), ("bits_of_a_cast_stride", 1, 0),
    ("widen_a_constexpr", 0, 0), ("cast_a_constexpr", 0, 0),
    ("scale_rows_pitfall", 100, 1, ("stride_row", "stride_col")), ("scale_rows_pitfall", 1, 50, ("stride_row", "stride_col")),
    ("scale_rows_pitfall", 1, 50, ("stride_col",))]


def offline(kernel, stride_row, stride_col, do_not_specialize=None):
    case = (kernel, stride_row, stride_col) + ((do_not_specialize,) if do_not_specialize else ())
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES, compile_ready=True)[case]["value"]


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_contiguous():
    return offline("scale_rows_pitfall", 100, 1)["last"]


# -- the pitfall, compiled

def test_pitfall_a_contiguous_input_does_not_compile():
    """x of (rows, 100), contiguous: stride_col is 1."""
    assert offline("scale_rows_pitfall", 100, 1) == {"last": no_attribute("to")}


def test_pitfall_a_transposed_view_does_not_compile_either():
    """x.t() of a (100, 50) tensor: stride_row is 1."""
    assert offline("scale_rows_pitfall", 1, 50) == {"last": no_attribute("to")}


def test_pitfall_strides_without_a_1_compile_with_64_bit_offsets():
    """x[:, ::2] of a contiguous (rows, 200) tensor: strides 200 and 2."""
    assert offline("scale_rows_pitfall", 200, 2) == {"offsets": ["i32", "i64"]}  # the store's and the load's


def test_pitfall_another_tensor_attribute_dtype_fails_the_same_way_and_works_after_tl_cast():
    assert offline("bits_of_a_stride", 1, 0) == {"last": no_attribute("dtype")}
    assert "offsets" in offline("bits_of_a_stride", 64, 0)
    assert "offsets" in offline("bits_of_a_cast_stride", 1, 0)


def test_pitfall_to_on_a_constexpr_parameter_fails_the_same_way_and_tl_cast_takes_it():
    assert offline("widen_a_constexpr", 0, 0) == {"last": no_attribute("to")}
    assert "offsets" in offline("cast_a_constexpr", 0, 0)


def test_do_not_specialize_naming_both_strides_compiles_and_one_is_not_enough():
    both = ("stride_row", "stride_col")
    assert offline("scale_rows_pitfall", 100, 1, both) == {"offsets": ["i32", "i64"]}
    assert offline("scale_rows_pitfall", 1, 50, both) == {"offsets": ["i32", "i64"]}
    assert offline("scale_rows_pitfall", 1, 50, ("stride_col",)) == {"last": no_attribute("to")}


@pytest.mark.gpu
def test_gpu_a_contiguous_input_fails_at_the_first_launch():
    with pytest.raises(triton.compiler.errors.CompilationError) as caught:
        entry.scale_rows(entry.scale_rows_pitfall, fresh_randn(8, 100))
    assert str(caught.value).strip().splitlines()[-1] == no_attribute("to")


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's behaviour; compiled, the launch is refused")
def test_pitfall_the_interpreter_runs_it_with_a_stride_of_1_and_gets_it_right():
    x = fresh_randn(8, 100)
    assert x.stride(1) == 1
    assert_matches_float64(entry.scale_rows(entry.scale_rows_pitfall, x), 2 * x.double())


# -- the fix

@pytest.mark.parametrize("strides", [(100, 1), (1, 50), (200, 2), (1, 1)])
def test_fix_compiles_with_64_bit_offsets(strides):
    assert offline("scale_rows_fixed", *strides) == {"offsets": ["i32", "i64"]}


@pytest.mark.parametrize("view", ["contiguous", "transposed", "every other column", "one column"])
def test_fix_matches_float64(view):
    x = {"contiguous": lambda: fresh_randn(30, 100), "transposed": lambda: fresh_randn(100, 30).t(),
         "every other column": lambda: fresh_randn(30, 200)[:, ::2], "one column": lambda: fresh_randn(30, 1)}[view]()
    assert_matches_float64(entry.scale_rows(entry.scale_rows_fixed, x, scale=3.0), 3 * x.double())
