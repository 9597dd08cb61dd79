"""Tooling for the Triton pitfalls handbook: backend choice, page parsing and checks.

The checked interpreter is its own package, ``triton_checked`` (``pip install ./triton_checked``);
``triton_faq.checked`` and the report classes are the same objects, for older callers. Importing
this package does not import Triton.
"""


def __getattr__(name):
    if name in ("checked", "OutOfBounds", "DataRace", "CheckedModeUnavailable", "launched_from"):
        import triton_checked
        return getattr(triton_checked, name)
    raise AttributeError(f"module 'triton_faq' has no attribute {name!r}")
