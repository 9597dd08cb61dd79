"""Which element offsets belong to a strided view: its shape and strides, not merely its span.

A view ``x[:, :3]`` of a 4 x 8 tensor spans element offsets 0..26 from its first element, but only
12 of those 27 are its elements (shape (4, 3), strides (8, 1)); ``x[::2]`` is every other one.
``View.contains`` answers for a whole array of offsets at once (numpy, no Python loop over lanes):

* dense views (contiguous, or any permutation of a contiguous layout): a range check;
* other views: a boolean table over the span (built once per shape and strides, cached) when the
  span is small, else a per-dimension division with the strides sorted (exact whenever the view's
  elements do not overlap, which holds for every view slicing, transposing or expanding makes).

Expanded dimensions (stride 0) and dimensions of size 1 add no offsets: reading an expanded view is
reading its elements.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

TABLE_LIMIT = 1 << 24  # spans up to this many elements are checked by a lookup table (16 MiB)
LIST_LIMIT = 1 << 22  # views with up to this many elements find the nearest element exactly


class View:
    """The element offsets (from the view's first element) that address an element of the view."""

    def __init__(self, shape: tuple, strides: tuple):
        self.shape, self.strides = tuple(int(s) for s in shape), tuple(int(s) for s in strides)
        self.numel = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        dims = sorted((st, s) for s, st in zip(self.shape, self.strides) if s > 1 and st != 0)
        self.dims = dims
        self.span = 0 if self.numel == 0 else sum((s - 1) * st for st, s in dims) + 1
        expected, dense = 1, True
        for st, s in dims:
            dense = dense and st == expected
            expected *= s
        self.dense = dense
        reach, nested = 0, True
        for st, s in dims:
            nested = nested and st > reach
            reach += (s - 1) * st
        self.nested = nested  # no two index tuples share an offset: division finds the index
        self._table = None

    def describe(self) -> str:
        return f"shape {_tuple(self.shape)}, strides {_tuple(self.strides)}"

    # -- membership ---------------------------------------------------------------------------

    def contains(self, offsets: np.ndarray) -> np.ndarray:
        """A boolean array: whether each element offset is one of the view's elements."""
        inside = (offsets >= 0) & (offsets < self.span)
        if self.dense or not inside.any():
            return inside
        if self.span <= TABLE_LIMIT:
            table = self.table()
            return inside & table[np.where(inside, offsets, 0)]
        if not self.nested:  # overlapping strides over a huge span: the span is all we check
            return inside
        rest = np.where(inside, offsets, 0)
        for st, s in reversed(self.dims):
            index = rest // st
            inside &= index < s
            rest = rest - index * st
        return inside & (rest == 0)

    def table(self) -> np.ndarray:
        if self._table is None:
            table = np.zeros(self.span, dtype=bool)
            table[self.offsets()] = True
            self._table = table
        return self._table

    def offsets(self) -> np.ndarray:
        """Every element's offset, in the view's (row-major) element order."""
        total = np.zeros((), dtype=np.int64)
        for axis, (size, stride) in enumerate(zip(self.shape, self.strides)):
            shape = [1] * len(self.shape)
            shape[axis] = size
            total = total + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
        return np.broadcast_to(total, self.shape).reshape(-1)

    # -- for the report -------------------------------------------------------------------------

    def index_of(self, offset: int) -> tuple | None:
        """The index tuple whose element lies at ``offset`` (its first index may lie past the shape or
        below 0, for an offset outside the view), or None when no index tuple lands exactly there."""
        if not self.nested or not self.shape:
            return None
        axes = sorted((st, axis) for axis, (s, st) in enumerate(zip(self.shape, self.strides)) if s > 1 and st != 0)
        result, rest = [0] * len(self.shape), int(offset)
        for st, axis in reversed(axes):
            result[axis] = rest // st
            rest -= result[axis] * st
        return tuple(result) if rest == 0 else None

    def nearest(self, offset: int) -> tuple[tuple, int]:
        """(index tuple, offset) of the view's element nearest to ``offset`` (the first on a tie)."""
        if self.numel == 0:
            return (), 0
        if self.numel <= LIST_LIMIT:
            every = self.offsets()
            position = int(np.argmin(np.abs(every - offset)))
            index = np.unravel_index(position, self.shape) if self.shape else ()
            return tuple(int(i) for i in index), int(every[position])
        rest, index = max(0, min(int(offset), self.span - 1)), {}
        for st, s in reversed(self.dims):
            index[st, s] = min(rest // st, s - 1)
            rest -= index[st, s] * st
        result, used = [], set()
        for s, st in zip(self.shape, self.strides):
            key = (st, s)
            result.append(int(index[key]) if key in index and key not in used else 0)
            used.add(key)
        return tuple(result), sum(i * st for i, st in zip(result, self.strides))


def _tuple(values) -> str:
    return "(" + ", ".join(str(v) for v in values) + ("," if len(values) == 1 else "") + ")"


@lru_cache(maxsize=256)
def view(shape: tuple, strides: tuple) -> View:
    """The (cached) ``View`` of these shape and strides."""
    return View(shape, strides)
