"""TP032: block pointers (`tl.make_block_ptr`), the tensor descriptors that replace them, and plain pointers.

Run it: python block_pointers_and_tensor_descriptors.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
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
    else:  # no boundary_check: the edge tiles read and write past (M, N)
        tl.store(y_blk, tl.load(x_blk))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def copy_host_descriptor(x_desc, y_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # x_desc, y_desc: triton.tools.tensor_descriptor.TensorDescriptor, built on the host
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    y_desc.store([m, n], x_desc.load([m, n]))  # the fix: a descriptor stops at the tensor's edge by itself
# --8<-- [end:fix]


# --8<-- [start:other-forms]
@triton.jit
def copy_device_descriptor(x_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # built inside the kernel: on a GPU this needs triton.set_allocator (the descriptor lives in global memory)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_x, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[stride_y, 1], block_shape=[BLOCK_M, BLOCK_N])
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    y_desc.store([m, n], x_desc.load([m, n]))


@triton.jit
def copy_pointers(x_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)  # plain pointers: the mask is yours to write
    x = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rm[:, None] * stride_y + rn[None, :], x, mask=mask)
# --8<-- [end:other-forms]


# --8<-- [start:launch]
def _allocate(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device=DEVICE)


def copy(x, y, form, block_m=16, block_n=16, num_warps=4, check=True, allocator=True):
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
        from triton.tools.tensor_descriptor import TensorDescriptor  # Triton 3.4 and later
        x_desc = TensorDescriptor(x, list(x.shape), list(x.stride()), [block_m, block_n])
        y_desc = TensorDescriptor(y, list(y.shape), list(y.stride()), [block_m, block_n])
        copy_host_descriptor[grid](x_desc, y_desc, block_m, block_n, num_warps=num_warps)
    else:
        raise ValueError(form)
    return y


SENTINEL = -7.0


def edge_case(form, check=True, x_buf=None):
    """Copy the 20 x 36 top-left view of a 32 x 48 buffer into the same view of a buffer of SENTINEL."""
    x_buf = torch.randn(32, 48, device=DEVICE) if x_buf is None else x_buf
    y_buf = torch.full((32, 48), SENTINEL, device=DEVICE)  # a write outside the view shows
    copy(x_buf[:20, :36], y_buf[:20, :36], form, check=check)  # 16 x 16 tiles cross both edges
    return x_buf, y_buf
# --8<-- [end:launch]


# --8<-- [start:allocator]
def copy_without_allocator():
    """A kernel-built descriptor in a process where triton.set_allocator was never called."""
    x, y = torch.zeros(32, 48, device=DEVICE), torch.ones(32, 48, device=DEVICE)
    copy(x, y, "device_descriptor", allocator=False)
    return torch.equal(x, y)
# --8<-- [end:allocator]


def main():
    for name in ("make_block_ptr", "advance", "make_tensor_descriptor"):
        print(f"tl.{name} exists:", hasattr(tl, name))
    for form in ("pointers", "block_ptr", "device_descriptor", "host_descriptor"):
        try:
            x_buf, y_buf = edge_case(form)
            print(f"{form:18} copy right: {torch.equal(y_buf[:20, :36], x_buf[:20, :36])}; "
                  f"sentinels left outside the view: {int((y_buf == SENTINEL).sum())} of {32 * 48 - 20 * 36}")
        except Exception as error:  # a form this Triton version lacks: printed, not hidden
            print(f"{form:18} failed: {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
    x_buf, y_buf = edge_case("block_ptr", check=False)
    print("block pointer without boundary_check, sentinels left:", int((y_buf == SENTINEL).sum()))


if __name__ == "__main__":
    main()
