"""Kernels written for the patterns real code uses, each correct one beside the mistakes made with it.

Synchronisation through atomics (a spin lock around plain loads and stores, as in Triton's
layer-norm backward tutorial; a ticket counter whose last program adds up the partials, as
split-K and two-pass reductions do; a flag one program sets and another waits on), the same
kernels with the atomics made relaxed, release-only, CTA-scoped or removed, and with an access
moved out of the critical section; pointers loaded from a tensor of ``data_ptr()`` values (the
grouped GEMM tutorial's way); a view with a storage offset; an expanded (stride 0) output; an
int32 offset that overflows; a store without its column mask.

Every correct kernel must run silent and give the right result; every buggy one must be
reported, with a message that points to the fix.
"""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import triton
import triton.language as tl

from triton_checked import DataRace, OutOfBounds, checked

pytestmark = pytest.mark.interpreter  # the checks run kernels under Triton's interpreter

ROWS, COLS, BLOCK = 6, 40, 64


# -- a spin lock around plain loads and stores (Triton's layer-norm backward tutorial) -------------

@triton.jit
def locked_column_sums(x_ptr, acc_ptr, lock_ptr, count_ptr, cols, BLOCK: tl.constexpr,
                       TAKE: tl.constexpr, GIVE: tl.constexpr, LOCK: tl.constexpr, STORE_OUTSIDE: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    part = tl.load(x_ptr + row * cols + c, mask=mask, other=0.0)
    if LOCK:
        while tl.atomic_cas(lock_ptr, 0, 1, sem=TAKE) == 1:
            pass
    count = tl.load(count_ptr)
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        part += tl.load(acc_ptr + c, mask=mask)
    if not STORE_OUTSIDE:
        tl.store(acc_ptr + c, part, mask=mask)
    if LOCK:
        tl.atomic_xchg(lock_ptr, 0, sem=GIVE)
    if STORE_OUTSIDE:
        tl.store(acc_ptr + c, part, mask=mask)  # after the lock is given back


def _locked(take="acq_rel", give="acq_rel", lock=True, store_outside=False):
    x = torch.randn(ROWS, COLS)
    acc = torch.full((COLS,), float("nan"))
    lock_, count = torch.zeros(1, dtype=torch.int32), torch.zeros(1, dtype=torch.int32)
    locked_column_sums[(ROWS,)](x, acc, lock_, count, COLS, BLOCK=BLOCK, TAKE=take, GIVE=give, LOCK=lock,
                                STORE_OUTSIDE=store_outside)
    return x, acc


@pytest.mark.parametrize("take, give", [("acq_rel", "acq_rel"), ("acquire", "release")])
def test_spin_lock_is_silent_and_right(take, give):
    with checked():
        x, acc = _locked(take, give)
    torch.testing.assert_close(acc.double(), x.double().sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("take, give", [("relaxed", "relaxed"), ("acquire", "relaxed"), ("relaxed", "release")])
def test_spin_lock_with_relaxed_atomics_is_a_race(take, give):
    with checked(), pytest.raises(DataRace):
        _locked(take, give)


def test_spin_lock_removed_is_a_race():
    with checked(), pytest.raises(DataRace):
        _locked(lock=False)


def test_store_after_the_lock_is_given_back_is_a_race():
    with checked(), pytest.raises(DataRace, match="tl.store"):
        _locked(store_outside=True)


# -- the last program adds up the partials (an atomic ticket counter) -----------------------------

@triton.jit
def two_pass_sum(x_ptr, partial_ptr, ticket_ptr, out_ptr, n, BLOCK: tl.constexpr, PROGRAMS: tl.constexpr,
                 SEM: tl.constexpr, SCOPE: tl.constexpr, TICKET: tl.constexpr, PARTIAL_AFTER: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0))
    if not PARTIAL_AFTER:
        tl.store(partial_ptr + pid, part)
    if TICKET:
        ticket = tl.atomic_add(ticket_ptr, 1, sem=SEM, scope=SCOPE)
    else:
        ticket = pid  # "the last program": by its id, not by when it got there
    if PARTIAL_AFTER:
        tl.store(partial_ptr + pid, part)
    if ticket == tl.num_programs(0) - 1:
        r = tl.arange(0, PROGRAMS)
        tl.store(out_ptr, tl.sum(tl.load(partial_ptr + r, mask=r < tl.num_programs(0), other=0.0)))


def _two_pass(sem="acq_rel", ticket=True, partial_after=False, scope="gpu"):
    n, block = 1000, 128
    programs = triton.cdiv(n, block)
    x = torch.randn(n)
    partial, out = torch.full((programs,), float("nan")), torch.full((1,), float("nan"))
    two_pass_sum[(programs,)](x, partial, torch.zeros(1, dtype=torch.int32), out, n, BLOCK=block,
                              PROGRAMS=triton.next_power_of_2(programs), SEM=sem, SCOPE=scope, TICKET=ticket,
                              PARTIAL_AFTER=partial_after)
    return x, out


@pytest.mark.parametrize("scope", ["gpu", "sys"])
def test_ticket_counter_is_silent_and_right(scope):
    with checked():
        x, out = _two_pass(scope=scope)
    assert out.item() == pytest.approx(x.double().sum().item(), rel=1e-5, abs=1e-4)


@pytest.mark.parametrize("sem", ["relaxed", "release", "acquire"])
def test_ticket_counter_without_acquire_and_release_is_a_race(sem):
    """relaxed orders nothing; release alone does not let the last program see the partials; acquire
    alone does not publish them."""
    with checked(), pytest.raises(DataRace, match="partial_ptr"):
        _two_pass(sem)


def test_last_program_by_id_instead_of_ticket_is_a_race():
    with checked(), pytest.raises(DataRace, match="partial_ptr"):
        _two_pass(ticket=False)


def test_partial_stored_after_taking_the_ticket_is_a_race():
    with checked(), pytest.raises(DataRace, match="partial_ptr"):
        _two_pass(partial_after=True)


@triton.jit
def split_k_rows(a_ptr, partial_ptr, tickets_ptr, out_ptr, K, SPLITS: tl.constexpr, BK: tl.constexpr):
    """Row m of a (M, K) matrix summed by SPLITS programs; the last of them per row adds the partials."""
    m, s = tl.program_id(0), tl.program_id(1)
    k = s * BK + tl.arange(0, BK)
    tl.store(partial_ptr + m * SPLITS + s, tl.sum(tl.load(a_ptr + m * K + k, mask=k < K, other=0.0)))
    if tl.atomic_add(tickets_ptr + m, 1) == SPLITS - 1:
        r = tl.arange(0, SPLITS)
        tl.store(out_ptr + m, tl.sum(tl.load(partial_ptr + m * SPLITS + r)))


def test_split_k_tickets_on_a_2d_grid_are_silent_and_right():
    a = torch.randn(5, 256)
    partial, out = torch.full((5, 4), float("nan")), torch.full((5,), float("nan"))
    with checked():
        split_k_rows[(5, 4)](a, partial, torch.zeros(5, dtype=torch.int32), out, 256, SPLITS=4, BK=64)
    torch.testing.assert_close(out.double(), a.double().sum(1), rtol=1e-5, atol=1e-4)


# -- a flag one program sets and another waits on -------------------------------------------------

@triton.jit
def publish_then_read(src_ptr, data_ptr, flag_ptr, out_ptr, BLOCK: tl.constexpr,
                      SET: tl.constexpr, WAIT: tl.constexpr, WAITS: tl.constexpr, SCOPE: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if pid == 0:
        tl.store(data_ptr + offs, tl.load(src_ptr + offs) * 2)
        tl.atomic_xchg(flag_ptr, 1, sem=SET, scope=SCOPE)
    else:
        if WAITS:
            while tl.atomic_cas(flag_ptr, 1, 1, sem=WAIT, scope=SCOPE) != 1:
                pass
        tl.store(out_ptr + (pid - 1) * BLOCK + offs, tl.load(data_ptr + offs) + pid)


def _publish(set_sem="release", wait_sem="acquire", waits=True, scope="gpu", readers=3):
    src = torch.randn(32)
    data, out = torch.full((32,), float("nan")), torch.full((readers, 32), float("nan"))
    publish_then_read[(readers + 1,)](src, data, torch.zeros(1, dtype=torch.int32), out, BLOCK=32, SET=set_sem,
                                      WAIT=wait_sem, WAITS=waits, SCOPE=scope)
    return src, out


@pytest.mark.parametrize("set_sem, wait_sem", [("release", "acquire"), ("acq_rel", "acq_rel")])
def test_flag_set_and_waited_on_is_silent_and_right(set_sem, wait_sem):
    with checked():
        src, out = _publish(set_sem, wait_sem)
    assert torch.equal(out, src * 2 + torch.arange(1, 4)[:, None])


@pytest.mark.parametrize("set_sem, wait_sem", [("relaxed", "acquire"), ("release", "relaxed")])
def test_flag_with_a_relaxed_side_is_a_race(set_sem, wait_sem):
    with checked(), pytest.raises(DataRace, match="data_ptr"):
        _publish(set_sem, wait_sem)


def test_reading_without_waiting_for_the_flag_is_a_race():
    with checked(), pytest.raises(DataRace, match="data_ptr"):
        _publish(waits=False)


def test_a_cta_scoped_flag_does_not_order_programs():
    with checked(), pytest.raises(DataRace, match="data_ptr"):
        _publish(scope="cta")


@triton.jit
def chained_prefix(x_ptr, out_ptr, flags_ptr, BLOCK: tl.constexpr):
    """Program i waits for program i-1's flag, adds its running total, publishes its own (a look-back chain)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x_ptr + offs))
    if pid > 0:
        while tl.atomic_add(flags_ptr + pid - 1, 0) == 0:
            pass
        total += tl.load(out_ptr + pid - 1)
    tl.store(out_ptr + pid, total)
    tl.atomic_xchg(flags_ptr + pid, 1)


def test_a_chain_of_flags_orders_every_program_after_the_one_before():
    x = torch.randn(8 * 32)
    out = torch.full((8,), float("nan"))
    with checked():
        chained_prefix[(8,)](x, out, torch.zeros(8, dtype=torch.int32), BLOCK=32)
    torch.testing.assert_close(out.double(), x.double().view(8, 32).sum(1).cumsum(0), rtol=1e-5, atol=1e-4)


# -- pointers from a tensor of data_ptr() values (the grouped GEMM tutorial's way) -------------------

@triton.jit
def grouped_double(src_ptrs, dst_ptrs, sizes_ptr, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    n = tl.load(sizes_ptr + g)
    src = tl.load(src_ptrs + g).to(tl.pointer_type(tl.float32))
    dst = tl.load(dst_ptrs + g).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n) * 2, mask=offs < n)


def _groups(sizes=(5, 17, 32), claimed=None):
    srcs = [torch.randn(n) for n in sizes]
    dsts = [torch.full((n,), float("nan")) for n in sizes]
    src_ptrs = torch.tensor([t.data_ptr() for t in srcs], dtype=torch.int64)
    dst_ptrs = torch.tensor([t.data_ptr() for t in dsts], dtype=torch.int64)
    size_t = torch.tensor(claimed or sizes, dtype=torch.int32)
    return srcs, dsts, (src_ptrs, dst_ptrs, size_t)


@pytest.mark.parametrize("how", ["registered", "live"])
def test_pointers_from_a_tensor_of_addresses_are_checked_and_right(how):
    srcs, dsts, args = _groups()
    with checked(pointers_into=[*srcs, *dsts] if how == "registered" else "live"):
        grouped_double[(3,)](*args, BLOCK=32)
    for s, d in zip(srcs, dsts):
        assert torch.equal(d, s * 2)


def test_a_group_larger_than_its_tensor_is_out_of_bounds():
    srcs, dsts, args = _groups(claimed=(5, 20, 32))
    with checked(pointers_into=[*srcs, *dsts]), pytest.raises(OutOfBounds, match="element offset 17"):
        grouped_double[(3,)](*args, BLOCK=32)


def test_a_pointer_into_no_registered_tensor_is_reported():
    srcs, dsts, args = _groups()
    with checked(pointers_into=srcs), pytest.raises(OutOfBounds, match="pointers_into"):
        grouped_double[(3,)](*args, BLOCK=32)  # the destinations were not registered


# -- views: a storage offset, an expanded output ------------------------------------------------------

@triton.jit
def copy_block(x_ptr, y_ptr, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs + SHIFT, mask=mask), mask=mask)  # SHIFT < 0: reads before x


def test_a_view_with_a_storage_offset_is_silent_and_right():
    base = torch.randn(64)
    x, y = base[7:47], torch.full((40,), float("nan"))
    with checked():
        copy_block[(3,)](x, y, 40, SHIFT=0, BLOCK=16)
    assert torch.equal(y, base[7:47])


def test_reading_before_a_view_with_a_storage_offset_is_out_of_bounds():
    base = torch.randn(64)
    with checked(), pytest.raises(OutOfBounds, match="element offset -3"):
        copy_block[(3,)](base[7:47], torch.zeros(40), 40, SHIFT=-3, BLOCK=16)


@triton.jit
def scale_rows_2d(x_ptr, y_ptr, cols, sxr, sxc, syr, syc, BC: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BC)
    mask = c < cols
    tl.store(y_ptr + r * syr + c * syc, tl.load(x_ptr + r * sxr + c * sxc, mask=mask) * (r + 1), mask=mask)


def test_an_expanded_output_is_a_race_and_stride_0_is_named():
    x = torch.randn(4, 8)
    y = torch.zeros(1, 8).expand(4, 8)  # four rows, one row of memory
    with checked(), pytest.raises(DataRace, match=r"(?s)stride 0"):
        scale_rows_2d[(4,)](x, y, 8, *x.stride(), *y.stride(), BC=8)


def test_a_contiguous_output_of_an_expanded_input_is_silent_and_right():
    x = torch.randn(1, 8).expand(4, 8)
    y = torch.full((4, 8), float("nan"))
    with checked():
        scale_rows_2d[(4,)](x, y, 8, *x.stride(), *y.stride(), BC=8)
    assert torch.equal(y, x * torch.arange(1, 5)[:, None])


# -- an int32 offset that overflows; the int64 fix on a 2 GiB tensor ---------------------------------

@triton.jit
def read_row(x_ptr, out_ptr, row, stride, WIDE: tl.constexpr, BLOCK: tl.constexpr):
    if WIDE:
        start = row.to(tl.int64) * stride
    else:
        start = row * stride  # int32: wraps past 2**31
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + start + offs))


BIG_ROWS, BIG_STRIDE = 2 ** 15 + 2, 2 ** 16  # 2**31 + 2**17 one-byte elements: row 2**15 starts at 2**31


def test_an_int32_offset_overflow_is_reported_with_the_hint():
    x = torch.empty(BIG_ROWS * BIG_STRIDE, dtype=torch.int8)  # 2 GiB of address space, never touched
    out = torch.zeros(16, dtype=torch.int8)
    with checked(), pytest.raises(OutOfBounds, match=r"(?s)element offset -2147483648.*2\*\*32.*int64"):
        read_row[(1,)](x, out, 2 ** 15, BIG_STRIDE, WIDE=False, BLOCK=16)


def test_the_int64_fix_on_a_2_gib_tensor_is_silent_and_right():
    x = torch.empty(BIG_ROWS * BIG_STRIDE, dtype=torch.int8)
    x[2 ** 31:2 ** 31 + 16] = torch.arange(16, dtype=torch.int8)
    out = torch.zeros(16, dtype=torch.int8)
    with checked():
        read_row[(1,)](x, out, 2 ** 15, BIG_STRIDE, WIDE=True, BLOCK=16)
    assert torch.equal(out, torch.arange(16, dtype=torch.int8))


# -- a store without its column mask ----------------------------------------------------------------

@triton.jit
def copy_rows(x_ptr, y_ptr, cols, COLUMN_MASK: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BC)
    x = tl.load(x_ptr + r * cols + c, mask=c < cols, other=0.0)
    if COLUMN_MASK:
        tl.store(y_ptr + r * cols + c, x, mask=c < cols)
    else:
        tl.store(y_ptr + r * cols + c, x)  # BC > cols: the tail lands in the next row


def test_a_row_copy_with_its_column_mask_is_silent_and_right():
    x, y = torch.randn(ROWS, COLS), torch.full((ROWS, COLS), float("nan"))
    with checked():
        copy_rows[(ROWS,)](x, y, COLS, COLUMN_MASK=True, BC=BLOCK)
    assert torch.equal(y, x)


def test_a_missing_column_mask_says_check_the_mask_with_row_and_column():
    x, y = torch.randn(ROWS, COLS), torch.zeros(ROWS, COLS)
    with checked(), pytest.raises(DataRace) as report:
        copy_rows[(ROWS,)](x, y, COLS, COLUMN_MASK=False, BC=BLOCK)
    message = str(report.value)
    assert "mask" in message and "use an atomic" not in message
    assert "row 1, column 0" in message


# -- the record's budget ---------------------------------------------------------------------------

@triton.jit
def copy_all(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_past_its_budget_the_launch_is_checked_for_bounds_only_with_a_one_line_notice(capfd):
    n = 1 << 16  # two tensors of 64 pages each: 3.5 MiB of record, over a 1 MiB budget
    x, y = torch.randn(n), torch.full((n,), float("nan"))
    with checked(record_mib=1):
        copy_all[(n // 1024,)](x, y, n, BLOCK=1024)
    assert torch.equal(y, x)
    notice = capfd.readouterr().err.strip().splitlines()
    assert notice == ["triton_checked: kernel copy_all: the race record would pass its 1 MiB budget "
                      "(TRITON_CHECKED_RECORD_MIB); this launch is checked for bounds only"]
    with checked(record_mib=1), pytest.raises(OutOfBounds, match="element offset 65536"):
        copy_all[(n // 1024 + 1,)](x, y, n + 1024, BLOCK=1024)  # bounds are still checked


# -- allow_base for some arguments only ---------------------------------------------------------------

def test_allow_base_names_the_arguments_it_applies_to():
    buffer, out = torch.randn(64), torch.full((64,), float("nan"))
    x = buffer[:40]  # the kernel reads 48 elements: 8 past the view, inside its allocation
    with checked(allow_base={"x_ptr"}):
        copy_block[(3,)](x, out, 48, SHIFT=0, BLOCK=16)
    assert torch.equal(out[:48], buffer[:48])
    with checked(allow_base={"y_ptr"}), pytest.raises(OutOfBounds, match="argument x_ptr: element offset 40"):
        copy_block[(3,)](x, out, 48, SHIFT=0, BLOCK=16)
    with pytest.raises(TypeError, match="argument names"):
        with checked(allow_base="x_ptr"):
            pass


# -- the command: pointers loaded from memory, checked against every live tensor -----------------------

GROUPED = textwrap.dedent("""
    import torch, triton, triton.language as tl

    @triton.jit
    def double(ptrs, n, BLOCK: tl.constexpr):
        src = tl.load(ptrs).to(tl.pointer_type(tl.float32))
        offs = tl.arange(0, BLOCK)
        tl.store(src + offs, tl.load(src + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.randn(10)
    double[(1,)](torch.tensor([x.data_ptr()]), 10, BLOCK=16)
    print("finished")
    double[(1,)](torch.tensor([x.data_ptr()]), 12, BLOCK=16)
""")


def test_the_command_checks_loaded_pointers_against_live_tensors(tmp_path):
    (tmp_path / "grouped.py").write_text(GROUPED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_FAQ")}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-m", "triton_checked", "--pointers-into", "live", "grouped.py"],
                            capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert result.returncode == 1 and "finished" in result.stdout, result.stderr
    assert ("tensor alive at the launch, of shape (10,): element offset 10 (2 lanes out of bounds, offsets 10..11); "
            "its base allocation has 10 elements") in result.stderr
    assert "launched from grouped.py:13 in <module>" in result.stderr
