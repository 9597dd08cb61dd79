"""TP032: block pointers (`tl.make_block_ptr`), what replaces them, and what each version supports.

Run it: ``python snippets/compilation/block_pointers_and_tensor_descriptors.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import subprocess
import sys
import warnings

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

SENTINEL = -7.0
ROWS, COLS = 20, 36          # the tensor: a view of a 32 x 48 buffer, so 16 x 16 tiles cross both edges
BUF_ROWS, BUF_COLS = 32, 48
BLOCK = 16


# --8<-- [start:pointers]
@triton.jit
def copy_pointers(x_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rm[:, None] * stride_y + rn[None, :], x, mask=mask)
# --8<-- [end:pointers]


# --8<-- [start:block-pointer]
@triton.jit
def copy_block_ptr(x_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   CHECK: tl.constexpr):
    start = (tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_x, 1), offsets=start,
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    y_blk = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(stride_y, 1), offsets=start,
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    if CHECK:
        x = tl.load(x_blk, boundary_check=(0, 1), padding_option="zero")
        tl.store(y_blk, x, boundary_check=(0, 1))
    else:  # the pitfall: no boundary_check, so the edge tiles read and write past (M, N)
        tl.store(y_blk, tl.load(x_blk))
# --8<-- [end:block-pointer]


# --8<-- [start:descriptors]
@triton.jit
def copy_device_descriptor(x_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # built inside the kernel: on a GPU this needs triton.set_allocator (the descriptor lives in global memory)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_x, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[stride_y, 1], block_shape=[BLOCK_M, BLOCK_N])
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    y_desc.store([m, n], x_desc.load([m, n]))   # out of bounds: loads give 0, stores are dropped


@triton.jit
def copy_host_descriptor(x_desc, y_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # built on the host with triton.tools.tensor_descriptor.TensorDescriptor
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    y_desc.store([m, n], x_desc.load([m, n]))
# --8<-- [end:descriptors]


# --8<-- [start:launch]
def _allocate(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device=DEVICE)


def copy(x, y, form, block_m=BLOCK, block_n=BLOCK, num_warps=4, check=True, allocator=True):
    """y[:] = x[:] with one of the four kernels; x and y are 2-D with unit column stride."""
    (m, n), grid = x.shape, (triton.cdiv(x.shape[0], block_m), triton.cdiv(x.shape[1], block_n))
    if form == "pointers":
        copy_pointers[grid](x, y, m, n, x.stride(0), y.stride(0), block_m, block_n, num_warps=num_warps)
    elif form == "block_ptr":
        copy_block_ptr[grid](x, y, m, n, x.stride(0), y.stride(0), block_m, block_n, check, num_warps=num_warps)
    elif form == "device_descriptor":
        if allocator:
            triton.set_allocator(_allocate)
        copy_device_descriptor[grid](x, y, m, n, x.stride(0), y.stride(0), block_m, block_n, num_warps=num_warps)
    elif form == "host_descriptor":
        from triton.tools.tensor_descriptor import TensorDescriptor
        x_desc = TensorDescriptor(x, list(x.shape), list(x.stride()), [block_m, block_n])
        y_desc = TensorDescriptor(y, list(y.shape), list(y.stride()), [block_m, block_n])
        copy_host_descriptor[grid](x_desc, y_desc, block_m, block_n, num_warps=num_warps)
    else:
        raise ValueError(form)
    return y


def edge_case(form, check=True):
    """Copy a 20 x 36 view of a 32 x 48 buffer into a view of a sentinel-filled buffer."""
    x_buf = fresh_randn(BUF_ROWS, BUF_COLS)
    y_buf = torch.full((BUF_ROWS, BUF_COLS), SENTINEL, device=DEVICE)
    copy(x_buf[:ROWS, :COLS], y_buf[:ROWS, :COLS], form, check=check)
    return x_buf, y_buf
# --8<-- [end:launch]


# --8<-- [start:test-api]
def test_make_block_ptr_exists():
    assert hasattr(tl, "make_block_ptr")


def test_advance_exists():
    assert hasattr(tl, "advance")


def test_make_tensor_descriptor_exists():
    assert hasattr(tl, "make_tensor_descriptor")


def test_host_tensor_descriptor_exists():
    from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: F401


def test_make_block_ptr_runs_without_a_deprecation_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        edge_case("block_ptr")
    assert not [w for w in caught if "make_block_ptr" in str(w.message)]
# --8<-- [end:test-api]


# --8<-- [start:test-forms]
@pytest.mark.parametrize("form", ["pointers", "block_ptr", "device_descriptor", "host_descriptor"])
def test_copy_matches_float64_and_stays_inside_the_edge(form):
    x_buf, y_buf = edge_case(form)
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())
    outside = torch.ones(BUF_ROWS, BUF_COLS, dtype=torch.bool)
    outside[:ROWS, :COLS] = False
    assert (y_buf.cpu()[outside] == SENTINEL).all()          # nothing written past the edge


def test_block_pointer_copy_matches_float64():
    x_buf, y_buf = edge_case("block_ptr")
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())


def test_tensor_descriptor_copy_matches_float64():
    x_buf, y_buf = edge_case("host_descriptor")
    assert_matches_float64(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS].double())
# --8<-- [end:test-forms]


# --8<-- [start:test-pitfall]
def test_pitfall_block_pointer_without_boundary_check_writes_past_the_edge():
    x_buf, y_buf = edge_case("block_ptr", check=False)
    assert torch.equal(y_buf, x_buf)   # the edge tiles overwrote every sentinel with the neighbour's data
# --8<-- [end:test-pitfall]


# --8<-- [start:padding]
@triton.jit
def load_corner_tile(x_desc, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tile = x_desc.load([16, 32])      # rows 16..31, cols 32..47 of a 20 x 36 tensor
    r, c = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N)
    tl.store(out_ptr + r[:, None] * BLOCK_N + c[None, :], tile)
# --8<-- [end:padding]


# --8<-- [start:test-padding]
def test_descriptor_pads_out_of_bounds_with_zeros():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x_buf = fresh_randn(BUF_ROWS, BUF_COLS)                       # no zeros behind the edge
    x = x_buf[:ROWS, :COLS]
    out = poisoned(BLOCK, BLOCK)
    load_corner_tile[(1,)](TensorDescriptor(x, [ROWS, COLS], list(x.stride()), [BLOCK, BLOCK]), out, BLOCK, BLOCK)
    expected = torch.zeros(BLOCK, BLOCK)
    expected[:4, :4] = x[16:, 32:].cpu()
    assert torch.equal(out.cpu(), expected)


def unaligned_host_descriptor():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = fresh_randn(20, 30)                                       # a row is 120 bytes
    return TensorDescriptor.from_tensor(x, [16, 16])


def test_pitfall_descriptor_rows_must_be_16_byte_aligned():
    with pytest.raises(AssertionError, match="strides must be 16-byte aligned"):
        unaligned_host_descriptor()
# --8<-- [end:test-padding]


# --8<-- [start:allocator]
def run_child(flag: str) -> subprocess.CompletedProcess:
    """Run this file with `flag` in a fresh process: no allocator has been set there."""
    return subprocess.run([sys.executable, __file__, flag], capture_output=True, text=True, timeout=300)


def copy_without_allocator():
    x_buf, y_buf = torch.zeros(BUF_ROWS, BUF_COLS, device=DEVICE), torch.ones(BUF_ROWS, BUF_COLS, device=DEVICE)
    try:
        copy(x_buf, y_buf, "device_descriptor", allocator=False)
        print("copied without an allocator:", torch.equal(x_buf, y_buf))
    except Exception as error:  # reported on stdout for the parent process to read
        print(f"{type(error).__name__}: {error}")
# --8<-- [end:allocator]


ALLOCATOR_MESSAGE = ("Kernel requires a runtime memory allocation, but no allocator was set. "
                     "Use triton.set_allocator to specify an allocator.")


def reproduce_missing_allocator() -> str:
    done = run_child("--without-allocator")
    return done.stdout + done.stderr


# --8<-- [start:test-allocator]
@pytest.mark.gpu
def test_gpu_device_descriptor_without_allocator_raises():
    assert f"RuntimeError: {ALLOCATOR_MESSAGE}" in reproduce_missing_allocator()


@pytest.mark.interpreter
def test_interpreter_device_descriptor_needs_no_allocator():
    assert "copied without an allocator: True" in reproduce_missing_allocator()
# --8<-- [end:test-allocator]


N_SIDE = 16384   # 16384 x 16384 float32 = 1 GiB per tensor


@gpu_evidence("copy-forms")
def measure_copy_forms():
    """A 1 GiB 2-D float32 copy in the four forms, next to torch's copy_ and the copy ceiling."""
    ceiling = copy_ceiling_gbps()
    x = torch.randn(N_SIDE, N_SIDE, device="cuda")
    y = torch.empty_like(x)
    bytes_moved = 2 * x.numel() * x.element_size()
    rows = []
    for form in ("pointers", "block_ptr", "device_descriptor", "host_descriptor"):
        y.fill_(float("nan"))
        copy(x, y, form, 64, 64)
        assert torch.equal(x, y), form
        timing = median_ms(lambda: copy(x, y, form, 64, 64))
        rows.append([form, *memory_bound_cells(timing, bytes_moved, ceiling)])
    timing = median_ms(lambda: y.copy_(x))
    rows.append(["torch copy_", *memory_bound_cells(timing, bytes_moved, ceiling)])
    return table([label("form", "写法", "form"), *memory_bound_columns()], rows,
                 ceiling_gbps=ceiling, n_elements=x.numel(), block="64 x 64")


def main():
    if "--without-allocator" in sys.argv:
        copy_without_allocator()
        return
    print(describe())
    for name in ("make_block_ptr", "advance", "make_tensor_descriptor"):
        print(f"tl.{name} exists:", hasattr(tl, name))
    for form in ("pointers", "block_ptr", "device_descriptor", "host_descriptor"):
        try:
            x_buf, y_buf = edge_case(form)
            ok = torch.equal(y_buf[:ROWS, :COLS], x_buf[:ROWS, :COLS])
            untouched = int((y_buf == SENTINEL).sum())
            print(f"{form:18s} copy right: {ok}; sentinels left outside the 20 x 36 view: {untouched}")
        except Exception as error:  # a form this Triton version lacks: printed, not hidden
            print(f"{form:18s} failed: {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
    x_buf, y_buf = edge_case("block_ptr", check=False)
    print("block pointer without boundary_check, sentinels left:", int((y_buf == SENTINEL).sum()))


if __name__ == "__main__":
    main()
