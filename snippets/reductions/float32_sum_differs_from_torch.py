"""TP080: a float32 row sum in Triton differs from torch.sum in the last bits; compare both with a float64 sum.

Run it: python float32_sum_differs_from_torch.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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
def row_sum_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):  # a long row, one block at a time
        acc += tl.load(x_ptr + row * stride + start + offs, mask=start + offs < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum(x, BLOCK=1024):
    out = torch.full((x.shape[0],), float("nan"), device=x.device)  # NaN until a program writes it
    row_sum_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=BLOCK)
    return out


def bitwise_check(got, x):
    assert torch.equal(got, x.sum(dim=-1)), "Triton's sum is not torch.sum's"  # the pitfall: fails with no bug
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def assert_sum_close(got, x):
    """`got` is a float32 sum of each row of `x`: compare it with the float64 sum, not with torch.sum."""
    exact = x.double().sum(dim=-1)
    scale = x.double().abs().sum(dim=-1)  # the error scales with sum(|x|), not with the (maybe tiny) sum
    tol = 2.0**-24 * x.shape[-1] ** 0.5 * scale  # the fix: eps * sqrt(n) * sum(|x|)
    err = (got.double() - exact).abs()
    assert (err <= tol).all(), f"max error {float(err.max()):.3g} > tolerance {float(tol.min()):.3g}"
# --8<-- [end:fix]


# --8<-- [start:helpers]
def worst_case_bound(x):
    """gamma_n * sum(|x|): no float32 sum of the n numbers, in any order, is further from the exact sum."""
    n, u = x.shape[-1], 2.0**-24
    return n * u / (1 - n * u) * x.double().abs().sum(dim=-1)


def cancelling_rows(rows, half, seed=0):
    """Rows of y and -y in a random order: the exact sum of each row is 0."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randn(rows, half, generator=g)
    x = torch.cat([y, -y], dim=1)
    return x[:, torch.randperm(2 * half, generator=g)].contiguous().to(DEVICE)
# --8<-- [end:helpers]


def main():
    torch.manual_seed(0)
    x = torch.randn(8, 100_000, device=DEVICE)
    got = row_sum(x)
    differ = int((got != x.sum(dim=-1)).sum())
    print(f"random rows: {differ} of 8 Triton sums differ from torch.sum; both within eps*sqrt(n)*sum|x|:")
    assert_sum_close(got, x)
    assert_sum_close(x.sum(dim=-1), x)
    print("  assert_sum_close passes for both")
    x = cancelling_rows(8, 50_000)
    try:
        torch.testing.assert_close(row_sum(x), torch.zeros(8, device=DEVICE))
    except AssertionError:
        print("cancelling rows (exact sum 0): assert_close with float32 defaults fails")
    assert_sum_close(row_sum(x), x)
    print("  assert_sum_close passes")


if __name__ == "__main__":
    main()
