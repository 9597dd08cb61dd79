"""Run unchanged Triton kernels under the interpreter with bounds and race checks.

    with triton_faq.checked():
        kernel[grid](x, y, n, BLOCK=128)

Bounds: every load, store and atomic checks each active (unmasked) lane against the tensor its
pointer was derived from, and raises ``OutOfBounds`` (an ``IndexError``) naming the kernel line,
the argument, the element offset and the tensor's size, before the memory is touched.
Races: per launch, records which program stored and loaded each element; two programs storing
the same element, or one loading what another stored, raises ``DataRace`` naming both programs
and both lines. Atomics are never reported.

How: each tensor argument is given a private fake base address, 2**44 bytes apart from the
next one, so every pointer the kernel computes still says which argument it came from; the
real address is put back only after the checks pass. Works with Triton 3.2 and newer, under
the interpreter (``TRITON_INTERPRET=1``). For whole scripts: ``TRITON_FAQ_CHECKED=1`` (or
``bounds`` for bounds only) when ``triton_faq`` is imported, or ``triton-faq checked script.py``.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys
from dataclasses import dataclass, field

import numpy as np

__all__ = ["checked", "enable", "disable", "OutOfBounds", "DataRace", "CheckedModeUnavailable", "from_environment"]

ENV = "TRITON_FAQ_CHECKED"
SEGMENT_BITS = 44  # each argument's fake base is 2**44 bytes from the next: 16 TiB either way
SUPPORTED_FROM = (3, 2)


class CheckedModeUnavailable(RuntimeError):
    """The checks cannot run here (not the interpreter, or an unsupported Triton)."""


class OutOfBounds(IndexError):
    """An active lane of a load, store or atomic falls outside the tensor it was derived from."""


class DataRace(RuntimeError):
    """Two programs of one launch touch the same element, at least one storing, without atomics."""


@dataclass
class _Argument:
    name: str
    tensor: object
    fake_base: int
    real_base: int
    element_size: int
    numel: int
    lo: int  # valid byte offsets from real_base: [lo, hi)
    hi: int
    storage_key: tuple
    storage_offset_bytes: int  # real_base - storage start


@dataclass
class _Tracker:
    """Who stored and who loaded each element of one storage during one launch."""
    size: int
    writer: np.ndarray = field(init=False)
    reader: np.ndarray = field(init=False)
    writer_site: np.ndarray = field(init=False)
    reader_site: np.ndarray = field(init=False)

    def __post_init__(self):
        self.writer = np.full(self.size, -1, dtype=np.int64)
        self.reader = np.full(self.size, -1, dtype=np.int64)  # -2: loaded by several programs
        self.writer_site = np.full(self.size, -1, dtype=np.int64)
        self.reader_site = np.full(self.size, -1, dtype=np.int64)


class _Launch:
    def __init__(self, kernel_name, names_by_id):
        self.kernel_name = kernel_name
        self.names_by_id = names_by_id  # id(host tensor) -> argument name
        self.arguments: list[_Argument] = []
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
            f"triton_faq.checked() needs Triton {SUPPORTED_FROM[0]}.{SUPPORTED_FROM[1]} or newer; this is Triton {text}")
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise CheckedModeUnavailable(
            "triton_faq.checked() runs kernels under Triton's interpreter: set TRITON_INTERPRET=1 before triton is "
            "imported (TRITON_FAQ_BACKEND=interpreter does it for this project's snippets)")
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
            f"triton_faq.checked() does not support Triton {text}: its interpreter lacks {', '.join(missing)}")
    return interpreter


# -- where in the kernel ------------------------------------------------------------------------

def _machinery(filename: str, whole_package: bool = False) -> bool:
    """Whether a frame belongs to Triton, numpy, frozen imports or this checker (or all of triton_faq)."""
    import triton

    here = os.path.abspath(__file__)
    path = os.path.abspath(filename)
    ours = path.startswith(os.path.dirname(here) + os.sep) if whole_package else path == here
    return (filename.startswith(os.path.dirname(triton.__file__)) or "/numpy/" in filename
            or filename.startswith("<frozen") or ours)


def _kernel_site():
    """(file, line, function) of the innermost frame outside Triton, numpy and this module."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _machinery(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
        frame = frame.f_back
    return "<unknown>", 0, "<unknown>"


def _site_id(launch, site):
    if site not in launch.site_ids:
        launch.site_ids[site] = len(launch.sites)
        launch.sites.append(site)
    return launch.site_ids[site]


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

def _segments(addresses):
    return ((addresses.astype(np.uint64) + np.uint64(1 << (SEGMENT_BITS - 1))) >> np.uint64(SEGMENT_BITS)).astype(
        np.int64) - 1


def _access(builder, kind, ptrs, mask, element_size):
    """Check one access; return the real addresses (same shape) to hand to the interpreter."""
    launch = _state.launch
    addresses = np.asarray(ptrs.data)
    if launch is None:
        return addresses
    active = np.ones(addresses.shape, dtype=bool) if mask is None else np.broadcast_to(
        np.asarray(mask.data, dtype=bool), addresses.shape)
    segment = _segments(addresses)
    known = (segment >= 0) & (segment < len(launch.arguments))
    real = np.zeros(addresses.shape, dtype=np.uint64)
    offsets = np.zeros(addresses.shape, dtype=np.int64)
    if not launch.arguments:
        if active.any():
            _raise_unknown(builder, kind, launch, addresses, active)
        return addresses
    for index, argument in enumerate(launch.arguments):
        lanes = segment == index
        if not lanes.any():
            continue
        offsets[lanes] = addresses[lanes].astype(np.int64) - argument.fake_base
        real[lanes] = (np.uint64(argument.real_base) + offsets[lanes].astype(np.uint64))
    # lanes that are masked off keep a harmless real address: the interpreter does not touch them
    real[~known] = np.uint64(launch.arguments[0].real_base)
    if (active & ~known).any():
        _raise_unknown(builder, kind, launch, addresses, active & ~known)
    for index, argument in enumerate(launch.arguments):
        lanes = active & (segment == index)
        if not lanes.any():
            continue
        lo, hi = (-argument.storage_offset_bytes, _storage_nbytes(argument.tensor) - argument.storage_offset_bytes) \
            if _state.allow_base else (argument.lo, argument.hi)
        off = offsets[lanes]
        bad = (off < lo) | (off + element_size > hi)
        if bad.any():
            _raise_out_of_bounds(builder, kind, launch, argument, off[bad])
        if _state.races and kind != "atomic":
            _record(builder, kind, launch, argument, off)
    return real


def _storage_nbytes(tensor):
    return tensor.untyped_storage().nbytes()


def _raise_unknown(builder, kind, launch, addresses, lanes):
    site = _kernel_site()
    raise OutOfBounds(
        f"{kind} in kernel {launch.kernel_name} at {_describe_site(site)}\n"
        f"  uses an address that does not come from any tensor argument "
        f"(program {_program(builder)}, {int(lanes.sum())} active lane(s))")


def _raise_out_of_bounds(builder, kind, launch, argument, bad_offsets):
    site = _kernel_site()
    elements = bad_offsets // argument.element_size
    first = int(elements.flat[0])
    more = ""
    if elements.size > 1:
        more = f" ({elements.size} lanes out of bounds, offsets {int(elements.min())}..{int(elements.max())})"
    scope = "its base allocation" if _state.allow_base else "the tensor"
    raise OutOfBounds(
        f"out-of-bounds {kind} in kernel {launch.kernel_name} at {_describe_site(site)}\n"
        f"  argument {argument.name}: element offset {first}{more}; "
        f"{scope} has {argument.numel} elements, valid offsets 0..{argument.numel - 1}\n"
        f"  program {_program(builder)}")


def _record(builder, kind, launch, argument, byte_offsets):
    key = argument.storage_key + (argument.element_size,)
    tracker = launch.trackers.get(key)
    if tracker is None:
        tracker = launch.trackers[key] = _Tracker(_storage_nbytes(argument.tensor) // argument.element_size + 1)
    index = np.unique((byte_offsets + argument.storage_offset_bytes) // argument.element_size)
    index = index[(index >= 0) & (index < tracker.size)]
    if index.size == 0:
        return
    me = _linear(builder)
    writer = tracker.writer[index]
    if kind == "store":
        clash = (writer >= 0) & (writer != me)
        if clash.any():
            _raise_race(builder, launch, argument, index[clash][0], tracker.writer[index[clash][0]],
                        tracker.writer_site[index[clash][0]], "stored")
        reader = tracker.reader[index]
        clash = (reader != -1) & (reader != me)
        if clash.any():
            _raise_race(builder, launch, argument, index[clash][0], tracker.reader[index[clash][0]],
                        tracker.reader_site[index[clash][0]], "loaded")
        tracker.writer[index] = me
        tracker.writer_site[index] = _site_id(launch, _kernel_site())
    else:
        clash = (writer >= 0) & (writer != me)
        if clash.any():
            _raise_race(builder, launch, argument, index[clash][0], tracker.writer[index[clash][0]],
                        tracker.writer_site[index[clash][0]], "stored", this_kind="loads")
        reader = tracker.reader[index]
        tracker.reader[index] = np.where(reader == -1, me, np.where(reader == me, me, -2))
        fresh = reader == -1
        if fresh.any():
            tracker.reader_site[index[fresh]] = _site_id(launch, _kernel_site())


def _raise_race(builder, launch, argument, storage_index, other, other_site, other_did, this_kind="stores"):
    element = int(storage_index) - argument.storage_offset_bytes // argument.element_size
    site = _kernel_site()
    other_program = "another program" if other == -2 else f"program {_unlinear(builder, int(other))}"
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
        if not _machinery(frame.filename, whole_package=True):
            launch = frame
    if launch is None:
        return "<unknown>"
    return _describe_site((launch.filename, launch.lineno, launch.name))


# -- the patches ---------------------------------------------------------------------------------

def _element_size(ptrs):
    element = ptrs.get_element_ty()
    return max(1, element.primitive_bitwidth // 8)


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


def _make_argument(name, tensor, index):
    element_size = tensor.element_size()
    real = tensor.data_ptr()
    if tensor.numel() == 0:
        lo = hi = 0
    else:
        lo = sum(min(0, (s - 1) * st) for s, st in zip(tensor.shape, tensor.stride())) * element_size
        hi = (sum(max(0, (s - 1) * st) for s, st in zip(tensor.shape, tensor.stride())) + 1) * element_size
    storage = tensor.untyped_storage()
    return _Argument(name=name, tensor=tensor, fake_base=(index + 1) << SEGMENT_BITS, real_base=real,
                     element_size=element_size, numel=tensor.numel(), lo=lo, hi=hi,
                     storage_key=(storage.data_ptr(),), storage_offset_bytes=real - storage.data_ptr())


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
            argument = _make_argument(name, tensor, len(launch.arguments))
            launch.arguments.append(argument)
            converted.handle.data = np.array([argument.fake_base], dtype=np.uint64)
            return converted

        def checked_init_args_hst(self, args_dev, kwargs):
            args_hst, kwargs_hst = init_args_hst(self, args_dev, kwargs)
            if _state.launch is not None:
                _state.launch.names_by_id = _argument_names(self, args_hst, kwargs_hst)
            return args_hst, kwargs_hst

        def checked_call(self, *args, **kwargs):
            outer = _state.launch
            _state.launch = _Launch(getattr(self.fn, "__name__", "kernel"), {})
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

    ``allow_base=True`` accepts any address inside the tensor's whole allocation (for views that
    knowingly read around themselves); ``races=False`` checks bounds only.
    """
    previous = (_state.allow_base, _state.races)
    enable(allow_base=allow_base, races=races)
    try:
        yield
    finally:
        _state.allow_base, _state.races = previous
        disable()


def from_environment(environ=os.environ):
    """Enable the checks for the whole process if TRITON_FAQ_CHECKED asks for them."""
    value = environ.get(ENV, "").strip().lower()
    if value in ("", "0", "off", "no", "false"):
        return False
    if value not in ("1", "on", "yes", "true", "all", "bounds"):
        raise CheckedModeUnavailable(f"{ENV}={value!r} is not understood: use 1 (bounds and races), bounds, or 0")
    enable(races=value != "bounds")
    return True
