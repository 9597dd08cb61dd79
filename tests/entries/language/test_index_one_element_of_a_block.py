"""TP089's claims, one test each: snippets/language/index_one_element_of_a_block.py.

Every kernel is compiled for sm_90 without a GPU in one fresh process (`in_fresh_process_by_case`,
compile-ready: Triton's own `tl.sum` stays compilable), each in a new empty kernel cache; the
launches run here, on the interpreter or on the GPU.
"""

import inspect
import os
import re
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import index_one_element_of_a_block as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

KERNELS = {  # name -> what its signature is
    "scale_by_element_pitfall": "element", "row_of_tile_pitfall": "row", "first_element_pitfall": "element",
    "scale_by_element_fixed": "element", "row_of_tile_fixed": "row", "scale_by_element_in_registers": "element",
}
RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
SEMANTIC = "_builder" if RELEASE < (3, 4) else "_semantic"  # the argument's name before 3.4, and from it


def offline_case(name):
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    return entry.compile_error(getattr(entry, name), KERNELS[name])


def offline(name):
    result = in_fresh_process_by_case(Path(__file__), "offline_case", list(KERNELS), compile_ready=True)[name]
    return result.get("value", result)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_runtime_index():
    return offline("scale_by_element_pitfall")


def reproduce_row_index():
    return offline("row_of_tile_pitfall")


def reproduce_constant_index():
    return offline("first_element_pitfall")


# -- the pitfalls, compiled

def last_line_says(line, message):
    """The message alone from 3.5; inside ValueError('...') on 3.2 to 3.4."""
    return line == (message if RELEASE >= (3, 5) else f"ValueError({message!r})")


def test_pitfall_a_runtime_index_fails_with_did_you_forget_to_add_triton_jit():
    assert last_line_says(offline("scale_by_element_pitfall"),
                          f"Did you forget to add @triton.jit ? (`{SEMANTIC}` argument must be provided outside of JIT functions.)")


def test_pitfall_a_row_index_is_an_unsupported_tensor_index():
    assert last_line_says(offline("row_of_tile_pitfall"), "unsupported tensor index: int32[]")


def test_pitfall_a_constant_index_is_an_unsupported_tensor_index():
    assert last_line_says(offline("first_element_pitfall"), "unsupported tensor index: constexpr[0]")


def test_getitem_accepts_only_none_and_a_bare_colon():
    """The page's Why: a block's `__getitem__` turns None into a new axis, passes `:` through, and
    raises for anything else."""
    source = inspect.getsource(tl.tensor.__getitem__)
    assert "expand_dims" in source and "unsupported tensor index" in source
    assert re.search(r"sl\.start\b.*sl\.stop\b.*sl\.step\b", source, re.S)  # a slice only when all three are None


# -- the pitfall, interpreted

@pytest.mark.interpreter
def test_pitfall_the_interpreter_refuses_a_runtime_index_with_a_typeerror():
    with pytest.raises(Exception) as raised:
        entry.scale_by_element(entry.scale_by_element_pitfall, torch.arange(1.0, 9.0, device=entry.DEVICE), 2)
    assert type(raised.value).__name__ == "InterpreterError"
    assert "TypeError(\"'int' object is not iterable\")" in str(raised.value)


# -- the fixes

def test_fix_every_fixed_kernel_compiles_for_sm_90():
    for name in ("scale_by_element_fixed", "row_of_tile_fixed", "scale_by_element_in_registers"):
        assert offline(name) == "compiles", name


@pytest.mark.parametrize("kernel", [entry.scale_by_element_fixed, entry.scale_by_element_in_registers],
                         ids=lambda kernel: kernel.__name__)
def test_fix_scale_by_element_matches_float64(kernel):
    for n, i in ((1, 0), (100, 37), (1000, 999), (4099, 2048)):
        x = fresh_randn(n)
        assert_matches_float64(entry.scale_by_element(kernel, x, i), x.double() * x.double()[i])


def test_fix_row_of_tile_is_the_row():
    for rows, cols in ((1, 16), (16, 16), (64, 32)):
        tile = fresh_randn(rows * cols).reshape(rows, cols)
        for r in (0, rows // 2, rows - 1):
            assert_matches_float64(entry.row_of_tile(entry.row_of_tile_fixed, tile, r), tile.double()[r])


def test_tl_gather_exists_from_triton_3_3():
    assert hasattr(tl, "gather") == (RELEASE >= (3, 3))


@pytest.mark.skipif(not hasattr(tl, "gather"), reason="tl.gather arrived in Triton 3.3")
def test_fix_gather_permutes_as_torch_does():
    for n in (16, 256, 1024):
        x = fresh_randn(n)
        index = torch.randperm(n, device=x.device).to(torch.int32)
        assert_matches_float64(entry.gather(x, index), x.double()[index.long()])


def test_fix_the_zero_keeps_an_integer_block_integer():
    """`tl.where(..., x, 0)` takes the block's type: 16777217 survives (float32 would round it to 16777216)."""
    x = torch.tensor([3, 16_777_217, 5, 7], dtype=torch.int64, device=entry.DEVICE)
    out = torch.zeros_like(x)
    entry.scale_by_element_in_registers[(1,)](x, out, 4, 1, BLOCK=4)
    assert out.tolist() == [3 * 16_777_217, 16_777_217 ** 2, 5 * 16_777_217, 7 * 16_777_217]
