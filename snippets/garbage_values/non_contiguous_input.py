"""TP026: a kernel written for flat contiguous memory, given a transposed, sliced, expanded or
channels_last tensor.

Run it: ``python snippets/garbage_values/non_contiguous_input.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def double_flat(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # element i is at x_ptr + i: no strides
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def double_pitfall(x: torch.Tensor) -> torch.Tensor:
    out = poisoned(*x.shape)  # contiguous, NaN until written
    n = x.numel()
    double_flat[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)  # Triton receives x.data_ptr() only
    return out
# --8<-- [end:pitfall]


# --8<-- [start:fix-contiguous]
def double_contiguous(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()  # a copy in row-major order; no copy if x already is contiguous
    out = poisoned(*x.shape)
    n = x.numel()
    double_flat[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
# --8<-- [end:fix-contiguous]


# --8<-- [start:fix-strides]
@triton.jit
def double_2d(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, 2.0 * x, mask=mask)


def double_strided(x: torch.Tensor, out: torch.Tensor | None = None, block=16) -> torch.Tensor:
    """2 * x for a 2-D x of any strides (transposed, sliced, expanded), into out of any strides."""
    M, N = x.shape
    out = poisoned(M, N) if out is None else out
    grid = (triton.cdiv(M, block), triton.cdiv(N, block))
    double_2d[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                    BLOCK_M=block, BLOCK_N=block)
    return out
# --8<-- [end:fix-strides]


# --8<-- [start:guard]
def double_checked(x: torch.Tensor) -> torch.Tensor:
    if not x.is_contiguous():  # a raise, not an assert: `python -O` strips asserts
        raise ValueError(f"double_flat needs a contiguous tensor, got shape {tuple(x.shape)} with strides "
                         f"{x.stride()}; call .contiguous() first")
    return double_pitfall(x)  # safe now: storage order is row-major order
# --8<-- [end:guard]


# --8<-- [start:layouts]
def layouts():
    """Four non-contiguous tensors, each with the tensor whose storage it shares."""
    a = fresh_randn(6, 10)
    w = fresh_randn(6, 20)
    buffer = torch.full((60,), 1000.0, device=DEVICE)  # a row of 10, then 50 elements of 1000.0
    buffer[:10] = fresh_randn(10)
    nchw = fresh_randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
    return {
        "transpose": (a.t(), a),                          # (10, 6), strides (1, 10)
        "every other column": (w[:, ::2], w),             # (6, 10), strides (20, 2)
        "expand": (buffer[:10].expand(6, 10), buffer),    # (6, 10), strides (0, 1)
        "channels_last": (nchw, nchw),                    # NCHW shape, NHWC storage
    }
# --8<-- [end:layouts]


# --8<-- [start:test-pitfall]
def test_pitfall_transpose_reads_the_original_row_major_order():
    x, a = layouts()["transpose"]
    out = double_pitfall(x)
    assert torch.equal(out.cpu(), (2 * a).reshape(10, 6).cpu())  # a's storage, poured into x's shape
    assert not torch.equal(out.cpu(), (2 * x).cpu())


def test_pitfall_strided_slice_reads_the_skipped_columns():
    x, w = layouts()["every other column"]
    out = double_pitfall(x)
    assert torch.equal(out.flatten().cpu(), 2 * w.flatten()[:60].cpu())  # the first 60 stored elements
    assert torch.equal(out[0].cpu(), 2 * w[0, :10].cpu())  # row 0: w[0, 0], w[0, 1], w[0, 2], ... skipped ones too


def test_pitfall_expand_reads_past_the_one_stored_row():
    x, buffer = layouts()["expand"]
    out = double_pitfall(x)
    assert torch.equal(out[0].cpu(), 2 * buffer[:10].cpu())  # row 0 is right
    assert torch.equal(out[1:].cpu(), torch.full((5, 10), 2000.0))  # the rest: whatever follows in memory


def test_pitfall_channels_last_reads_nhwc_order():
    x, _ = layouts()["channels_last"]
    assert not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)
    out = double_pitfall(x)
    nhwc = x.permute(0, 2, 3, 1)  # the order the elements are stored in
    assert torch.equal(out.cpu(), (2 * nhwc).reshape(x.shape).cpu())
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("name", list(layouts()))
def test_fix_contiguous_matches_float64(name):
    x, _ = layouts()[name]
    assert_matches_float64(double_contiguous(x), 2 * x.double())


@pytest.mark.parametrize("name", ["transpose", "every other column", "expand"])
def test_fix_strides_matches_float64(name):
    x, _ = layouts()[name]
    assert_matches_float64(double_strided(x), 2 * x.double())


def test_contiguous_is_free_when_already_contiguous():
    a = fresh_randn(6, 10)
    assert a.contiguous() is a
    assert a.t().contiguous().data_ptr() != a.data_ptr()  # a transposed view is copied
# --8<-- [end:test-fix]


# --8<-- [start:test-output]
def test_empty_like_keeps_the_strides_of_a_transposed_input():
    x = fresh_randn(6, 10).t()
    assert torch.empty_like(x).stride() == x.stride() == (1, 10)  # preserve_format: not contiguous
    assert torch.empty(x.shape, device=DEVICE).stride() == (6, 1)  # contiguous


def test_pitfall_kernel_that_assumes_a_row_major_output_scrambles_an_empty_like_output():
    x = fresh_randn(6, 10).t()  # (10, 6)
    out = torch.empty_like(x).fill_(float("nan"))  # strides (1, 10), like x
    double_2d[(1, 1)](x, out, 10, 6, x.stride(0), x.stride(1), 6, 1,  # "out is row-major": wrong
                      BLOCK_M=16, BLOCK_N=16)
    # the right values were written in row-major order into memory that `out` reads column-major
    assert torch.equal(out.cpu(), (2 * x).reshape(6, 10).t().cpu())


def test_fix_strides_into_an_empty_like_output_matches_float64():
    x = fresh_randn(6, 10).t()
    out = torch.empty_like(x).fill_(float("nan"))
    assert_matches_float64(double_strided(x, out), 2 * x.double())


def test_flat_kernel_is_right_when_input_and_output_share_a_dense_layout():
    # Elementwise only: storage slot i of out gets f(storage slot i of x)
    for x in (fresh_randn(6, 10).t(), fresh_randn(2, 3, 4, 5).to(memory_format=torch.channels_last)):
        out = torch.empty_like(x).fill_(float("nan"))
        double_flat[(1,)](x, out, x.numel(), BLOCK=128)
        assert_matches_float64(out, 2 * x.double())
# --8<-- [end:test-output]


# --8<-- [start:test-guard]
def test_guard_raises_on_a_non_contiguous_input():
    x = fresh_randn(6, 10).t()
    with pytest.raises(ValueError, match=r"needs a contiguous tensor, got shape \(10, 6\) with strides \(1, 10\)"):
        double_checked(x)


def test_guard_lets_a_contiguous_input_through():
    x = fresh_randn(6, 10)
    assert_matches_float64(double_checked(x), 2 * x.double())
# --8<-- [end:test-guard]


@gpu_evidence("contiguous-vs-strided")
def measure_contiguous_vs_strided():
    """2 * x.t() for a 1 GiB float32 x: .contiguous() + flat kernel vs the stride-aware kernel."""
    side = 16384  # 16384 * 16384 float32 = 1 GiB per tensor, far beyond the 60 MB L2
    a = torch.randn(side, side, device="cuda")
    x = a.t()
    out = torch.empty(side, side, device="cuda")
    n = a.numel()
    useful_bytes = 2 * a.numel() * a.element_size()  # read x once, write out once
    ceiling = copy_ceiling_gbps()

    # every way must give the same right answer before it is timed
    reference = 2 * x
    assert torch.equal(double_contiguous(x), reference)
    assert torch.equal(double_strided(x, out, block=64), reference)
    del reference

    def contiguous_then_flat():
        xc = x.contiguous()
        double_flat[(triton.cdiv(n, 1024),)](xc, out, n, BLOCK=1024)

    ways = [  # names in code, the same on both pages
        ("double_flat(a): contiguous a, no transpose", lambda: double_flat[(triton.cdiv(n, 1024),)](a, out, n, BLOCK=1024)),
        ("x.contiguous() + double_flat", contiguous_then_flat),
        ("x.contiguous() alone", lambda: x.contiguous()),
        ("double_2d(x), 64×64 tiles", lambda: double_strided(x, out, block=64)),
        ("torch.mul(x, 2, out=out)", lambda: torch.mul(x, 2.0, out=out)),
    ]
    rows = [[name, *memory_bound_cells(median_ms(fn), useful_bytes, ceiling)] for name, fn in ways]
    return table([label("what runs (x = a.t(), 1 GiB float32)", "运行的内容（x = a.t()，1 GiB float32）")]
                 + memory_bound_columns(), rows, ceiling_gbps=ceiling, useful_bytes=useful_bytes)


def main():
    print(describe())
    for name, (x, _) in layouts().items():
        wrong = double_pitfall(x)
        print(f"{name:20s} shape {tuple(x.shape)} strides {x.stride()}: flat kernel right? "
              f"{torch.equal(wrong.cpu(), (2 * x).cpu())}; after .contiguous() right? "
              f"{torch.equal(double_contiguous(x).cpu(), (2 * x).cpu())}")
    a = torch.arange(6.0, device=DEVICE).view(2, 3)
    print("a =", a.tolist(), "; a.t() =", a.t().tolist())
    print("flat kernel on a.t():", double_pitfall(a.t()).tolist(), " (2 * a.t() is", (2 * a.t()).tolist(), ")")
    print("stride-aware kernel on a.t():", double_strided(a.t()).tolist())


if __name__ == "__main__":
    main()
