"""The kernels the checkers are compared on: buggy ones, each with the bug it has, and correct ones.

Most come from the handbook's entries (their reader's files, unchanged); the view cases are
written here. Each case is a function that launches its kernel(s) on ``DEVICE`` and, for a
correct case, asserts the result, saying how many output elements are wrong. Imported only in
the child process that runs one case, after the tool under test has been set up
(``tooling/checkers_compared.py``). The page docs/en/debugging/checked-interpreter.md shows the
sections ``flat-copy``, ``tile-2d``, ``column-slice-read-flat``, ``two-pass-sum`` and ``two-pass``.
"""

import os

import torch

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

from snippets.debugging import compute_sanitizer as tp015  # noqa: E402
from snippets.debugging import finding_an_illegal_memory_access as tp023  # noqa: E402
from snippets.debugging import interpreter_mode as tp012  # noqa: E402
from snippets.garbage_values import store_race_between_programs as tp005  # noqa: E402
from snippets.out_of_bounds import what_an_overrun_does as tp004  # noqa: E402


# --8<-- [start:flat-copy]
@triton.jit
def flat_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)  # element i at offset i
# --8<-- [end:flat-copy]


# --8<-- [start:tile-2d]
@triton.jit
def tile_2d(x_ptr, y_ptr, rows, cols, sxr, sxc, syr, syc, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)[:, None]
    c = tl.program_id(1) * BC + tl.arange(0, BC)[None, :]
    mask = (r < rows) & (c < cols)
    tl.store(y_ptr + r * syr + c * syc, tl.load(x_ptr + r * sxr + c * sxc, mask=mask) * 2, mask=mask)
# --8<-- [end:tile-2d]


def _sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def _expect(out, expected):
    """Assert ``out`` (filled with NaN before the launch) equals ``expected``; say how much is wrong."""
    _sync()
    wrong = int((out != expected).sum())
    assert wrong == 0, (f"{wrong} of {out.numel()} output elements are wrong, "
                        f"{int(out.isnan().sum())} of them still the NaN the output was filled with")


# -- buggy ---------------------------------------------------------------------------------------

def tail_overrun():
    """TP012: an unmasked copy of 8 lanes from a 4-element tensor (the next 4 floats are a neighbour's)."""
    x, _ = tp012.neighbours(n=4, block=8)
    tp012.copy_without_mask[(1,)](x, torch.zeros(8, device=DEVICE), 4, BLOCK=8)


def tail_overrun_own_allocation():
    """TP004: 8 lanes read 8 elements past the end of an 8-element tensor that is its own allocation."""
    x = torch.arange(8, dtype=torch.float32, device=DEVICE)
    tp004.copy_at[(1,)](x, torch.zeros(8, device=DEVICE), tp004.NEAR, BLOCK=8)


def far_overrun():
    """TP004: 8 lanes read 2**40 elements past the start of an 8-element tensor."""
    x = torch.arange(8, dtype=torch.float32, device=DEVICE)
    tp004.copy_at[(1,)](x, torch.zeros(8, device=DEVICE), tp004.FAR, BLOCK=8)


def wrong_stride_in_a_buffer():
    """TP015: a row stride of 8 for rows 4 apart: reads past the view, inside its buffer."""
    tp015.row_sums_wrong_stride(tp015.rows_of_a_buffer(), torch.zeros(tp015.ROWS, device=DEVICE))


def bad_gather_index():
    """TP023: a gather whose index is 2**34 in a 1,000-row table."""
    table = torch.randn(tp023.N_ROWS, tp023.D, device=DEVICE)
    tp023.embed(table, torch.tensor([3, 1, tp023.BAD_INDEX, 7], device=DEVICE))


# --8<-- [start:column-slice-read-flat]
def column_slice_read_flat():
    """A flat kernel given x[:, :3] of a 4 x 8 tensor: offsets 3..11 are inside the span, not in the view."""
    x = torch.randn(4, 8, device=DEVICE)[:, :3]
    flat_copy[(1,)](x, torch.zeros(12, device=DEVICE), 12, BLOCK=16)
# --8<-- [end:column-slice-read-flat]


def step_2_view_read_flat():
    """A flat kernel given x[::2]: the odd offsets are inside the span, not in the view."""
    x = torch.randn(16, device=DEVICE)[::2]
    flat_copy[(1,)](x, torch.zeros(8, device=DEVICE), 8, BLOCK=8)


def racy_counter():
    """TP005: 64 programs load, add 1 to and store one counter."""
    tp005.count(tp005.count_racy, 64)


def racy_histogram():
    """TP005: programs load-add-store shared bins."""
    x = torch.randint(0, 4, (256,), dtype=torch.int32, device=DEVICE)
    tp005.histogram(tp005.histogram_racy, x, 4, 16)


# -- correct -------------------------------------------------------------------------------------

def masked_copy():
    """TP012's fix: the masked copy of 4 elements in 8 lanes."""
    out = tp012.copy_block(tp012.copy_with_mask)  # NaN-filled, 8 lanes, 4 elements
    _expect(out[:4], torch.arange(4, dtype=torch.float32, device=DEVICE))


def _tile(x):
    y = torch.full((x.shape[1], x.shape[0]), float("nan"), device=DEVICE).t()
    tile_2d[(triton.cdiv(x.shape[0], 16), triton.cdiv(x.shape[1], 16))](
        x, y, x.shape[0], x.shape[1], *x.stride(), *y.stride(), BR=16, BC=16)
    _expect(y, x * 2)


def tile_on_a_column_slice():
    """A 2-D kernel that uses the strides, on x[:, :3]."""
    _tile(torch.randn(40, 8, device=DEVICE)[:, :3])


def tile_on_a_step_2_view():
    """A 2-D kernel that uses the strides, on x[::2, ::2]."""
    _tile(torch.randn(40, 36, device=DEVICE)[::2, ::2])


def tile_on_a_transposed_input():
    """A 2-D kernel that uses the strides, on x.t()."""
    _tile(torch.randn(36, 40, device=DEVICE).t())


def tile_on_an_expanded_input():
    """A 2-D kernel that uses the strides, on a row expanded to 20 rows (stride 0)."""
    _tile(torch.randn(1, 40, device=DEVICE).expand(20, 40))


def atomic_counter():
    """TP005's fix: 64 programs add 1 with tl.atomic_add."""
    counted = tp005.count(tp005.count_atomic, 64)
    assert counted == 64, f"the counter is {counted}, not 64"


def gather_valid_indices():
    """TP023: the same gather with indices inside the table."""
    table = torch.randn(tp023.N_ROWS, tp023.D, device=DEVICE)
    idx = torch.tensor([3, 1, 999, 7], device=DEVICE)
    out = torch.full((len(idx), tp023.D), float("nan"), device=DEVICE)
    tp023.gather_rows[(len(idx),)](table, idx, out, tp023.D, BLOCK=triton.next_power_of_2(tp023.D))  # as embed()
    _expect(out, table[idx])


# -- synchronised through atomics; a view with a storage offset ------------------------------------

@triton.jit
def locked_column_sums(x_ptr, acc_ptr, lock_ptr, count_ptr, cols, BLOCK: tl.constexpr):
    """Each row added into one accumulator under a spin lock (Triton's layer-norm backward tutorial)."""
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    part = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(count_ptr)
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        part += tl.load(acc_ptr + c, mask=mask)
    tl.store(acc_ptr + c, part, mask=mask)
    tl.atomic_xchg(lock_ptr, 0)


# --8<-- [start:two-pass-sum]
@triton.jit
def two_pass_sum(x_ptr, partial_ptr, ticket_ptr, out_ptr, n, BLOCK: tl.constexpr, PROGRAMS: tl.constexpr,
                 SEM: tl.constexpr):
    """Each program stores its partial sum and takes a ticket; the last one adds up the partials."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(partial_ptr + pid, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))
    if tl.atomic_add(ticket_ptr, 1, sem=SEM) == tl.num_programs(0) - 1:
        r = tl.arange(0, PROGRAMS)
        tl.store(out_ptr, tl.sum(tl.load(partial_ptr + r, mask=r < tl.num_programs(0), other=0.0)))
# --8<-- [end:two-pass-sum]


# --8<-- [start:grouped-double]
@triton.jit
def grouped_double(src_ptrs, dst_ptrs, sizes_ptr, BLOCK: tl.constexpr):
    """Group g doubles tensor g: its pointers come from tensors of data_ptr() values (grouped GEMM's way)."""
    g = tl.program_id(0)
    n = tl.load(sizes_ptr + g)
    src = tl.load(src_ptrs + g).to(tl.pointer_type(tl.float32))
    dst = tl.load(dst_ptrs + g).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n) * 2, mask=offs < n)


def addresses(tensors):
    return torch.tensor([t.data_ptr() for t in tensors], dtype=torch.int64, device=DEVICE)
# --8<-- [end:grouped-double]


def spin_lock():
    """Eight rows added into one accumulator under a spin lock (tl.atomic_cas / tl.atomic_xchg)."""
    x = torch.randn(8, 40, device=DEVICE)
    acc = torch.full((40,), float("nan"), device=DEVICE)
    locked_column_sums[(8,)](x, acc, torch.zeros(1, dtype=torch.int32, device=DEVICE),
                             torch.zeros(1, dtype=torch.int32, device=DEVICE), 40, BLOCK=64)
    _sync()
    assert torch.allclose(acc, x.sum(0), atol=1e-4), "the accumulated sums are wrong"


# --8<-- [start:two-pass]
def two_pass(sem):
    x = torch.randn(1000, device=DEVICE)
    partial = torch.full((8,), float("nan"), device=DEVICE)
    out = torch.full((1,), float("nan"), device=DEVICE)
    two_pass_sum[(8,)](x, partial, torch.zeros(1, dtype=torch.int32, device=DEVICE), out, 1000, BLOCK=128,
                       PROGRAMS=8, SEM=sem)
    assert torch.allclose(out, x.sum().reshape(1), atol=1e-3), f"the sum is {out.item()}, not {x.sum().item()}"
# --8<-- [end:two-pass]


def ticket_counter():
    """The last program to take a ticket (tl.atomic_add, acq_rel) adds up the partials."""
    two_pass("acq_rel")


def ticket_counter_relaxed():
    """The same with sem="relaxed": the last program's loads of the partials are not ordered after their stores."""
    two_pass("relaxed")


def tile_on_an_offset_view():
    """A 2-D kernel that uses the strides, on x[5:, 3:] (a storage offset of 5 rows and 3 columns)."""
    _tile(torch.randn(40, 36, device=DEVICE)[5:, 3:])


BUGGY = {
    "tail-overrun": ("out of bounds, inside the buffer", tail_overrun),
    "tail-overrun-own-allocation": ("out of bounds, own allocation", tail_overrun_own_allocation),
    "far-overrun": ("out of bounds, far", far_overrun),
    "wrong-stride-in-a-buffer": ("out of bounds, inside the buffer", wrong_stride_in_a_buffer),
    "bad-gather-index": ("out of bounds, far", bad_gather_index),
    "column-slice-read-flat": ("outside the view, inside its span", column_slice_read_flat),
    "step-2-view-read-flat": ("outside the view, inside its span", step_2_view_read_flat),
    "racy-counter": ("race between programs", racy_counter),
    "racy-histogram": ("race between programs", racy_histogram),
    "ticket-counter-relaxed": ("race between programs", ticket_counter_relaxed),
}
CORRECT = {
    "masked-copy": ("correct", masked_copy),
    "tile-on-a-column-slice": ("correct", tile_on_a_column_slice),
    "tile-on-a-step-2-view": ("correct", tile_on_a_step_2_view),
    "tile-on-a-transposed-input": ("correct", tile_on_a_transposed_input),
    "tile-on-an-expanded-input": ("correct", tile_on_an_expanded_input),
    "atomic-counter": ("correct", atomic_counter),
    "gather-valid-indices": ("correct", gather_valid_indices),
    "tile-on-an-offset-view": ("correct", tile_on_an_offset_view),
    "spin-lock": ("correct", spin_lock),
    "ticket-counter": ("correct", ticket_counter),
}
CASES = {**BUGGY, **CORRECT}
