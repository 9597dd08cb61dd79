"""Tooling for the Triton pitfalls handbook: backend choice, page parsing and checks.

``triton_faq.checked()`` runs unchanged kernels under Triton's interpreter with bounds and race
checks (see ``triton_faq.checking``). Importing this package does not import Triton.
"""


def __getattr__(name):
    if name in ("checked", "OutOfBounds", "DataRace", "CheckedModeUnavailable"):
        from . import checking
        return getattr(checking, name)
    raise AttributeError(f"module 'triton_faq' has no attribute {name!r}")
