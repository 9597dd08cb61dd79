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

import re
import runpy
import traceback
from dataclasses import dataclass
from pathlib import Path

from . import entries as entries_module
from .pages import parse

WHERE = ("compile", "launch", "interpreter", "runtime")
BACKENDS = ("any", "interpreter", "cuda")
KEYS = {"message", "fingerprint", "where", "backend", "reproduce"}


@dataclass(frozen=True)
class ClaimedError:
    entry: entries_module.Entry
    message: str
    fingerprint: re.Pattern
    where: str
    backend: str
    reproduce: str

    @property
    def name(self) -> str:
        return f"{self.entry.id}:{self.reproduce}"


def _check(entry, item, index) -> list[str]:
    where = f"{entry.page}: errors[{index}]"
    if not isinstance(item, dict):
        return [f"{where} must be a mapping with keys {sorted(KEYS)}"]
    problems = []
    if set(item) != KEYS:
        missing, extra = KEYS - set(item), set(item) - KEYS
        problems.append(f"{where}: missing {sorted(missing)}" if missing else f"{where}: unknown keys {sorted(extra)}")
    for key in KEYS & set(item):
        if not isinstance(item[key], str) or not item[key].strip():
            problems.append(f"{where}: '{key}' must be a non-empty string")
    if isinstance(item.get("where"), str) and item["where"] not in WHERE:
        problems.append(f"{where}: where '{item['where']}' is not one of {', '.join(WHERE)}")
    if isinstance(item.get("backend"), str) and item["backend"] not in BACKENDS:
        problems.append(f"{where}: backend '{item['backend']}' is not one of {', '.join(BACKENDS)}")
    if isinstance(item.get("fingerprint"), str):
        try:
            pattern = re.compile(item["fingerprint"])
        except re.error as error:
            problems.append(f"{where}: fingerprint is not a valid regex: {error}")
        else:
            if isinstance(item.get("message"), str) and not pattern.search(item["message"]):
                problems.append(f"{where}: fingerprint does not match its own message")
    return problems


def load(root: Path = entries_module.ROOT) -> tuple[list[ClaimedError], list[str]]:
    """Every claimed error of every entry, and every problem with how they are written."""
    claimed, problems = [], []
    for entry in entries_module.load(root):
        items = parse(root / entry.page).front_matter.get("errors", [])
        if not isinstance(items, list):
            problems.append(f"{entry.page}: 'errors' must be a list")
            continue
        for index, item in enumerate(items):
            found = _check(entry, item, index)
            problems += found
            if not found:
                claimed.append(ClaimedError(entry, item["message"], re.compile(item["fingerprint"]),
                                            item["where"], item["backend"], item["reproduce"]))
    return claimed, problems


_snippets: dict[Path, dict] = {}


def reproduce(root: Path, error: ClaimedError) -> str:
    """Run the entry's reproducer; return the error it raised (formatted) or the text it returned."""
    path = root / error.entry.proof
    entries_module.importable(root)
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
