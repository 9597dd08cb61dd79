"""Races between the programs of one launch: a happens-before record, ordered by each atomic's ``sem``.

Triton's interpreter runs a launch's programs one after another, each to its end (x, then y,
then z, in ``GridExecutor.__call__``), so a race never shows there as a wrong number; it is found
from the order the memory model guarantees, not the order the interpreter happened to use. As
race detectors for CPU threads do (FastTrack's epochs and vector clocks):

* each program has an *epoch*, the number of releasing atomics it has done so far, and a *vector
  clock*: for every other program, the latest epoch of it whose memory effects it has acquired;
* each element a releasing atomic touched keeps a clock, the join of its releasers' clocks;
* an atomic with acquire semantics (``sem="acquire"`` or ``"acq_rel"``, Triton's default) joins the
  element's clock into the program's; one with release semantics (``"release"``, ``"acq_rel"``)
  joins the program's clock (with its current epoch) into the element's and starts a new epoch;
  ``"relaxed"`` does neither, and ``scope="cta"`` orders nothing between programs (each program is
  one CTA); a compare-and-swap releases only where it swapped;
* an earlier access of program r at epoch t happens before the current one of program p when
  r == p or p's clock holds r at t or later. Two accesses to one element by different programs,
  at least one a store, neither happening before the other, are a race; two atomics never are.

Within one program: the interpreter runs a program's statements on whole blocks, one after another,
but on a GPU a block's elements are spread over the program's threads, and two accesses to one
element by different threads are not ordered unless ``tl.debug_barrier()`` separates them. A lane
is an element's position in the tensor of pointers of an access (its shape and flat index): two
accesses of one element at the same position of tensors of the same shape are taken as one thread's,
in program order; any other pair, at least one a store, with no barrier between, is a race. A
duplicate address within one access is not reported (its lanes store at once; which one lands is
unspecified, and kernels that store one value from several lanes are common).

Memory: per storage, pages of ``PAGE`` (1,024) elements, allocated when a launch first touches one; each
touched element costs ``FIELDS`` int32 (28 bytes). Clocks and reader sets are arrays with one slot
per program, reference-counted, shared by the elements that hold the same one, and updated in
place when nothing else holds them. ``OverBudget`` is raised when the record would pass its budget.
"""

from __future__ import annotations

import numpy as np

PAGE_BITS = 10
PAGE = 1 << PAGE_BITS
_MASK = PAGE - 1
FIELDS = 7
W, WE, WS, R, RE, RS, SYNC = range(FIELDS)  # writer (program + 1, negative: an atomic), its epoch, its site + 1;
# reader (program + 1, or minus a reader-set id), its epoch, its site + 1; the element's clock id (0: none)


class OverBudget(Exception):
    """The record would use more memory than its budget."""


class _Table:
    """Reference-counted arrays (one slot per program), by id; id 0 is 'none'."""

    def __init__(self, owner):
        self.rows: list = [None]
        self.refs: list = [0]
        self.free: list = []
        self.owner = owner

    def add(self, row: np.ndarray, refs: int) -> int:
        self.owner.charge(row.nbytes)
        if self.free:
            found = self.free.pop()
            self.rows[found], self.refs[found] = row, refs
            return found
        self.rows.append(row)
        self.refs.append(refs)
        return len(self.rows) - 1

    def release(self, ident: int, count: int):
        self.refs[ident] -= count
        if self.refs[ident] <= 0:
            self.owner.used -= self.rows[ident].nbytes
            self.rows[ident] = None
            self.free.append(ident)


class _Pages:
    """One storage's record: a page table and the pages, ``FIELDS`` rows of int32."""

    __slots__ = ("slots", "data", "used", "owner")

    def __init__(self, owner):
        self.slots: dict = {}
        self.data = np.zeros((FIELDS, 0), dtype=np.int32)
        self.used = 0
        self.owner = owner

    def positions(self, index: np.ndarray):
        """Where elements ``index`` are recorded: a slice when they are consecutive within one page (the
        common case, and a cheap one), else an array."""
        index = index.reshape(-1)
        first, last = int(index[0]), int(index[-1])
        if last - first == index.size - 1 and first >> PAGE_BITS == last >> PAGE_BITS and (
                index.size <= 2 or bool((np.diff(index) == 1).all())):
            slot = self.slots.get(first >> PAGE_BITS)
            if slot is None:
                slot = self._new(first >> PAGE_BITS)
            start = slot * PAGE + (first & _MASK)
            return slice(start, start + index.size)
        pages = index >> PAGE_BITS
        low, high = int(pages.min()), int(pages.max())
        if low == high:
            slot = self.slots.get(low)
            if slot is None:
                slot = self._new(low)
            return (index & _MASK) + slot * PAGE
        unique, inverse = np.unique(pages, return_inverse=True)
        slots = np.array([self.slots[p] if p in self.slots else self._new(p) for p in unique.tolist()],
                         dtype=np.int64)
        return (index & _MASK) + slots[inverse.reshape(-1)] * PAGE

    def _new(self, page: int) -> int:
        if (self.used + 1) * PAGE > self.data.shape[1]:
            grown = max(1, self.used)  # doubles: copies stay proportional to the pages touched
            self.owner.charge(grown * PAGE * FIELDS * 4)
            data = np.zeros((FIELDS, (self.used + grown) * PAGE), dtype=np.int32)
            data[:, :self.used * PAGE] = self.data[:, :self.used * PAGE]
            self.data = data
        slot = self.slots[page] = self.used
        self.used += 1
        return slot


class Clash:
    """What an access collided with: the lane, the other program, its site id, what it did; ``same_program``:
    another lane of the accessing program, and ``other_lane`` its position (None: several lanes)."""

    __slots__ = ("lane", "program", "site", "did", "same_program", "other_lane")

    def __init__(self, lane, program, site, did, same_program=False, other_lane=None):
        self.lane, self.program, self.site, self.did = int(lane), int(program), int(site), did
        self.same_program, self.other_lane = same_program, other_lane


OWN_FIELDS = 6
OWL, OWB, OWS, ORL, ORB, ORS = range(OWN_FIELDS)  # the current program's last store to an element: its lane
# (0: none), barrier phase, site + 1; its loads: their lane (MANY: several), the phase of the last, its site + 1
MANY = -1
LANE_BITS = 22  # a lane: (its shape's number << LANE_BITS) | its flat index + 1; shapes past 2**22 elements
# or past 500 shapes per launch are not checked within a program


class _OwnRecord:
    """The current program's accesses, by storage and page: what the checks within a program need."""

    def __init__(self):
        self.pages: dict = {}

    def rows(self, key, index: np.ndarray) -> tuple[list, np.ndarray]:
        """The record's columns for ``index``: (per page, (array, positions in the page)), and the order."""
        page_of = index >> PAGE_BITS
        found = []
        for page in np.unique(page_of).tolist():
            data = self.pages.get((key, page))
            if data is None:
                data = self.pages[(key, page)] = np.zeros((OWN_FIELDS, PAGE), dtype=np.int32)
            found.append((page, data))
        return found, page_of


class Races:
    """The record of one launch of ``programs`` programs, within ``budget`` bytes."""

    def __init__(self, programs: int, budget: int):
        self.programs, self.budget, self.used = programs, budget, 0
        self.records: dict = {}
        self.clocks, self.sets = _Table(self), _Table(self)
        self.me, self.epoch, self.vc = -1, 1, None  # vc None: this program has acquired nothing yet
        self.sites: list = []
        self.site_ids: dict = {}
        self.own, self.phase = _OwnRecord(), 0
        self.blocks: dict = {}  # shape of a block of pointers -> the lane of each of its elements, flat (None: too big)

    def charge(self, nbytes: int):
        self.used += nbytes
        if self.used > self.budget:
            raise OverBudget

    def site_id(self, site) -> int:
        found = self.site_ids.get(site)
        if found is None:
            found = self.site_ids[site] = len(self.sites)
            self.sites.append(site)
        return found

    def enter(self, program: int):
        """The interpreter runs programs one after another: a new program starts knowing nothing."""
        if program != self.me:
            self.me, self.epoch, self.vc = program, 1, None
            self.own, self.phase = _OwnRecord(), 0

    def barrier(self):
        """``tl.debug_barrier()``: every access of this program before it happens before every one after."""
        self.phase += 1

    def lanes(self, shape: tuple) -> np.ndarray | None:
        """The lane of each element of a tensor of pointers of ``shape``, flat; None: not checked."""
        if shape not in self.blocks:
            size, number = int(np.prod(shape)), len(self.blocks) + 1
            fits = size < 1 << LANE_BITS and number <= 500
            self.blocks[shape] = (number << LANE_BITS) | np.arange(1, size + 1, dtype=np.int32) if fits else None
        return self.blocks[shape]

    def within(self, key, index: np.ndarray, lanes: np.ndarray, kind: str, site) -> Clash | None:
        """Record a load or store of this program by ``lanes`` (one per element of ``index``); return the
        first earlier access of another lane of this program, with no barrier between, that it races with."""
        found, page_of = self.own.rows(key, index)
        phase = self.phase
        for page, data in found:
            here = page_of == page
            pos = index[here] & _MASK
            mine = lanes[here]
            wrote, wphase = data[OWL, pos], data[OWB, pos]
            clash = (wrote != 0) & (wphase == phase) & (wrote != mine)
            did = "stored"
            if kind == "store" and not clash.any():
                read = data[ORL, pos]
                clash = (read != 0) & (data[ORB, pos] == phase) & (read != mine)
                did = "loaded"
            if clash.any():
                at = np.flatnonzero(clash)[0]
                lane = int(np.flatnonzero(here)[at])
                other = int(data[OWL if did == "stored" else ORL, pos[at]])
                return Clash(lane, self.me, int(data[OWS if did == "stored" else ORS, pos[at]]) - 1, did,
                             same_program=True, other_lane=None if other == MANY else other)
            here_site = site() + 1
            if kind == "store":
                data[OWL, pos], data[OWB, pos], data[OWS, pos] = mine, phase, here_site
                continue
            read, rphase = data[ORL, pos], data[ORB, pos]
            new = np.where((read == 0) | (rphase != phase) | (read == mine), mine, MANY)
            unique, inverse = np.unique(pos, return_inverse=True)
            if unique.size < pos.size:  # one element loaded by several lanes of this load (a broadcast)
                low = np.full(unique.size, np.iinfo(np.int32).max, dtype=np.int32)
                high = np.zeros(unique.size, dtype=np.int32)
                np.minimum.at(low, inverse, mine)
                np.maximum.at(high, inverse, mine)
                new = np.where((low != high)[inverse], MANY, new)
            data[ORL, pos], data[ORB, pos], data[ORS, pos] = new, phase, here_site
        return None

    def describe_lane(self, lane: int | None) -> str:
        """``lane`` as a reader would read it: its position in a tensor of which shape."""
        if lane is None:
            return "several lanes"
        shape = list(self.blocks)[(lane >> LANE_BITS) - 1]
        position = np.unravel_index((lane & ((1 << LANE_BITS) - 1)) - 1, shape) if shape else []
        return f"the lane at {[int(p) for p in position]} of a block of shape {list(shape)}"

    def _pages(self, key) -> _Pages:
        pages = self.records.get(key)
        if pages is None:
            pages = self.records[key] = _Pages(self)
        return pages

    # -- ordering ----------------------------------------------------------------------------------

    def _ordered(self, programs: np.ndarray, epochs: np.ndarray) -> np.ndarray:
        mine = programs == self.me
        if self.vc is None:
            return mine
        return mine | (self.vc[programs] >= epochs)

    def _set_ordered(self, ident: int) -> bool:
        if self.vc is None:
            return False  # a set holds at least one other program
        row = self.sets.rows[ident]
        behind = self.vc < row
        behind[self.me] = False
        return not behind.any()

    def _my_clock(self) -> np.ndarray:
        clock = np.zeros(self.programs, dtype=np.int32) if self.vc is None else self.vc.copy()
        clock[self.me] = self.epoch
        return clock

    def acquire(self, key, index: np.ndarray):
        pages = self._pages(key)
        pos = pages.positions(index)
        ids = np.atleast_1d(pages.data[SYNC, pos])
        if not ids.any():
            return
        for ident in np.unique(ids[ids != 0]).tolist():
            clock = self.clocks.rows[ident]
            self.vc = clock.copy() if self.vc is None else np.maximum(self.vc, clock)

    def release(self, key, index: np.ndarray):
        pages = self._pages(key)
        if index.size:
            pos = pages.positions(index)
            if isinstance(pos, slice):
                pos = np.arange(pos.start, pos.stop)
            old = pages.data[SYNC, pos]
            unique, inverse, counts = np.unique(old, return_inverse=True, return_counts=True)
            new_ids = np.empty_like(unique)
            for n, (ident, count) in enumerate(zip(unique.tolist(), counts.tolist())):
                if ident == 0:
                    new_ids[n] = self.clocks.add(self._my_clock(), count)
                elif self.clocks.refs[ident] == count:  # held by these elements only: update in place
                    clock = self.clocks.rows[ident]
                    if self.vc is not None:
                        np.maximum(clock, self.vc, out=clock)
                    clock[self.me] = max(int(clock[self.me]), self.epoch)
                    new_ids[n] = ident
                else:
                    new_ids[n] = self.clocks.add(np.maximum(self.clocks.rows[ident], self._my_clock()), count)
                    self.clocks.release(ident, count)
            pages.data[SYNC, pos] = new_ids[inverse.reshape(-1)]
        self.epoch += 1

    # -- accesses ----------------------------------------------------------------------------------

    def access(self, key, index: np.ndarray, kind: str, site) -> Clash | None:
        """Record one access (``kind``: load, store or atomic) of storage elements ``index``; return the
        first earlier access of another program it races with, or None. ``site()`` gives this access's
        site id (called only when it is recorded)."""
        pages = self._pages(key)
        pos = pages.positions(index)
        data = pages.data
        me1 = self.me + 1
        block = data[:, pos]
        writer = block[W]
        if writer.any():
            every = np.abs(writer)
            relevant = (writer != 0) & (every != me1)
            if kind == "atomic":
                relevant &= writer > 0  # two atomics never race
            if relevant.any():
                lanes = np.flatnonzero(relevant)
                ok = self._ordered(every[lanes] - 1, block[WE, lanes])
                if not ok.all():
                    at = lanes[~ok][0]
                    return Clash(at, every[at] - 1, block[WS, at] - 1,
                                 "stored" if writer[at] > 0 else "changed (atomically)")
        reader = block[R]
        if kind != "load":
            if reader.any():
                clash = self._readers_clash(block, reader)
                if clash is not None:
                    return clash
                sets = reader[reader < 0]
                if sets.size:
                    for ident, count in zip(*np.unique(-sets, return_counts=True)):
                        self.sets.release(int(ident), int(count))
                data[R, pos] = 0
            data[W:WS + 1, pos] = np.array([[me1 if kind == "store" else -me1], [self.epoch], [site() + 1]],
                                           dtype=np.int32)
            return None
        self._read(data, pos, block, reader, site)
        return None

    def _readers_clash(self, block, reader) -> Clash | None:
        me1 = self.me + 1
        single = (reader > 0) & (reader != me1)
        if single.any():
            lanes = np.flatnonzero(single)
            ok = self._ordered(reader[lanes] - 1, block[RE, lanes])
            if not ok.all():
                at = lanes[~ok][0]
                return Clash(at, reader[at] - 1, block[RS, at] - 1, "loaded")
        shared = reader < 0
        if shared.any():
            for ident in np.unique(-reader[shared]).tolist():
                if not self._set_ordered(ident):
                    at = np.flatnonzero(reader == -ident)[0]
                    row = self.sets.rows[ident].copy()
                    row[self.me] = 0
                    other = int(np.argmax(row > 0)) if self.vc is None else int(np.argmax(row > self.vc))
                    return Clash(at, other, block[RS, at] - 1, "loaded")
        return None

    def _read(self, data, pos, block, reader, site):
        me1, epoch = self.me + 1, self.epoch
        if not reader.any():
            data[R:RS + 1, pos] = np.array([[me1], [epoch], [site() + 1]], dtype=np.int32)
            return
        if (reader == me1).all():
            data[RE, pos] = epoch
            return
        if isinstance(pos, slice):
            pos = np.arange(pos.start, pos.stop)
        here = site() + 1
        fresh = reader == 0
        mine = reader == me1
        single = (reader > 0) & ~mine
        if single.any():  # another program loaded it: replace it when its load happened before this one
            lanes = np.flatnonzero(single)
            ok = self._ordered(reader[lanes] - 1, data[RE, pos[lanes]])
            fresh[lanes[ok]] = True
            if not ok.all():  # concurrent loads: a reader set per (program, epoch) pair
                lanes = lanes[~ok]
                pairs = reader[lanes].astype(np.int64) << 32 | data[RE, pos[lanes]].astype(np.int64)
                unique, inverse, counts = np.unique(pairs, return_inverse=True, return_counts=True)
                ids = np.empty(unique.size, dtype=np.int32)
                for n, (pair, count) in enumerate(zip(unique.tolist(), counts.tolist())):
                    row = np.zeros(self.programs, dtype=np.int32)
                    row[(pair >> 32) - 1] = pair & 0xFFFFFFFF
                    row[self.me] = epoch
                    ids[n] = self.sets.add(row, count)
                data[R, pos[lanes]] = -ids[inverse.reshape(-1)]
        shared = reader < 0
        if shared.any():
            lanes = np.flatnonzero(shared)
            unique, inverse, counts = np.unique(-reader[lanes], return_inverse=True, return_counts=True)
            ids = np.empty(unique.size, dtype=np.int32)
            for n, (ident, count) in enumerate(zip(unique.tolist(), counts.tolist())):
                if self._set_ordered(ident):  # every earlier load happened before this one
                    self.sets.release(ident, count)
                    ids[n] = 0
                elif self.sets.refs[ident] == count:
                    self.sets.rows[ident][self.me] = epoch
                    ids[n] = -ident
                else:
                    row = self.sets.rows[ident].copy()
                    row[self.me] = epoch
                    self.sets.release(ident, count)
                    ids[n] = -self.sets.add(row, count)
            now = ids[inverse.reshape(-1)]
            fresh[lanes[now == 0]] = True
            data[R, pos[lanes[now != 0]]] = now[now != 0]
        if fresh.any():
            data[R, pos[fresh]], data[RE, pos[fresh]], data[RS, pos[fresh]] = me1, epoch, here
        data[RE, pos[mine]] = epoch
