"""The sybil parser for page code fences: a page's Python runs, in order, in one namespace.

Copying a page's ```` ```python ```` blocks in order into one file gives a program that runs, and
the ``>>>`` sessions show what it prints. The parser holds every English page to that:

* a fence of ``--8<--`` include lines runs the included sections of the reader's file, each
  compiled under the file's own name and line numbers (so Triton can read a kernel's source);
* a fence that starts with ``>>>`` is a doctest session, run as one example: every output shown
  is compared with the run's (``...`` matches anything, whitespace is normalised);
* any other ```` ```python ```` fence runs as written;
* ``<!-- skip: next if(DEVICE == "cuda", reason="...") -->`` (sybil's skip directive) skips the
  next fence, a whole session included, when its condition holds in the page's namespace:
  backend-specific output;
* a Python fence spelt any other way (```` ```py ````, ```` ```pycon ````) fails, because it
  would silently go unrun.

The namespace starts empty but for ``__name__ = "__main__"``: a page that leans on a name it never defines fails. Chinese pages
are not run again: the parity check requires their Python fences to equal the English ones.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from sybil import Region
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer
from sybil.parsers.markdown.skip import SkipParser

from .pages import INCLUDE, section_exists, section_lines

RUN_INFO = "python"
PYTHONISH = re.compile(r"^\{?\s*\.?(py|python\d?|pycon|ipython\d?)\b", re.IGNORECASE)
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

_lexer = RawFencedCodeBlockLexer(
    info_pattern=re.compile(r"(?P<info>[^\n]*)$\n", re.MULTILINE),
    mapping={"info": "info", "source": "source"},
)
_run_python = PythonEvaluator()
_skips = SkipParser()


class FenceCheckError(AssertionError):
    """A fence the suite cannot run or check as written."""


def _fail(message: str):
    def evaluate(example):
        raise FenceCheckError(f"{example.path}:{example.line}: {message}")

    return evaluate


def _run_includes(root: Path, includes: list[tuple[str, str | None]]):
    """Run each included section under its own file name and line numbers."""

    def evaluate(example):
        problems = [p for p in (section_exists(root, path, section) for path, section in includes) if p]
        if problems:
            raise FenceCheckError(f"{example.path}:{example.line}: " + "; ".join(problems))
        for path, section in includes:
            if not path.endswith(".py"):
                continue
            first, code = section_lines(root / path, section)
            exec(compile("\n" * (first - 1) + code, str(root / path), "exec"), example.namespace)

    return evaluate


def _session(source: str, path: str, first_line: int):
    """Run a whole ``>>>`` session as one doctest in the page's namespace; fail with doctest's report."""

    def evaluate(example):
        test = doctest.DocTestParser().get_doctest(source, example.namespace, name=path, filename=path,
                                                   lineno=first_line)
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
        runner.run(test, out=report.append, clear_globs=False)
        example.namespace.update(test.globs)  # DocTest ran on a copy: what the session defined stays
        if runner.failures:
            raise FenceCheckError("".join(report))

    return evaluate


def _is_chinese(document) -> bool:
    parts = Path(document.path).parts
    return "docs" in parts and "zh" in parts


class PageFenceParser:
    """Callable sybil parser; ``root`` is where include paths start (the repository)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def __call__(self, document):
        if _is_chinese(document):
            return
        yield from _skips(document)
        for region in _lexer(document):
            info = region.lexemes["info"].strip()
            source = region.lexemes["source"]
            if info != RUN_INFO:
                if PYTHONISH.match(info):
                    yield self._region(region, source, _fail(
                        f"fence info '{info}' would not be run; write exactly ```python "
                        "(and put <!-- skip: next if(<condition>, reason=\"...\") --> above it if it must not always run)"))
                continue
            if source.lstrip().startswith(">>>"):
                first_line = document.text.count("\n", 0, region.start) + 1
                yield self._region(region, source, _session(str(source), document.path, first_line))
                continue
            lines = [line for line in source.split("\n") if line.strip()]
            includes = [INCLUDE.match(line) for line in lines]
            if any(includes):
                if not all(includes):
                    evaluator = _fail("a fence mixes --8<-- include lines with code")
                else:
                    evaluator = _run_includes(self.root, [(m["path"], m["section"]) for m in includes])
                yield self._region(region, source, evaluator)
                continue
            yield self._region(region, source, _run_python)

    @staticmethod
    def _region(region, source, evaluator):
        return Region(region.start, region.end, source, _as_a_script(evaluator))


def _as_a_script(evaluator):
    """Run with ``__name__ == "__main__"``, as the page's code copied into a file would.

    Without a ``__name__`` the functions a fence defines have ``__module__`` None, and compiling a
    kernel that calls such a ``@triton.jit`` helper fails inside Triton (its global lookup calls
    ``__module__.startswith``), a failure no reader sees.
    """

    def evaluate(example):
        example.namespace.setdefault("__name__", "__main__")
        return evaluator(example)

    return evaluate
