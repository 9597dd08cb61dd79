"""The checks: Triton's interpreter, patched while ``checked()`` is active, checks every access.

Each tensor argument of a launch gets a private fake base address, 2**44 bytes from the next
one, so every pointer the kernel computes still says which argument it came from; the real
address is put back only after the checks pass. Works with Triton 3.2 and newer, under the
interpreter (``TRITON_INTERPRET=1``).
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys

import numpy as np

from .views import view

ENV = "TRITON_CHECKED"
SEGMENT_BITS = 44  # each argument's fake base is 2**44 bytes from the next: 8 TiB either way
SUPPORTED_FROM = (3, 2)
_HALF = np.uint64(1 << (SEGMENT_BITS - 1))
_SHIFT = np.uint64(SEGMENT_BITS)
_HALF_INT = 1 << (SEGMENT_BITS - 1)
_RECORD_DEPTH = 5  # _kernel_site <- _record <- _check <- _access <- the patched builder method: skip those


class CheckedModeUnavailable(RuntimeError):
    """The checks cannot run here (not the interpreter, or an unsupported Triton)."""


class OutOfBounds(IndexError):
    """An active lane of a load, store or atomic addresses no element of the tensor it came from."""


class DataRace(RuntimeError):
    """Two programs of one launch touch the same element, at least one storing, without atomics."""


class _Argument:
    __slots__ = ("name", "tensor", "fake_base", "real_base", "delta", "element_size", "view", "byte_span",
                 "storage_key", "storage_offset_bytes", "storage_nbytes", "shift")

    def __init__(self, name, tensor, index):
        self.name = name
        self.tensor = tensor
        self.element_size = tensor.element_size()
        self.shift = self.element_size.bit_length() - 1 if self.element_size & (self.element_size - 1) == 0 else None
        self.real_base = tensor.data_ptr()
        self.fake_base = (index + 1) << SEGMENT_BITS
        self.delta = np.uint64((self.real_base - self.fake_base) % (1 << 64))
        self.view = view(tuple(tensor.shape), tuple(tensor.stride()))
        self.byte_span = self.view.span * self.element_size
        storage = tensor.untyped_storage()
        self.storage_key = storage.data_ptr()
        self.storage_offset_bytes = self.real_base - storage.data_ptr()
        self.storage_nbytes = storage.nbytes()


class _Tracker:
    """Who stored and who loaded each element of one storage during one launch."""
    __slots__ = ("writer", "reader", "writer_site", "reader_site")

    def __init__(self, size):
        self.writer = np.zeros(size, dtype=np.int32)  # program + 1; 0: nobody
        self.reader = np.zeros(size, dtype=np.int32)  # program + 1; 0: nobody; -1: several programs
        self.writer_site = np.full(size, -1, dtype=np.int32)
        self.reader_site = np.full(size, -1, dtype=np.int32)


class _Launch:
    def __init__(self, kernel_name):
        self.kernel_name = kernel_name
        self.names_by_id = {}  # id(host tensor) -> argument name
        self.arguments: list[_Argument] = []
        self.deltas = None
        self.trackers: dict[tuple, _Tracker] = {}
        self.sites: list[tuple] = []
        self.site_ids: dict[tuple, int] = {}


class _State:
    def __init__(self):
        self.depth = 0
        self.allow_base = False
        self.races = True
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

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_machinery_cache: dict = {}


def _machinery(filename: str) -> bool:
    """Whether a frame belongs to Triton, numpy, frozen imports or this package."""
    known = _machinery_cache.get(filename)
    if known is None:
        import triton

        path = os.path.abspath(filename)
        known = (filename.startswith(os.path.dirname(triton.__file__)) or "/numpy/" in filename
                 or filename.startswith("<frozen") or path.startswith(_PACKAGE))
        _machinery_cache[filename] = known
    return known


def _kernel_site(skip=1):
    """(file, line, function) of the innermost frame outside Triton, numpy and this package."""
    frame = sys._getframe(skip)
    while frame is not None:
        code = frame.f_code
        if not _machinery(code.co_filename):
            return code.co_filename, frame.f_lineno, code.co_name
        frame = frame.f_back
    return "<unknown>", 0, "<unknown>"


def _site_id(launch, site):
    found = launch.site_ids.get(site)
    if found is None:
        found = launch.site_ids[site] = len(launch.sites)
        launch.sites.append(site)
    return found


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
            return addresses
        else:
            live = addresses[active]
    arguments = launch.arguments
    low, high = int(live.min()), int(live.max())
    first, last = (low + _HALF_INT) >> SEGMENT_BITS, (high + _HALF_INT) >> SEGMENT_BITS  # argument i: i + 1
    if first == last:
        if not 1 <= first <= len(arguments):
            _raise_unknown(builder, kind, launch, live.size)
        argument = arguments[first - 1]
        _check(builder, kind, launch, argument, live, low - argument.fake_base, high - argument.fake_base,
               access_size)
        return addresses + argument.delta
    segments = (live + _HALF) >> _SHIFT
    if first < 1 or last > len(arguments):
        bad = (segments < 1) | (segments > len(arguments))
        _raise_unknown(builder, kind, launch, int(bad.sum()))
    for number in np.unique(segments):
        argument = arguments[int(number) - 1]
        lanes = live[segments == number]
        _check(builder, kind, launch, argument, lanes, int(lanes.min()) - argument.fake_base,
               int(lanes.max()) - argument.fake_base, access_size)
    if launch.deltas is None:
        launch.deltas = np.array([arguments[0].delta] + [a.delta for a in arguments] + [arguments[0].delta],
                                 dtype=np.uint64)
    every = np.minimum((addresses + _HALF) >> _SHIFT, np.uint64(len(arguments) + 1))
    return addresses + launch.deltas[every.astype(np.intp)]  # masked-off lanes: never dereferenced


def _check(builder, kind, launch, argument, lanes, low, high, access_size):
    """Raise unless every lane (a fake address) addresses the argument's elements.

    ``low`` and ``high`` are the smallest and largest byte offsets from the argument's first element.
    """
    high += access_size
    offsets = None
    if _state.allow_base:
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
    if _state.races and kind != "atomic":
        # storage element index = (fake address - fake base + storage offset) / element size
        index = lanes.view(np.int64) - (argument.fake_base - argument.storage_offset_bytes)
        _record(builder, kind, launch, argument, index >> argument.shift if argument.shift is not None
                else index // argument.element_size)


def _in_view(argument, offsets, access_size):
    size = argument.element_size
    elements = offsets >> argument.shift if argument.shift is not None else offsets // size
    valid = argument.view.contains(elements)
    split = access_size > size or bool(((offsets - elements * size) + access_size > size).any())
    if split:  # the access reaches into the next element(s): that one must be the view's too
        valid &= argument.view.contains((offsets + access_size - 1) // size)
    return valid


def _raise_unknown(builder, kind, launch, lanes):
    site = _kernel_site()
    raise OutOfBounds(
        f"{kind} in kernel {launch.kernel_name} at {_describe_site(site)}\n"
        f"  uses an address that does not come from any tensor argument "
        f"(program {_program(builder)}, {lanes} active lane(s))")


def _raise_out_of_bounds(builder, kind, launch, argument, bad_offsets):
    site = _kernel_site()
    elements = np.sort(bad_offsets // argument.element_size)
    first, view = int(elements[0]), argument.view
    if _state.allow_base:
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
    raise OutOfBounds(
        f"out-of-bounds {kind} in kernel {launch.kernel_name} at {_describe_site(site)}\n"
        f"  argument {argument.name}: element offset {first}{more}; {where}\n"
        f"  view: {view.describe()} (in elements); nearest element {list(index)} at offset {offset}\n"
        f"  program {_program(builder)}")


def _record(builder, kind, launch, argument, index):
    """Note who touched each storage element ``index``; raise if another program stored or loaded it.

    Trackers hold program + 1 (0: nobody); readers -1 when several programs loaded an element.
    """
    key = (argument.storage_key, argument.element_size)
    tracker = launch.trackers.get(key)
    if tracker is None:
        tracker = launch.trackers[key] = _Tracker(argument.storage_nbytes // argument.element_size + 1)
    if _state.allow_base:
        index = index[(index >= 0) & (index < tracker.writer.size)]
        if index.size == 0:
            return
    me = _linear(builder) + 1
    writer = tracker.writer[index]
    if int(writer.max()) != 0 and not int(writer.min()) == int(writer.max()) == me:  # stored before: by whom?
        clash = (writer != 0) & (writer != me)
        if clash.any():
            at = index[clash][0]
            _raise_race(builder, launch, argument, at, tracker.writer[at], tracker.writer_site[at], "stored",
                        this_kind="stores" if kind == "store" else "loads")
    reader = tracker.reader[index]
    low, high = int(reader.min()), int(reader.max())
    if kind == "store":
        if high != 0 and not low == high == me:  # loaded before: by whom?
            clash = (reader != 0) & (reader != me)
            if clash.any():
                at = index[clash][0]
                _raise_race(builder, launch, argument, at, tracker.reader[at], tracker.reader_site[at], "loaded")
        tracker.writer[index] = me
        tracker.writer_site[index] = _site_id(launch, _kernel_site(_RECORD_DEPTH))
    elif low == high == 0:  # nobody loaded these yet
        tracker.reader[index] = me
        tracker.reader_site[index] = _site_id(launch, _kernel_site(_RECORD_DEPTH))
    elif not (low == high == me or low == high == -1):
        fresh = reader == 0
        tracker.reader[index] = np.where(fresh | (reader == me), me, -1)
        if fresh.any():
            tracker.reader_site[index[fresh]] = _site_id(launch, _kernel_site(_RECORD_DEPTH))


def _raise_race(builder, launch, argument, storage_index, other, other_site, other_did, this_kind="stores"):
    element = int(storage_index) - argument.storage_offset_bytes // argument.element_size
    site = _kernel_site()
    other_program = "another program" if other == -1 else f"program {_unlinear(builder, int(other) - 1)}"
    earlier = launch.sites[int(other_site)] if other_site >= 0 else ("<unknown>", 0, "<unknown>")
    raise DataRace(
        f"data race in kernel {launch.kernel_name} on argument {argument.name}, element {element}:\n"
        f"  program {_program(builder)} {this_kind} it at {_describe_site(site)}\n"
        f"  {other_program} {other_did} it at {_describe_site(earlier)}\n"
        f"  programs of one launch may run in any order, or at the same time: use an atomic, or give each "
        f"element to one program")


def launched_from(report: BaseException) -> str:
    """The line that launched the kernel a report is about: the last frame outside Triton before it."""
    import traceback

    import triton
    launch = None
    for frame in traceback.extract_tb(report.__traceback__):
        if frame.filename.startswith(os.path.dirname(triton.__file__)):
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


def _patched_builder(cls):
    load, store = cls.create_masked_load, cls.create_masked_store
    rmw, cas = cls.create_atomic_rmw, cls.create_atomic_cas

    def create_masked_load(self, ptrs, mask, *args, **kwargs):
        real = _access(self, "load", ptrs, mask, _element_size(ptrs))
        return load(self, _handle(ptrs, real), mask, *args, **kwargs)

    def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
        real = _access(self, "store", ptrs, mask, _element_size(ptrs))
        return store(self, _handle(ptrs, real), value, mask, *args, **kwargs)

    def create_atomic_rmw(self, op, ptr, val, mask, *args, **kwargs):
        real = _access(self, "atomic", ptr, mask, _element_size(ptr))
        return rmw(self, op, _handle(ptr, real), val, mask, *args, **kwargs)

    def create_atomic_cas(self, ptr, cmp, val, *args, **kwargs):
        real = _access(self, "atomic", ptr, None, _element_size(ptr))
        return cas(self, _handle(ptr, real), cmp, val, *args, **kwargs)

    return {"create_masked_load": create_masked_load, "create_masked_store": create_masked_store,
            "create_atomic_rmw": create_atomic_rmw, "create_atomic_cas": create_atomic_cas}


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


def enable(*, allow_base: bool = False, races: bool = True):
    """Turn the checks on with these options (nestable); ``disable()`` undoes one ``enable()``."""
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
            argument = _Argument(name, tensor, len(launch.arguments))
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
    _state.allow_base, _state.races = allow_base, races
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
def checked(*, allow_base: bool = False, races: bool = True):
    """Bounds- and race-check every kernel launched under the interpreter inside the block.

    An access is valid when it addresses an element of the view the kernel was given (its shape,
    strides and storage offset), not merely a byte inside its span. ``allow_base=True`` accepts
    any address inside the tensor's whole allocation (for kernels meant to read around a view);
    ``races=False`` checks bounds only.
    """
    previous = (_state.allow_base, _state.races)
    enable(allow_base=allow_base, races=races)
    try:
        yield
    finally:
        _state.allow_base, _state.races = previous
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
