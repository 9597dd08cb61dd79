"""TP003: N is not a multiple of BLOCK_SIZE and the loads and stores have no mask.

Run it: ``python snippets/out_of_bounds/missing_tail_mask.py``
(on a machine without a GPU it runs through Triton's interpreter).

The overrun is shown safely: input and output are views at the start of larger tensors, so
the elements the last block runs into belong to us and hold known values.
"""

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def add_one_pitfall(x_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # no mask
    tl.store(out_ptr + offsets, x + 1.0)  # no mask
# --8<-- [end:pitfall]


# --8<-- [start:load-only]
@triton.jit
def add_one_load_masked(x_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    x = tl.load(x_ptr + offsets, mask=mask)  # the load is masked...
    tl.store(out_ptr + offsets, x + 1.0)  # ...the store is not
# --8<-- [end:load-only]


# --8<-- [start:fix]
@triton.jit
def add_one(x_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + 1.0, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:guarded]
SENTINEL = 1000.0  # the input's neighbours hold 1000, 1001, 1002, ...


def guarded_launch(kernel, n, block_size, spare=32):
    """Launch `kernel` on x = xbuf[:n], out = outbuf[:n]; return x and both whole buffers.

    xbuf[n:] holds SENTINEL + 0, 1, 2, ... and outbuf[n:] holds NaN, so whatever the kernel
    reads or writes past element n shows up, and it stays inside memory we own.
    """
    xbuf = torch.empty(n + spare, device=DEVICE)
    xbuf[:n] = fresh_randn(n)
    xbuf[n:] = SENTINEL + torch.arange(spare, device=DEVICE)
    outbuf = poisoned(n + spare)
    x, out = xbuf[:n], outbuf[:n]
    grid = (triton.cdiv(n, block_size),)
    kernel[grid](x, out, n, BLOCK_SIZE=block_size)
    return x, xbuf, outbuf
# --8<-- [end:guarded]


# --8<-- [start:test-pitfall]
def test_pitfall_last_block_reads_the_elements_after_the_input():
    # N = 10, BLOCK_SIZE = 8: two programs, the second covers offsets 8..15
    x, xbuf, outbuf = guarded_launch(add_one_pitfall, n=10, block_size=8)
    # offsets 10..15 read the 6 sentinels behind x, and the kernel added one to them
    assert outbuf[10:16].tolist() == [1001.0, 1002.0, 1003.0, 1004.0, 1005.0, 1006.0]


@pytest.mark.parametrize("n, overrun", [(10, 6), (13, 3), (16, 0)])
def test_pitfall_last_block_writes_the_elements_after_the_output(n, overrun):
    x, xbuf, outbuf = guarded_launch(add_one_pitfall, n=n, block_size=8)
    end = n + overrun  # the grid covers cdiv(n, 8) * 8 offsets
    assert not torch.isnan(outbuf[n:end]).any()  # overwritten: it was NaN
    assert torch.isnan(outbuf[end:]).all()  # nothing past the last block is touched
    assert_matches_float64(outbuf[:n], x.double() + 1)  # and the real result looks fine
# --8<-- [end:test-pitfall]


# --8<-- [start:test-load-only]
def test_masking_only_the_load_still_writes_after_the_output():
    x, xbuf, outbuf = guarded_launch(add_one_load_masked, n=10, block_size=8)
    # the masked lanes load 0 (see TP001), so 0 + 1 lands on the 6 elements after out
    assert outbuf[10:16].tolist() == [1.0] * 6
# --8<-- [end:test-load-only]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 31, 32, 33, 100])
def test_fix_matches_float64_and_leaves_the_neighbours_alone(n):
    x, xbuf, outbuf = guarded_launch(add_one, n=n, block_size=32)
    assert_matches_float64(outbuf[:n], x.double() + 1)
    assert torch.isnan(outbuf[n:]).all()
# --8<-- [end:test-fix]


@gpu_evidence("tail-overrun")
def observe_tail_overrun():
    """What each kernel leaves in outbuf[N:] on the GPU (NaN before; xbuf[N:] holds 1000, 1001, ...)."""
    rows = []
    cases = [("add_one_pitfall", add_one_pitfall, n) for n in (10, 13, 16)]
    cases += [("add_one_load_masked", add_one_load_masked, 10), ("add_one", add_one, 10)]
    for name, kernel, n in cases:
        x, xbuf, outbuf = guarded_launch(kernel, n=n, block_size=8)
        after = outbuf[n:].cpu()
        written = int((~torch.isnan(after)).sum())
        rows.append([f"`{name}`", n, 8, triton.cdiv(n, 8) * 8 - n, [str(v) for v in after[:8].tolist()], written])
    return table(
        [label("kernel", "内核"), label("N", "N"), label("BLOCK_SIZE", "BLOCK_SIZE"),
         label("offsets of the last block past N", "最后一个块越过 N 的偏移数"),
         label("outbuf[N:N+8] after the launch", "启动后的 outbuf[N:N+8]"),
         label("elements of outbuf[N:] no longer NaN", "outbuf[N:] 中不再是 NaN 的元素数")],
        rows,
    )


def main():
    print(describe())
    for name, kernel in [("pitfall", add_one_pitfall), ("load-only mask", add_one_load_masked), ("fix", add_one)]:
        x, xbuf, outbuf = guarded_launch(kernel, n=10, block_size=8, spare=8)
        print(f"{name:15} N=10, BLOCK_SIZE=8  outbuf[10:18] = {outbuf[10:].cpu().tolist()}")
    print("(outbuf[10:] starts as NaN; xbuf[10:] holds 1000, 1001, ...)")


if __name__ == "__main__":
    main()
