"""The checks: Triton's interpreter, patched while ``checked()`` is active, checks every access.

Each tensor argument of a launch gets a private fake base address, 2**44 bytes from the next
one (from 2**60 on), so every pointer the kernel computes still says which argument it came from;
the real address is put back only after the checks pass. Addresses a kernel loads from memory
(a tensor of ``data_ptr()`` values) are real ones: they are checked against the tensors given
to ``pointers_into``. Races: ``races.py``. Works with Triton 3.2 and newer, under the
interpreter (``TRITON_INTERPRET=1``).
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys

import numpy as np

from .races import OverBudget, Races
from .views import view

ENV = "TRITON_CHECKED"
SEGMENT_BITS = 44  # each argument's fake base is 2**44 bytes from the next: 8 TiB either way
SUPPORTED_FROM = (3, 2)
_HALF = np.uint64(1 << (SEGMENT_BITS - 1))
_SHIFT = np.uint64(SEGMENT_BITS)
_HALF_INT = 1 << (SEGMENT_BITS - 1)
# fake bases start at 2**60, far above any real (user-space) address, so an address a kernel loaded
# from memory (a tensor of data_ptr() values) is never mistaken for an argument's
_ORIGIN_SEGMENT = 1 << 16
_FAKE_ORIGIN = _ORIGIN_SEGMENT << SEGMENT_BITS
RECORD_BUDGET = int(os.environ.get("TRITON_CHECKED_RECORD_MIB", "1024")) << 20  # the race record's, per launch
_RECORD_DEPTH = 5  # _kernel_site <- _record <- _check <- _access <- the patched builder method: skip those


class CheckedModeUnavailable(RuntimeError):
    """The checks cannot run here (not the interpreter, or an unsupported Triton)."""


class OutOfBounds(IndexError):
    """An active lane of a load, store or atomic addresses no element of the tensor it came from."""


class DataRace(RuntimeError):
    """Two programs of one launch touch the same element, at least one storing, without atomics."""


class _Argument:
    __slots__ = ("name", "tensor", "fake_base", "real_base", "delta", "element_size", "view", "byte_span",
                 "storage_key", "storage_offset_bytes", "storage_nbytes", "shift", "allow_base", "registered")

    def __init__(self, name, tensor, index, allow_base=False, registered=False):
        self.name = name
        self.tensor = tensor
        self.element_size = tensor.element_size()
        self.shift = self.element_size.bit_length() - 1 if self.element_size & (self.element_size - 1) == 0 else None
        self.real_base = tensor.data_ptr()
        # a tensor reached through an address the kernel loaded keeps its real base: nothing to translate
        self.fake_base = self.real_base if registered else _FAKE_ORIGIN + ((index + 1) << SEGMENT_BITS)
        self.delta = np.uint64((self.real_base - self.fake_base) % (1 << 64))
        self.view = view(tuple(tensor.shape), tuple(tensor.stride()))
        self.byte_span = self.view.span * self.element_size
        storage = tensor.untyped_storage()
        self.storage_key = storage.data_ptr()
        self.storage_offset_bytes = self.real_base - storage.data_ptr()
        self.storage_nbytes = storage.nbytes()
        self.allow_base = allow_base
        self.registered = registered


class _Launch:
    def __init__(self, kernel_name):
        self.kernel_name = kernel_name
        self.names_by_id = {}  # id(host tensor) -> argument name
        self.arguments: list[_Argument] = []
        self.deltas = None
        self.races = None  # races.Races, made at the first recorded access
        self.registered = None  # tensors reached through loaded addresses: (sorted starts, ends, _Arguments)
        self.programs = 1
        self.last_atomic = None  # (argument, storage indices) of the atomic being executed


class _State:
    def __init__(self):
        self.depth = 0
        self.allow_base = False  # True, or a set of argument names
        self.races = True
        self.pointers_into = None  # None, "live", or a list of tensors
        self.budget = RECORD_BUDGET
        self.launch: _Launch | None = None
        self.originals: list[tuple] = []


_state = _State()


def _triton_version():
    import triton
    parts = []
    for piece in triton.__version__.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts), triton.__version__


def _require_supported():
    version, text = _triton_version()
    if version < SUPPORTED_FROM:
        raise CheckedModeUnavailable(
            f"triton_checked needs Triton {SUPPORTED_FROM[0]}.{SUPPORTED_FROM[1]} or newer; this is Triton {text}")
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise CheckedModeUnavailable(
            "triton_checked runs kernels under Triton's interpreter: set TRITON_INTERPRET=1 before triton is "
            "imported (python -m triton_checked script.py does it for a whole script)")
    from triton.runtime import interpreter
    needed = ["_implicit_cvt", "GridExecutor", "interpreter_builder", "InterpreterError"]
    builder_needed = ["create_masked_load", "create_masked_store", "create_atomic_rmw", "create_atomic_cas"]
    missing = [name for name in needed if not hasattr(interpreter, name)]
    missing += [f"InterpreterBuilder.{name}" for name in builder_needed
                if not hasattr(type(interpreter.interpreter_builder), name)]
    if not hasattr(interpreter.GridExecutor, "_init_args_hst"):
        missing.append("GridExecutor._init_args_hst")
    if missing:
        raise CheckedModeUnavailable(
            f"triton_checked does not support Triton {text}: its interpreter lacks {', '.join(missing)}")
    return interpreter


# -- where in the kernel ------------------------------------------------------------------------

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # with the separator: not triton_checked_x/
_TESTS = _PACKAGE + "tests" + os.sep  # this package's own tests launch kernels like any user


def _TRITON():
    """Triton's package folder, with the separator: site-packages/triton_checked is not inside it."""
    import triton

    return os.path.dirname(os.path.abspath(triton.__file__)) + os.sep
_machinery_cache: dict = {}


def _machinery(filename: str) -> bool:
    """Whether a frame belongs to Triton, numpy, frozen imports or this package."""
    known = _machinery_cache.get(filename)
    if known is None:
        import triton

        path = os.path.abspath(filename)
        known = (path.startswith(_TRITON()) or "/numpy/" in filename or filename.startswith("<frozen")
                 or (path.startswith(_PACKAGE) and not path.startswith(_TESTS)))
        _machinery_cache[filename] = known
    return known


def _kernel_site(skip=1):
    """(file, line, function) of the innermost frame outside Triton, numpy and this package.

    Walking frames is slow (each one is made into an object), so the distance from the first frame to
    the kernel's is remembered per first frame, and tried first: the frames between are Triton's
    own calls, the same every time a given Triton function calls the builder."""
    known = _machinery_codes
    start = sys._getframe(skip + 1).f_code
    depth = _site_depths.get((skip, start))
    if depth is not None:
        try:
            frame = sys._getframe(skip + 1 + depth)
        except ValueError:
            frame = None
        if frame is not None and known.get(frame.f_code) is False and known.get(frame.f_back.f_code) is True:
            return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
    frame, walked = sys._getframe(skip + 1), 0
    while frame is not None:
        code = frame.f_code
        machinery = known.get(code)
        if machinery is None:
            machinery = known[code] = _machinery(code.co_filename)
        if not machinery:
            if walked:
                _site_depths[skip, start] = walked
            return code.co_filename, frame.f_lineno, code.co_name
        frame, walked = frame.f_back, walked + 1
    return "<unknown>", 0, "<unknown>"


_site_depths: dict = {}  # (skip, code of the first frame) -> how many frames up the kernel's frame was
_machinery_codes: dict = {}  # code object -> whether it is machinery: one lookup per frame


def _describe_site(site):
    filename, line, function = site
    shown = os.path.relpath(filename) if os.path.isabs(filename) else filename
    if shown.startswith(".."):
        shown = filename
    source = linecache.getline(filename, line).strip()
    return f"{shown}:{line} in {function}" + (f"\n    {source}" if source else "")


def _program(builder):
    return tuple(int(i) for i in builder.grid_idx)


def _linear(builder):
    x, y, z = builder.grid_idx
    nx, ny, _ = builder.grid_dim
    return int(x + nx * (y + ny * z))


def _programs(builder):
    nx, ny, nz = builder.grid_dim
    return int(nx * ny * nz)


def _unlinear(builder, pid):
    nx, ny, _ = builder.grid_dim
    return (pid % nx, (pid // nx) % ny, pid // (nx * ny))


# -- address translation and checks --------------------------------------------------------------

def _access(builder, kind, ptrs, mask, access_size):
    """Check one access; return the real addresses (same shape) to hand to the interpreter."""
    launch = _state.launch
    addresses = ptrs.data
    if launch is None:
        return addresses
    if addresses.dtype != np.uint64:
        addresses = addresses.astype(np.uint64)
    within = _state.races and kind != "atomic"  # a load or store is also checked against the program's own lanes
    positions = None
    if mask is None:
        live = addresses
    else:
        active = mask if isinstance(mask, np.ndarray) else mask.data
        if not isinstance(active, np.ndarray) or active.dtype != np.bool_:
            active = np.asarray(active, dtype=bool)
        if active.shape != addresses.shape:
            active = np.broadcast_to(active, addresses.shape)
        if active.all():
            live = addresses
        elif not active.any():  # nothing is touched: any address will do
            if kind == "atomic":
                launch.last_atomic = []
            return addresses
        else:
            live = addresses[active]
            if within:
                positions = np.flatnonzero(active.reshape(-1))
    if within:
        if positions is None:
            positions = np.arange(addresses.size)
        positions = (addresses.shape, positions)
    arguments = launch.arguments
    if kind == "atomic":
        launch.last_atomic = []
    low, high = int(live.min()), int(live.max())
    first = ((low + _HALF_INT) >> SEGMENT_BITS) - _ORIGIN_SEGMENT  # argument i: i + 1
    last = ((high + _HALF_INT) >> SEGMENT_BITS) - _ORIGIN_SEGMENT
    if first == last and 1 <= first <= len(arguments):
        argument = arguments[first - 1]
        _check(builder, kind, launch, argument, live, low - argument.fake_base, high - argument.fake_base,
               access_size, positions)
        return addresses + argument.delta
    segments = ((live + _HALF) >> _SHIFT).astype(np.int64) - _ORIGIN_SEGMENT
    ours = (segments >= 1) & (segments <= len(arguments))
    for number in np.unique(segments[ours]).tolist():
        argument = arguments[number - 1]
        these = segments.reshape(-1) == number
        lanes = live[segments == number]
        _check(builder, kind, launch, argument, lanes, int(lanes.min()) - argument.fake_base,
               int(lanes.max()) - argument.fake_base, access_size,
               None if positions is None else (positions[0], positions[1][these]))
    if not ours.all():
        _check_loaded_addresses(builder, kind, launch, live[~ours], access_size)
    if launch.deltas is None:
        launch.deltas = np.array([0] + [a.delta for a in arguments] + [0], dtype=np.uint64)
    every = ((addresses + _HALF) >> _SHIFT).astype(np.int64) - _ORIGIN_SEGMENT
    every = np.where((every >= 1) & (every <= len(arguments)), every, 0)  # 0: a real address, kept
    return addresses + launch.deltas[every]  # masked-off lanes: never dereferenced


def _registered(launch):
    """The tensors a kernel may reach through addresses it loaded: (starts, ends, _Arguments) by storage."""
    if launch.registered is None:
        wanted = _state.pointers_into
        if wanted is None:
            tensors = []
        elif isinstance(wanted, str):  # "live": every tensor alive now, checked against its whole allocation
            import gc

            import torch

            import warnings

            with warnings.catch_warnings():  # isinstance() on some of torch's module proxies warns
                warnings.simplefilter("ignore")
                tensors = [t for t in gc.get_objects() if isinstance(t, torch.Tensor) and t.device.type == "cpu"]
        else:
            tensors = list(wanted)
        whole = isinstance(wanted, str)
        items = []
        for position, tensor in enumerate(tensors):
            try:
                storage = tensor.untyped_storage()
            except (RuntimeError, TypeError, NotImplementedError):
                continue
            if storage.nbytes() == 0:
                continue
            name = (f"alive at the launch, of shape {tuple(tensor.shape)}" if whole
                    else f"pointers_into[{position}] (shape {tuple(tensor.shape)})")
            argument = _Argument(name, tensor, 0, allow_base=whole, registered=True)
            items.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes(), argument))
        if whole:  # one per allocation is enough when the whole allocation is valid
            items = list({start: (start, end, a) for start, end, a in items}.values())
        items.sort(key=lambda item: (item[0], -item[1]))
        launch.registered = (np.array([i[0] for i in items], dtype=np.int64),
                             np.array([i[1] for i in items], dtype=np.int64), [i[2] for i in items])
    return launch.registered


def _check_loaded_addresses(builder, kind, launch, lanes, access_size):
    """Lanes whose address is no argument's: real addresses, loaded from memory; check them against the
    tensors given to ``pointers_into``."""
    starts, ends, arguments = _registered(launch)
    real = lanes.view(np.int64)
    slot = np.searchsorted(starts, real, side="right") - 1
    found = (slot >= 0) & (real + access_size <= ends[np.maximum(slot, 0)]) if len(arguments) else \
        np.zeros(real.shape, dtype=bool)
    # a lane past the end of a tensor that other lanes of the access are in: an overrun of that tensor
    owned = found | np.isin(slot, slot[found])
    if not owned.all():
        _raise_unknown(builder, kind, launch, int((~owned).sum()), int(real[~owned][0]))
    for number in np.unique(slot).tolist():
        argument = arguments[number]
        these = lanes[slot == number]
        _check(builder, kind, launch, argument, these, int(these.min()) - argument.fake_base,
               int(these.max()) - argument.fake_base, access_size)


def _check(builder, kind, launch, argument, lanes, low, high, access_size, positions=None):
    """Raise unless every lane (a fake address) addresses the argument's elements.

    ``low`` and ``high`` are the smallest and largest byte offsets from the argument's first element;
    ``positions``: (the shape of the tensor of pointers, each lane's flat index in it), to check the
    access against the program's own earlier ones.
    """
    high += access_size
    offsets = None
    if argument.allow_base:
        start, end = -argument.storage_offset_bytes, argument.storage_nbytes - argument.storage_offset_bytes
        if low < start or high > end:
            offsets = lanes.view(np.int64) - argument.fake_base
            _raise_out_of_bounds(builder, kind, launch, argument,
                                 offsets[(offsets < start) | (offsets + access_size > end)])
    elif low < 0 or high > argument.byte_span:
        offsets = lanes.view(np.int64) - argument.fake_base
        inside = (offsets >= 0) & (offsets + access_size <= argument.byte_span)
        _raise_out_of_bounds(builder, kind, launch, argument, offsets[~inside])
    elif not argument.view.dense:
        offsets = lanes.view(np.int64) - argument.fake_base
        valid = _in_view(argument, offsets, access_size)
        if not valid.all():
            _raise_out_of_bounds(builder, kind, launch, argument, offsets[~valid])
    if _state.races:
        # storage element index = (address - base + storage offset) / element size
        index = lanes.reshape(-1).view(np.int64) - (argument.fake_base - argument.storage_offset_bytes)
        index = index >> argument.shift if argument.shift is not None else index // argument.element_size
        if kind == "atomic":
            launch.last_atomic.append((argument, index))
        else:
            _record(builder, kind, launch, argument, index, positions)


def _in_view(argument, offsets, access_size):
    size = argument.element_size
    elements = offsets >> argument.shift if argument.shift is not None else offsets // size
    valid = argument.view.contains(elements)
    split = access_size > size or bool(((offsets - elements * size) + access_size > size).any())
    if split:  # the access reaches into the next element(s): that one must be the view's too
        valid &= argument.view.contains((offsets + access_size - 1) // size)
    return valid


def _raise_unknown(builder, kind, launch, lanes, address):
    site = _kernel_site()
    if _state.pointers_into is None:
        how = ("if the kernel loads its pointers from memory (a tensor of data_ptr() values), name the tensors "
               "they point into: checked(pointers_into=[...]), or pointers_into=\"live\" "
               "(python -m triton_checked --pointers-into live)")
    else:
        how = "it is in no tensor given to pointers_into"
    raise OutOfBounds(
        f"{kind} in kernel {launch.kernel_name} at {_describe_site(site)}\n"
        f"  uses an address that does not come from any tensor argument ({address:#x}; "
        f"program {_program(builder)}, {lanes} active lane(s)): {how}")


def _raise_out_of_bounds(builder, kind, launch, argument, bad_offsets):
    site = _kernel_site()
    elements = np.sort(bad_offsets // argument.element_size)
    first, view = int(elements[0]), argument.view
    if argument.allow_base:
        scope, verb = "its base allocation", "out of bounds"
        size = argument.storage_nbytes // argument.element_size
        start = -(argument.storage_offset_bytes // argument.element_size)
        where = f"{scope} has {size} elements, valid offsets {start}..{start + size - 1}"
    elif view.dense:
        verb = "out of bounds"
        where = f"the tensor has {view.numel} elements, valid offsets 0..{view.numel - 1}"
    else:
        verb = "outside the view"
        inside = 0 <= first < view.span
        where = (f"the view's {view.numel} elements lie between offsets 0..{view.span - 1}"
                 + (f" and {first} falls between them" if inside else ""))
    more = ""
    if elements.size > 1:
        more = f" ({elements.size} lanes {verb}, offsets {int(elements[0])}..{int(elements[-1])})"
    index, offset = view.nearest(first)
    hint = ""
    low, high = (-(argument.storage_offset_bytes // argument.element_size),
                 (argument.storage_nbytes - argument.storage_offset_bytes) // argument.element_size) \
        if argument.allow_base else (0, view.span)
    for wrap in (1 << 32, -(1 << 32)):
        if low <= first + wrap < high and low <= int(elements[-1]) + wrap < high:
            hint = (f"\n  offset {first} {'+' if wrap > 0 else '-'} 2**32 = {first + wrap} is in bounds: an int32 offset "
                    f"overflowed; compute it in int64 (e.g. row.to(tl.int64) * stride)")
            break
    raise OutOfBounds(
        f"out-of-bounds {kind} in kernel {launch.kernel_name} at {_describe_site(site)}\n"
        f"  {'tensor' if argument.registered else 'argument'} {argument.name}: element offset {first}{more}; {where}\n"
        f"  view: {view.describe()} (in elements); nearest element {list(index)} at offset {offset}\n"
        f"{_row_column_line(view, first)}"
        f"  program {_program(builder)}{hint}")


def _row_column_line(view, offset):
    where = _where_in(view, offset)
    if not where:
        return ""
    return f"  offset {offset} is at {where[2:-1]} (the view has {view.shape[0]} rows, {view.shape[1]} columns)\n"


def _where_in(view, offset):
    """' (row r, column c)' for an offset of a 2-D view whose strides tell rows from columns; else ''."""
    if len(view.shape) != 2 or 0 in view.strides or view.strides[0] == view.strides[1]:
        return ""
    index = view.index_of(offset)
    if index is None:
        return ""
    return f" (row {index[0]}, column {index[1]})"


def _record(builder, kind, launch, argument, index, positions=None):
    """Record an access of storage elements ``index`` in the launch's happens-before record (races.py);
    raise ``DataRace`` if it races with another program's. Over the record's budget, or out of memory,
    the rest of the launch is checked for bounds only, with a one-line notice."""
    record = launch.races
    if record is False:
        return
    try:
        if record is None:
            record = launch.races = Races(_programs(builder), _state.budget)
        record.enter(_linear(builder))
        site = _Site(record)
        clash = lanes = None
        if positions is not None:
            every = record.lanes(positions[0])
            if every is not None:
                lanes = every[positions[1]]
                clash = record.within((argument.storage_key, argument.element_size), index, lanes, kind, site)
        if clash is None:
            clash = record.access((argument.storage_key, argument.element_size), index, kind, site)
    except (OverBudget, MemoryError):
        _give_up_races(launch)
        return
    if clash is not None:
        _raise_race(builder, launch, argument, index[clash.lane], clash, "stores" if kind == "store" else
                    "loads" if kind == "load" else "changes (atomically)",
                    this_lane=None if lanes is None else lanes[clash.lane])


class _Site:
    """This access's site id, found once however many records ask (finding it walks the stack)."""

    def __init__(self, record):
        self.record, self.found = record, None

    def __call__(self):
        if self.found is None:
            self.found = self.record.site_id(_kernel_site(_RECORD_DEPTH + 1))
        return self.found


def _give_up_races(launch):
    launch.races = False
    print(f"triton_checked: kernel {launch.kernel_name}: the race record would pass its "
          f"{_state.budget >> 20} MiB budget (TRITON_CHECKED_RECORD_MIB); this launch is checked for bounds only",
          file=sys.stderr)


def _sem(value, default="acq_rel"):
    name = getattr(value, "name", None) or str(value or default)
    name = name.rsplit(".", 1)[-1].lower()
    return {"acquire_release": "acq_rel"}.get(name, name)


def _atomic_begin(builder, launch, sem, scope):
    """Before an atomic executes: acquire (when its sem says so), and check it against plain accesses."""
    touched, launch.last_atomic = launch.last_atomic or [], None
    if not touched or launch.races is False or not _state.races:
        return None
    ordering = _sem(sem) if _sem(scope, "gpu") != "cta" else "relaxed"  # a CTA-scoped atomic orders no programs
    try:
        if launch.races is None:
            launch.races = Races(_programs(builder), _state.budget)
        record = launch.races
        record.enter(_linear(builder))
        if ordering in ("acquire", "acq_rel"):
            for argument, index in touched:
                record.acquire((argument.storage_key, argument.element_size), index)
        for argument, index in touched:
            clash = record.access((argument.storage_key, argument.element_size), index, "atomic",
                                  lambda: record.site_id(_kernel_site(_RECORD_DEPTH)))
            if clash is not None:
                _raise_race(builder, launch, argument, index[clash.lane], clash, "changes (atomically)",
                            depth=3)
    except (OverBudget, MemoryError):
        _give_up_races(launch)
        return None
    return touched if ordering in ("release", "acq_rel") else None


def _atomic_end(launch, touched, swapped=None):
    """After an atomic executed: release where it wrote (a compare-and-swap writes where it swapped)."""
    if touched is None or launch.races in (None, False):
        return
    try:
        record = launch.races
        if swapped is not None and not swapped.all():
            if not swapped.any():
                touched = []
            elif len(touched) == 1 and touched[0][1].size == swapped.size:
                touched = [(touched[0][0], touched[0][1][swapped.reshape(-1)])]
        for argument, index in touched:
            record.release((argument.storage_key, argument.element_size), index)
        if not touched:
            record.epoch += 1
    except (OverBudget, MemoryError):
        _give_up_races(launch)


def _raise_race(builder, launch, argument, storage_index, clash, this_kind, depth=2, this_lane=None):
    element = int(storage_index) - argument.storage_offset_bytes // argument.element_size
    site = _kernel_site(depth)
    other_program = f"program {_unlinear(builder, clash.program)}"
    record = launch.races
    earlier = record.sites[clash.site] if clash.site >= 0 else ("<unknown>", 0, "<unknown>")
    view = argument.view
    where = _where_in(view, element)
    if len(view.shape) == 2 and not where and 0 not in view.strides:
        index = view.index_of(element)
        where = f" (index {list(index)})" if index is not None else ""
    zero = [axis for axis, (size, stride) in enumerate(zip(view.shape, view.strides)) if stride == 0 and size > 1]
    neighbours = abs(clash.program - _linear(builder)) == 1
    if clash.same_program:
        raise DataRace(
            f"data race in kernel {launch.kernel_name} on argument {argument.name}, element {element}{where}, "
            f"within program {_program(builder)}:\n"
            f"  {record.describe_lane(None if this_lane is None else int(this_lane))} {this_kind} it at "
            f"{_describe_site(site)}\n"
            f"  {record.describe_lane(clash.other_lane)} {clash.did} it at {_describe_site(earlier)}\n"
            f"  view: {view.describe()} (in elements)\n"
            f"  on a GPU a program's elements are spread over its threads, and two threads' accesses to one "
            f"element are not ordered: compute each element's final value and store it once (tl.where), or "
            f"put tl.debug_barrier() between the two accesses")
    if zero:
        advice = (f"  {argument.name} is an expanded view: stride 0 in dimension {zero[0]} (shape {view.shape[zero[0]]}), "
                  f"so its {view.shape[zero[0]]} {'rows' if zero[0] == 0 and len(view.shape) == 2 else 'slices'} are one "
                  f"piece of memory and every program writing its own writes the same elements: store into a "
                  f"tensor of its own (torch.empty(shape), or .contiguous())")
    elif neighbours and site[:2] == earlier[:2] and this_kind == "stores" and clash.did == "stored":
        advice = ("  neighbouring programs store through the same line: one program's block reaches into the next "
                  "one's elements; check the mask (each dimension's: a column mask such as c < cols, not only "
                  "the rows') and the block's bounds")
    else:
        advice = ("  programs of one launch may run in any order, or at the same time: use an atomic, give each "
                  "element to one program, or order the two accesses (an acquire/release atomic: a lock, a flag, a "
                  "ticket counter; sem=\"relaxed\" orders nothing)")
    raise DataRace(
        f"data race in kernel {launch.kernel_name} on argument {argument.name}, element {element}{where}:\n"
        f"  program {_program(builder)} {this_kind} it at {_describe_site(site)}\n"
        f"  {other_program} {clash.did} it at {_describe_site(earlier)}\n"
        f"  view: {view.describe()} (in elements)\n"
        f"{advice}")


def launched_from(report: BaseException) -> str:
    """The line that launched the kernel a report is about: the last frame outside Triton before it."""
    import traceback

    launch = None
    for frame in traceback.extract_tb(report.__traceback__):
        if os.path.abspath(frame.filename).startswith(_TRITON()):
            break
        if not _machinery(frame.filename):
            launch = frame
    if launch is None:
        return "<unknown>"
    return _describe_site((launch.filename, launch.lineno, launch.name))


# -- the patches ---------------------------------------------------------------------------------

def _element_size(ptrs):
    return max(1, ptrs.get_element_ty().primitive_bitwidth // 8)


def _handle(ptrs, data):
    clone = type(ptrs)(data, ptrs.dtype)
    for name, value in vars(ptrs).items():
        if name not in ("data", "dtype"):
            setattr(clone, name, value)
    return clone


def _sem_scope(args, kwargs):
    """The (sem, scope) an atomic was built with: the builder's last two arguments."""
    sem = kwargs.get("sem", args[0] if len(args) > 0 else None)
    scope = kwargs.get("scope", args[1] if len(args) > 1 else None)
    return sem, scope


def _barrier(builder):
    """A barrier among the threads of the running program: ``tl.debug_barrier()``, and a scalar atomic, which
    Triton compiles with one (its result goes through shared memory to every thread: the ``AtomicRMWOp`` and
    ``AtomicCASOp`` lowerings store it, then barrier, then load; counted whether the result is used or not, and
    for a one-element block too, which the interpreter cannot tell from a scalar)."""
    launch = _state.launch
    if launch is not None and launch.races:
        launch.races.enter(_linear(builder))
        launch.races.barrier()


def _patched_builder(cls):
    load, store = cls.create_masked_load, cls.create_masked_store
    rmw, cas = cls.create_atomic_rmw, cls.create_atomic_cas
    barrier = cls.create_barrier

    def create_barrier(self, *args, **kwargs):
        _barrier(self)
        return barrier(self, *args, **kwargs)

    def create_masked_load(self, ptrs, mask, *args, **kwargs):
        real = _access(self, "load", ptrs, mask, _element_size(ptrs))
        return load(self, _handle(ptrs, real), mask, *args, **kwargs)

    def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
        real = _access(self, "store", ptrs, mask, _element_size(ptrs))
        return store(self, _handle(ptrs, real), value, mask, *args, **kwargs)

    def create_atomic_rmw(self, op, ptr, val, mask, *args, **kwargs):
        real = _access(self, "atomic", ptr, mask, _element_size(ptr))
        launch = _state.launch
        touched = _atomic_begin(self, launch, *_sem_scope(args, kwargs)) if launch is not None else None
        result = rmw(self, op, _handle(ptr, real), val, mask, *args, **kwargs)
        if launch is not None:
            _atomic_end(launch, touched)
            if np.size(real) == 1:  # a scalar (the interpreter holds it as one element)
                _barrier(self)
        return result

    def create_atomic_cas(self, ptr, cmp, val, *args, **kwargs):
        real = _access(self, "atomic", ptr, None, _element_size(ptr))
        launch = _state.launch
        touched = _atomic_begin(self, launch, *_sem_scope(args, kwargs)) if launch is not None else None
        result = cas(self, _handle(ptr, real), cmp, val, *args, **kwargs)
        if launch is not None and touched is not None:
            swapped = np.broadcast_to(np.asarray(result.data) == np.asarray(cmp.data), np.shape(real))
            _atomic_end(launch, touched, swapped)
        if launch is not None and np.size(real) == 1:
            _barrier(self)
        return result

    return {"create_masked_load": create_masked_load, "create_masked_store": create_masked_store,
            "create_atomic_rmw": create_atomic_rmw, "create_atomic_cas": create_atomic_cas,
            "create_barrier": create_barrier}


def _argument_names(executor, args_hst, kwargs_hst):
    import inspect
    try:
        bound = inspect.signature(executor.fn).bind_partial(*args_hst, **kwargs_hst).arguments
    except TypeError:
        bound = {f"arg{i}": arg for i, arg in enumerate(args_hst)} | dict(kwargs_hst)
    names = {}

    def visit(name, value):
        if hasattr(value, "data_ptr"):
            names.setdefault(id(value), name)
        elif isinstance(value, tuple):
            for i, item in enumerate(value):
                visit(f"{name}[{i}]", item)
        elif hasattr(value, "base") and hasattr(value.base, "data_ptr"):  # a host-side TensorDescriptor
            visit(name, value.base)

    for name, value in bound.items():
        visit(name, value)
    return names


def _options(allow_base, pointers_into, record_mib):
    if allow_base not in (True, False):
        if isinstance(allow_base, str) or not all(isinstance(name, str) for name in allow_base):
            raise TypeError("allow_base is True, False, or a collection of argument names, e.g. {'x_ptr'}")
        allow_base = frozenset(allow_base)
    if isinstance(pointers_into, str):
        if pointers_into != "live":
            raise ValueError(f"pointers_into={pointers_into!r}: give a list of tensors, or \"live\"")
    elif pointers_into is not None:
        pointers_into = list(pointers_into)
        bad = [type(t).__name__ for t in pointers_into if not hasattr(t, "untyped_storage")]
        if bad:
            raise TypeError(f"pointers_into takes tensors, not {bad[0]}")
    budget = RECORD_BUDGET if record_mib is None else int(record_mib) << 20
    return allow_base, pointers_into, budget


def enable(*, allow_base=False, races: bool = True, pointers_into=None, record_mib=None):
    """Turn the checks on with these options (nestable); ``disable()`` undoes one ``enable()``."""
    options = _options(allow_base, pointers_into, record_mib)
    interpreter = _require_supported()
    if _state.depth == 0:
        builder_cls = type(interpreter.interpreter_builder)
        executor = interpreter.GridExecutor
        builder_patches = _patched_builder(builder_cls)
        originals = [(builder_cls, name, getattr(builder_cls, name)) for name in builder_patches]
        originals += [(interpreter, "_implicit_cvt", interpreter._implicit_cvt),
                      (executor, "_init_args_hst", executor._init_args_hst),
                      (executor, "__call__", executor.__call__)]
        for name, fn in builder_patches.items():
            setattr(builder_cls, name, fn)
        implicit_cvt, init_args_hst, call = interpreter._implicit_cvt, executor._init_args_hst, executor.__call__

        def checked_implicit_cvt(arg):
            converted = implicit_cvt(arg)
            launch = _state.launch
            if launch is None or not hasattr(arg, "data_ptr") or not hasattr(converted, "handle"):
                return converted
            name = launch.names_by_id.get(id(arg), f"pointer #{len(launch.arguments)}")
            tensor = arg if hasattr(arg, "untyped_storage") else arg.base  # a TensorWrapper wraps .base
            allow = _state.allow_base
            argument = _Argument(name, tensor, len(launch.arguments),
                                 allow_base=allow is True or (allow is not False and name in allow))
            launch.arguments.append(argument)
            launch.deltas = None
            converted.handle.data = np.array([argument.fake_base], dtype=np.uint64)
            return converted

        def checked_init_args_hst(self, args_dev, kwargs):
            args_hst, kwargs_hst = init_args_hst(self, args_dev, kwargs)
            if _state.launch is not None:
                _state.launch.names_by_id = _argument_names(self, args_hst, kwargs_hst)
            return args_hst, kwargs_hst

        def checked_call(self, *args, **kwargs):
            outer = _state.launch
            _state.launch = _Launch(getattr(self.fn, "__name__", "kernel"))
            try:
                return call(self, *args, **kwargs)
            except interpreter.InterpreterError as error:
                cause = error.__cause__
                if isinstance(cause, (OutOfBounds, DataRace)):
                    raise cause.with_traceback(cause.__traceback__) from None
                raise
            finally:
                _state.launch = outer

        interpreter._implicit_cvt = checked_implicit_cvt
        executor._init_args_hst = checked_init_args_hst
        executor.__call__ = checked_call
        _state.originals = originals
    _state.allow_base, _state.pointers_into, _state.budget = options
    _state.races = races
    _state.depth += 1


def disable():
    """Undo one ``enable()``; the last one puts Triton's interpreter back as it was."""
    if _state.depth == 0:
        return
    _state.depth -= 1
    if _state.depth == 0:
        for owner, name, original in reversed(_state.originals):
            setattr(owner, name, original)
        _state.originals = []


@contextlib.contextmanager
def checked(*, allow_base=False, races: bool = True, pointers_into=None, record_mib=None):
    """Bounds- and race-check every kernel launched under the interpreter inside the block.

    An access is valid when it addresses an element of the view the kernel was given (its shape,
    strides and storage offset), not merely a byte inside its span. ``allow_base=True`` accepts
    any address inside each tensor's whole allocation (for kernels meant to read around a view),
    ``allow_base={"x_ptr"}`` only for the arguments named; ``races=False`` checks bounds only.
    ``pointers_into=[tensors]``: the tensors a kernel reaches through addresses it loads from memory
    (a tensor of ``data_ptr()`` values), checked against their views like arguments;
    ``pointers_into="live"``: every CPU tensor alive at the launch, checked against its allocation.
    ``record_mib``: the race record's budget per launch (default 1024, or TRITON_CHECKED_RECORD_MIB);
    past it the launch is checked for bounds only, with a one-line notice.
    """
    previous = (_state.allow_base, _state.races, _state.pointers_into, _state.budget)
    enable(allow_base=allow_base, races=races, pointers_into=pointers_into, record_mib=record_mib)
    try:
        yield
    finally:
        _state.allow_base, _state.races, _state.pointers_into, _state.budget = previous
        disable()


def from_environment(environ=os.environ, variable: str = ENV):
    """Enable the checks for the whole process if ``variable`` (TRITON_CHECKED) asks for them."""
    value = environ.get(variable, "").strip().lower()
    if value in ("", "0", "off", "no", "false"):
        return False
    if value not in ("1", "on", "yes", "true", "all", "bounds"):
        raise CheckedModeUnavailable(f"{variable}={value!r} is not understood: use 1 (bounds and races), bounds, or 0")
    enable(races=value != "bounds")
    return True
