"""TP032's claims, one test each: snippets/compilation/block_pointers_and_tensor_descriptors.py.

Each API test states one fact, so the version matrix shows where block pointers, `tl.advance`
and the two kinds of descriptors exist, and where `tl.make_block_ptr` starts to warn.
"""

import warnings
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.compilation import block_pointers_and_tensor_descriptors as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process, poisoned

SNIPPET = Path(entry.__file__)
SENTINEL = entry.SENTINEL
ROWS, COLS, BUF_ROWS, BUF_COLS, BLOCK = 20, 36, 32, 48, 16
RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
REMOVED_MESSAGE = "Block pointers have been removed in favor of the tensor descriptor API"
ALLOCATOR_MESSAGE = ("Kernel requires a runtime memory allocation, but no allocator was set. "
                     "Use triton.set_allocator to specify an allocator.")


def edge_case(form, check=True):
    return entry.edge_case(form, check=check, x_buf=fresh_randn(BUF_ROWS, BUF_COLS))


def test_make_block_ptr_exists():
    assert hasattr(tl, "make_block_ptr")


def test_advance_exists():
    assert hasattr(tl, "advance")


def test_make_tensor_descriptor_exists():
    assert hasattr(tl, "make_tensor_descriptor")


def test_host_tensor_descriptor_exists():
    from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: F401


def test_block_pointer_copy_runs_before_3_9_and_is_refused_with_a_message_from_3_9():
    if RELEASE < (3, 9):
        edge_case("block_ptr")  # runs
        return
    with pytest.raises(Exception) as caught:
        edge_case("block_ptr")
    assert REMOVED_MESSAGE in str(caught.value) + repr(caught.value.__cause__)


def test_make_block_ptr_runs_without_a_deprecation_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        edge_case("block_ptr")
    assert not [w for w in caught if "make_block_ptr" in str(w.message)]


@pytest.mark.parametrize("form", ["pointers", "block_ptr", "device_descriptor", "host_descriptor"])
def test_copy_matches_float64_and_stays_inside_the_edge(form):
    x_buf, y_buf = edge_case(form)
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())
    outside = torch.ones(BUF_ROWS, BUF_COLS, dtype=torch.bool)
    outside[:ROWS, :COLS] = False
    assert (y_buf.cpu()[outside] == SENTINEL).all()  # nothing written past the edge


def test_pointer_copy_matches_float64_and_stays_inside_the_edge():
    x_buf, y_buf = edge_case("pointers")
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())
    assert int((y_buf == SENTINEL).sum()) == BUF_ROWS * BUF_COLS - ROWS * COLS


def test_block_pointer_copy_matches_float64():
    x_buf, y_buf = edge_case("block_ptr")
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())


def test_tensor_descriptor_copy_matches_float64():
    x_buf, y_buf = edge_case("host_descriptor")
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())


def test_pitfall_block_pointer_without_boundary_check_writes_past_the_edge():
    x_buf, y_buf = edge_case("block_ptr", check=False)
    assert torch.equal(y_buf, x_buf)  # the edge tiles overwrote every sentinel with the neighbour's data


@triton.jit
def load_corner_tile(x_desc, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tile = x_desc.load([16, 32])  # rows 16..31, cols 32..47 of a 20 x 36 tensor
    r, c = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N)
    tl.store(out_ptr + r[:, None] * BLOCK_N + c[None, :], tile)


def test_descriptor_pads_out_of_bounds_with_zeros():
    from triton.tools.tensor_descriptor import TensorDescriptor

    x_buf = fresh_randn(BUF_ROWS, BUF_COLS)  # no zeros behind the edge
    x = x_buf[:ROWS, :COLS]
    out = poisoned(BLOCK, BLOCK)
    load_corner_tile[(1,)](TensorDescriptor(x, [ROWS, COLS], list(x.stride()), [BLOCK, BLOCK]), out, BLOCK, BLOCK)
    expected = torch.zeros(BLOCK, BLOCK)
    expected[:4, :4] = x[16:, 32:].cpu()
    assert torch.equal(out.cpu(), expected)


def unaligned_host_descriptor():
    """The reproducer of `strides must be 16-byte aligned`: rows of 30 float32 are 120 bytes."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    return TensorDescriptor.from_tensor(fresh_randn(20, 30), [16, 16])


def test_pitfall_descriptor_rows_must_be_16_byte_aligned():
    with pytest.raises(AssertionError, match="strides must be 16-byte aligned"):
        unaligned_host_descriptor()


def reproduce_missing_allocator() -> str:
    """The reproducer of the allocator message: a fresh process, where no allocator was ever set."""
    [result] = in_fresh_process(SNIPPET, "copy_without_allocator", [()])
    if "error" in result:
        return f"{result['error']}: {result['message']}"
    return f"copied without an allocator: {result['value']}"


@pytest.mark.gpu
def test_gpu_device_descriptor_without_allocator_raises():
    assert f"RuntimeError: {ALLOCATOR_MESSAGE}" in reproduce_missing_allocator()


@pytest.mark.interpreter
def test_interpreter_device_descriptor_needs_no_allocator():
    assert "copied without an allocator: True" in reproduce_missing_allocator()
