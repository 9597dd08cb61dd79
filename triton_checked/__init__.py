"""Run unchanged Triton kernels under the interpreter with exact bounds checks and race checks.

    import triton_checked

    with triton_checked.checked():
        kernel[grid](x, y, n, BLOCK=128)

Bounds: every load, store and atomic checks each active (unmasked) lane against the view its
pointer was derived from (its shape, strides and storage offset: an element inside the view's
span that is not one of its elements is out of bounds too), and raises ``OutOfBounds`` (an
``IndexError``) naming the kernel line, the argument, the offset, the view's shape and strides and
its nearest element, before the memory is touched. Races: per launch, a happens-before record of
which program stored and loaded each element, ordered by each atomic's ``sem`` and ``scope``
(acquire, release, acq_rel order programs; relaxed and CTA-scoped atomics do not): two programs
touching one element, one storing, unordered, raise ``DataRace`` naming both programs and both
lines. So locks, ticket counters and flags built on atomics are understood; two atomics never race.
Within one program: two lanes (positions in blocks of pointers) touching one element, one storing,
with no barrier between (``tl.debug_barrier()``, or a scalar atomic), raise ``DataRace`` too.
Pointers a kernel loads from memory: ``checked(pointers_into=[tensors])`` or ``"live"``.

Whole scripts: ``python -m triton_checked script.py`` (or ``TRITON_CHECKED=1`` and
``triton_checked.from_environment()``). In pytest: the ``checked_interpreter`` fixture.
Importing this package imports neither Triton nor numpy and changes nothing.
"""

__all__ = ["checked", "enable", "disable", "OutOfBounds", "DataRace", "CheckedModeUnavailable", "from_environment",
           "launched_from"]
__version__ = "0.2.0"


def __getattr__(name):
    if name in __all__:
        from . import checker
        return getattr(checker, name)
    raise AttributeError(f"module 'triton_checked' has no attribute {name!r}")
