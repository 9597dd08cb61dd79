"""Error messages that entries answer: read from front matter, reproduced by the entries' proofs.

An entry lists, under ``errors:`` in its front matter (identical in both languages)::

    errors:
      - message: "arange's range must be a power of 2"   # the text users see, verbatim
        fingerprint: "arange's range must be a power of 2"  # a regex; where numbers, names or paths vary
        where: compile          # compile | launch | interpreter | runtime
        backend: any            # any | interpreter | cuda: where the snippet reproduces it
        reproduce: block_of_100  # a function of the entry's proof (tests/entries/...): raises the error,
                                 # or returns the captured output

A gate test calls ``reproduce`` and checks that what comes out contains ``message`` and matches
``fingerprint``: an entry cannot claim an error its own pitfall does not produce.
"""

from __future__ import annotations

import runpy
import traceback
from pathlib import Path

from . import handbook
from .handbook import ClaimedError
from .handbook.entry import error_problems
from .handbook.schema import BACKENDS, WHERE

__all__ = ["ClaimedError", "WHERE", "BACKENDS", "load", "reproduce", "error_problems"]


def load(root: Path = handbook.ROOT) -> tuple[list[ClaimedError], list[str]]:
    """Every claimed error of every entry, and every problem with how they are written."""
    book = handbook.load(root)
    return book.claimed_errors, book.error_problems


_snippets: dict[Path, dict] = {}


def reproduce(root: Path, error: ClaimedError) -> str:
    """Run the entry's reproducer; return the error it raised (formatted) or the text it returned."""
    path = root / error.entry.proof
    handbook.importable(root)
    if path not in _snippets:
        _snippets[path] = runpy.run_path(str(path))
    function = _snippets[path].get(error.reproduce)
    if not callable(function):
        raise LookupError(f"{error.entry.proof} has no function {error.reproduce}() for {error.entry.page}")
    try:
        returned = function()
    except Exception as raised:  # the error under test
        return "".join(traceback.format_exception(raised))
    if not isinstance(returned, str):
        raise TypeError(f"{error.reproduce}() neither raised nor returned captured output (got {type(returned).__name__})")
    return returned
