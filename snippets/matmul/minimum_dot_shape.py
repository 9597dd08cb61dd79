"""TP030: "Input shapes should have M >= 1, N >= 1 and K >= 16": the smallest tl.dot on the GPU.

Run it: python minimum_dot_shape.py  (without a GPU, Triton's interpreter runs it on the CPU, and
the interpreter accepts the small product that the GPU rejects)
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
def dot_tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # One program, one (M, K) @ (K, N) product of row-major float32 blocks.
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


def tile_product(a, b):
    (m, k), n = a.shape, b.shape[1]
    c = torch.full((m, n), float("nan"), device=a.device)  # NaN until a program writes it
    dot_tile[(1,)](a, b, c, m, n, k)  # K below 16: rejected when compiled for CUDA (Triton 3.6)
    return c
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def dot_tile_padded(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rk[None, :] < K, other=0.0)  # zeros past K
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=rk[:, None] < K, other=0.0)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


def tile_product_padded(a, b):
    (m, k), n = a.shape, b.shape[1]
    c = torch.full((m, n), float("nan"), device=a.device)
    block_k = max(16, triton.next_power_of_2(k))  # the fix: K padded to 16, the padding loads as 0
    dot_tile_padded[(1,)](a, b, c, m, n, k, block_k)
    return c
# --8<-- [end:fix]


def main():
    a = torch.arange(64.0, device=DEVICE).reshape(8, 8)
    b = torch.eye(8, device=DEVICE)
    try:
        print("8x8 @ 8x8, K = 8:      equal to a @ b:", torch.equal(tile_product(a, b), a @ b))
    except Exception as error:  # the GPU rejects it; printed, not hidden
        print("8x8 @ 8x8, K = 8:      rejected:", str(error).strip().splitlines()[-1])
    print("K padded to 16:        equal to a @ b:", torch.equal(tile_product_padded(a, b), a @ b))


if __name__ == "__main__":
    main()
