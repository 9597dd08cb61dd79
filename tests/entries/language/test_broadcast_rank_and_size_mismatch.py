"""TP093's claims, one test each: snippets/language/broadcast_rank_and_size_mismatch.py.

Every kernel is compiled for sm_90 without a GPU in one fresh process (`in_fresh_process_by_case`), each in a
new empty kernel cache; the launches run here, on the interpreter or on the GPU. The version matrix runs the
same tests on every release from 3.2: where a claim depends on the release, the test says which.
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import broadcast_rank_and_size_mismatch as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
KERNELS = ["add_row_pitfall", "repeat_row_pitfall", "copy_tile_pitfall",
           "add_row_fixed", "repeat_row_fixed", "copy_tile_fixed"]
LOAD_TAKES_A_LOWER_RANK_MASK = RELEASE >= (3, 5)
STORE_TAKES_A_LOWER_RANK_VALUE = RELEASE >= (3, 6)


def shapes(*dims) -> str:
    """A shape as Triton's message prints it: plain numbers on 3.2, quoted from 3.3."""
    return "[" + ", ".join(str(d) if RELEASE < (3, 3) else f"'{d}'" for d in dims) + "]"


def rank_mismatch(src, dst, dst_quoted=False):
    target = shapes(*dst) if dst_quoted else "[" + ", ".join(map(str, dst)) + "]"
    return f"Cannot broadcast, rank mismatch: {shapes(*src)}, {target}"


def size_mismatch(src, dst, axis):
    if RELEASE >= (3, 6):
        return f"Cannot make_shape_compatible: incompatible dimensions at index {axis}: {dst[axis]} and {src[axis]}"
    return (f"Cannot broadcast, the expanded size of the tensor ({dst[axis]}) must match the existing size "
            f"({src[axis]}) at non-singleton dimension {axis}: {shapes(*src)}, {shapes(*dst)}")


def offline_case(name):
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    return entry.compile_error(getattr(entry, name))


def offline(name):
    result = in_fresh_process_by_case(Path(__file__), "offline_case", KERNELS)[name]
    return result.get("value", result)


def says(line, message):
    """The compile error's line ends with Triton's message (3.2 prints it as `ValueError: ...`)."""
    return isinstance(line, str) and line.endswith(message)


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_broadcast_to_rank_mismatch():
    return offline("repeat_row_pitfall")


def reproduce_incompatible_dimensions():
    return offline("copy_tile_pitfall")


def reproduce_expanded_size_on_triton_3_5():
    from triton_faq.testing import on_release

    return "\n".join(on_release("3.5.1", entry.__file__,
                                "print(m['compile_error'](m['copy_tile_pitfall']))"))


# -- the pitfalls, compiled for sm_90

def test_pitfall_broadcast_to_a_lower_rank_is_refused_by_every_release():
    assert says(offline("repeat_row_pitfall"), rank_mismatch([32], [16, 32]))


def test_pitfall_a_one_dimensional_mask_on_a_tile_is_refused_before_triton_3_6():
    """add_row_pitfall: the load refuses its 1-D mask before 3.5, the store before 3.6; from 3.6 it compiles."""
    line = offline("add_row_pitfall")
    if STORE_TAKES_A_LOWER_RANK_VALUE:
        assert line == "compiles"
    else:
        assert says(line, rank_mismatch([32], [16, 32], dst_quoted=True))


def test_pitfall_tiles_of_different_sizes_name_the_axis_in_a_message_that_changed_in_triton_3_6():
    assert says(offline("copy_tile_pitfall"), size_mismatch([16, 32], [16, 64], 1))


# -- the pitfalls, interpreted (the launch's own shapes: a 4 x 3 tile padded to 4 x 4)

@pytest.mark.interpreter
def test_pitfall_the_interpreter_refuses_broadcast_to_a_lower_rank():
    with pytest.raises(Exception) as raised:
        entry.repeat_row(entry.repeat_row_pitfall, torch.ones(3), 4)
    assert type(raised.value).__name__ == "InterpreterError"
    assert rank_mismatch([4], [4, 4]) in str(raised.value)


@pytest.mark.interpreter
def test_pitfall_the_interpreter_refuses_the_one_dimensional_mask_before_triton_3_6_and_adds_right_from_it():
    x, row = fresh_randn(4, 3), fresh_randn(3)
    if STORE_TAKES_A_LOWER_RANK_VALUE:
        assert_matches_float64(entry.add_row(entry.add_row_pitfall, x, row), x.double() + row.double())
    else:
        with pytest.raises(Exception) as raised:
            entry.add_row(entry.add_row_pitfall, x, row)
        assert rank_mismatch([4], [4, 4], dst_quoted=True) in str(raised.value)


@pytest.mark.interpreter
def test_pitfall_the_interpreter_refuses_tiles_of_different_sizes():
    with pytest.raises(Exception) as raised:
        entry.copy_tile(entry.copy_tile_pitfall, torch.ones(4, 3), 8)
    assert size_mismatch([4, 4], [4, 8], 1) in str(raised.value)


# -- which operation takes which shapes, release by release

@triton.jit
def _load_with_a_column_mask(x_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=cols < N, other=0.0)  # the 1-D mask on the load only
    tl.store(out_ptr + offs, x, mask=(cols < N)[None, :])


@triton.jit
def _store_a_row_into_a_tile(row_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    row = tl.load(row_ptr + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], row, mask=(cols < N)[None, :])  # a 1-D value


@triton.jit
def _add_a_row_to_a_tile(x_ptr, row_ptr, out_ptr, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    inside = (cols < N)[None, :]
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=inside, other=0.0)
    row = tl.load(row_ptr + cols, mask=cols < N, other=0.0)  # [BLOCK_N]
    tl.store(out_ptr + offs, x + row, mask=inside)  # [ROWS, BLOCK_N] + [BLOCK_N]


def _outcome(launch):
    try:
        return launch()
    except Exception as error:
        return error


@pytest.mark.interpreter
def test_load_takes_a_lower_rank_mask_from_triton_3_5():
    x = fresh_randn(4, 3)
    out = torch.full_like(x, float("nan"))
    result = _outcome(lambda: _load_with_a_column_mask[(1,)](x, out, 3, ROWS=4, BLOCK_N=4))
    if LOAD_TAKES_A_LOWER_RANK_MASK:
        assert_matches_float64(out, x.double())
    else:
        assert isinstance(result, Exception) and rank_mismatch([4], [4, 4], dst_quoted=True) in str(result)


@pytest.mark.interpreter
def test_store_takes_a_lower_rank_value_from_triton_3_6():
    row = fresh_randn(3)
    out = torch.full((4, 3), float("nan"), device=row.device)
    result = _outcome(lambda: _store_a_row_into_a_tile[(1,)](row, out, 3, ROWS=4, BLOCK_N=4))
    if STORE_TAKES_A_LOWER_RANK_VALUE:
        assert_matches_float64(out, row.double().expand(4, 3))
    else:
        assert isinstance(result, Exception) and rank_mismatch([4], [4, 4], dst_quoted=True) in str(result)


@pytest.mark.interpreter
def test_arithmetic_adds_the_missing_leading_axis_on_every_release():
    x, row = fresh_randn(4, 3), fresh_randn(3)
    out = torch.full_like(x, float("nan"))
    _add_a_row_to_a_tile[(1,)](x, row, out, 3, ROWS=4, BLOCK_N=4)
    assert_matches_float64(out, x.double() + row.double())


@triton.jit
def _add_blocks_of_different_sizes(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr):
    a = tl.load(x_ptr + tl.arange(0, A))
    b = tl.load(x_ptr + tl.arange(0, B))
    tl.store(out_ptr + tl.arange(0, A), a + b)


@triton.jit
def _store_a_tile_through_row_pointers(x_ptr, out_ptr, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    tile = tl.load(x_ptr + rows[:, None] * BLOCK_N + cols[None, :])
    tl.store(out_ptr + cols, tile)  # a [ROWS, BLOCK_N] value, [BLOCK_N] pointers


@pytest.mark.interpreter
def test_arithmetic_between_blocks_of_different_sizes_is_incompatible_dimensions_on_every_release():
    with pytest.raises(Exception) as raised:
        _add_blocks_of_different_sizes[(1,)](torch.ones(64), torch.ones(64), A=16, B=32)
    assert "Cannot make_shape_compatible: incompatible dimensions at index 0: 16 and 32" in str(raised.value)


@pytest.mark.interpreter
def test_store_refuses_a_value_of_higher_rank_than_its_pointers():
    with pytest.raises(Exception) as raised:
        _store_a_tile_through_row_pointers[(1,)](torch.ones(32), torch.ones(8), ROWS=4, BLOCK_N=8)
    if RELEASE >= (3, 6):
        assert ("Expected pointer argument to have shape ['constexpr[4]', 'constexpr[8]'] but got ['constexpr[8]']"
                in str(raised.value))
    else:
        assert f"Cannot broadcast, rank mismatch: {shapes(4, 8)}, {shapes(8)}" in str(raised.value)


# -- the fixes

def test_fix_every_fixed_kernel_compiles_for_sm_90_on_every_release():
    for name in ("add_row_fixed", "repeat_row_fixed", "copy_tile_fixed"):
        assert offline(name) == "compiles", name


SHAPES = [(1, 1), (4, 3), (16, 100), (64, 1000)]


@pytest.mark.parametrize("rows,n", SHAPES)
def test_fix_add_row_matches_float64(rows, n):
    x, row = fresh_randn(rows, n), fresh_randn(n)
    assert_matches_float64(entry.add_row(entry.add_row_fixed, x, row), x.double() + row.double())


@pytest.mark.parametrize("rows,n", SHAPES)
def test_fix_repeat_row_matches_float64(rows, n):
    row = fresh_randn(n)
    assert_matches_float64(entry.repeat_row(entry.repeat_row_fixed, row, rows), row.double().expand(rows, n))


@pytest.mark.parametrize("rows,n", SHAPES)
def test_fix_copy_tile_is_the_tile(rows, n):
    x = fresh_randn(rows, n)
    assert torch.equal(entry.copy_tile(entry.copy_tile_fixed, x, 64), x)
