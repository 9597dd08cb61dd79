"""The sybil parser for page code fences: run Python, check includes, refuse what would be skipped.

* ```` ```python ```` with code: executed, in one namespace per page.
* ```` ```python ```` holding only ``--8<--`` include lines: the file and section must exist
  (the snippet's own tests run that code).
* A fence preceded by ``<!-- skip-fence: <reason> -->``: reported as skipped with that reason.
* A Python fence spelt any other way (```` ```py ````, ```` ```python3 ````,
  ```` ```python title="x.py" ````): fails, because it would silently go unrun.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sybil import Region
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from .pages import INCLUDE, section_exists

RUN_INFO = "python"
PYTHONISH = re.compile(r"^\{?\s*\.?(py|python\d?|pycon|ipython\d?)\b", re.IGNORECASE)
SKIP = re.compile(r"<!--\s*skip-fence:(?P<reason>.*?)-->\s*$")

_lexer = RawFencedCodeBlockLexer(info_pattern=re.compile(r"(?P<info>[^\n]*)$\n", re.MULTILINE))
_run_python = PythonEvaluator()


class FenceCheckError(AssertionError):
    """A fence the suite cannot run or check as written."""


def _fail(message: str):
    def evaluate(example):
        raise FenceCheckError(f"{example.path}:{example.line}: {message}")

    return evaluate


def _skip(reason: str):
    def evaluate(example):
        pytest.skip(f"fence skipped on the page: {reason}")

    return evaluate


def _check_includes(root: Path, includes: list[tuple[str, str | None]]):
    def evaluate(example):
        problems = [p for p in (section_exists(root, path, section) for path, section in includes) if p]
        if problems:
            raise FenceCheckError(f"{example.path}:{example.line}: " + "; ".join(problems))

    return evaluate


def _skip_reason(text: str, start: int) -> str | None:
    """The reason of a skip directive on the last non-blank line before ``start``, if any."""
    before = text[:start].rstrip().rsplit("\n", 1)[-1]
    match = SKIP.search(before)
    return None if match is None else match["reason"].strip()


class PageFenceParser:
    """Callable sybil parser; ``root`` is where include paths start (the repository)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def __call__(self, document):
        for region in _lexer(document):
            info = region.lexemes["info"].strip()
            source = region.lexemes["source"]
            reason = _skip_reason(document.text, region.start)
            if info != RUN_INFO:
                if PYTHONISH.match(info):
                    yield self._region(region, source, _fail(
                        f"fence info '{info}' would not be run; write exactly ```python "
                        "(and add <!-- skip-fence: reason --> above it if it must not run)"))
                continue
            if reason is not None:
                evaluator = _skip(reason) if reason else _fail("skip-fence needs a written reason")
                yield self._region(region, source, evaluator)
                continue
            lines = [line for line in source.split("\n") if line.strip()]
            includes = [INCLUDE.match(line) for line in lines]
            if any(includes):
                if not all(includes):
                    evaluator = _fail("a fence mixes --8<-- include lines with code")
                else:
                    evaluator = _check_includes(self.root, [(m["path"], m["section"]) for m in includes])
                yield self._region(region, source, evaluator)
                continue
            yield self._region(region, source, _run_python)

    @staticmethod
    def _region(region, source, evaluator):
        return Region(region.start, region.end, source, evaluator)
