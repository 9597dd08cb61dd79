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
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer
from sybil.parsers.markdown.skip import SkipParser

from . import handbook
from .handbook.page import INCLUDE, section_exists, section_lines

RUN_INFO = "python"
PYTHONISH = re.compile(r"^\{?\s*\.?(py|python\d?|pycon|ipython\d?)\b", re.IGNORECASE)
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

_lexer = RawFencedCodeBlockLexer(
    info_pattern=re.compile(r"(?P<info>[^\n]*)$\n", re.MULTILINE),
    mapping={"info": "info", "source": "source"},
)


def _run_python(example):
    """Run a plain fence in the page's namespace, as the lines of one script.

    Not sybil's ``PythonEvaluator``: it deletes ``__builtins__`` from the namespace after each fence,
    and a function an earlier fence defined (its globals are that namespace) then fails on its next
    call to a builtin with ``KeyError: '__builtins__'``, which no reader running the page's code sees.
    """
    source = "\n" * (example.line + example.parsed.line_offset) + example.parsed
    exec(compile(source, example.path, "exec", dont_inherit=True), example.namespace)


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


def _is_translation(root: Path, document) -> bool:
    """A page in a language other than the default: its code is the default page's (parity checks it)."""
    site = handbook.load_site(root)
    try:
        return site.language_of(Path(document.path).resolve()) != site.default
    except handbook.SiteError:  # not a page of the site
        return False


class PageFenceParser:
    """Callable sybil parser; ``root`` is where include paths start (the repository)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def __call__(self, document):
        if _is_translation(self.root, document):
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


_SKIP_CONDITION = re.compile(r"^if\((?P<condition>.*?),\s*reason=.*\)\s*$", re.DOTALL)


def _condition_holds(arguments: str | None, device: str) -> bool:
    """A skip directive's ``if(<condition>, reason=...)`` for a run on ``device`` ("cpu" or "cuda");
    no condition holds always, and a condition on names other than DEVICE counts as false."""
    if not arguments:
        return True
    match = _SKIP_CONDITION.match(arguments.strip())
    if match is None:
        return True
    from types import SimpleNamespace

    names = {"DEVICE": device, "torch": SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: device == "cuda"))}
    try:
        return bool(eval(match["condition"], {"__builtins__": {}}, names))  # noqa: S307 (the page's own directive)
    except NameError:
        return False


def _fence_code(root: Path, source: str) -> str:
    if source.lstrip().startswith(">>>"):
        return "\n".join(example.source for example in doctest.DocTestParser().get_examples(source))
    lines = [line for line in source.split("\n") if line.strip()]
    matches = [INCLUDE.match(line) for line in lines]
    if lines and all(matches):
        parts = []
        for match in matches:
            if match["path"].endswith(".py") and section_exists(root, match["path"], match["section"]) is None:
                parts.append(section_lines(root / match["path"], match["section"])[1] if match["section"]
                             else (root / match["path"]).read_text(encoding="utf-8"))
        return "\n".join(parts)
    return source


def _bound_and_used(code: str) -> tuple[set[str], set[str]]:
    """The names ``code`` binds at module level, and the names it reads that it binds nowhere."""
    import ast
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return set(), set()
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
              ast.DictComp, ast.GeneratorExp)
    bound, anywhere, used = set(), set(), set()

    def visit(node, nested):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                used.add(node.id)
            else:
                anywhere.add(node.id)
                if not nested:
                    bound.add(node.id)
        elif isinstance(node, ast.arg):
            anywhere.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not nested:
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            anywhere.update(names)
            if not nested:
                bound.update(names)
        for child in ast.iter_child_nodes(node):
            visit(child, nested or isinstance(node, scopes))

    visit(tree, False)
    return bound, used - anywhere - bound


def names_only_the_other_backend_defines(root: Path, text: str, device: str) -> list[tuple[int, str]]:
    """(line, name) of each name a fence that runs on ``device`` uses, which only fences skipped on
    ``device`` define: the page then fails on that backend, which a run on the other one never shows.

    The page is read by the suite's own parser: the same fences and skip directives as a run."""
    from sybil import Document

    document = Document(text, str(root / "page.md"))
    regions = sorted(PageFenceParser(root)(document), key=lambda region: region.start)
    defined, skipped_defined, found = set(), set(), []
    skip_next = skip_block = False
    for region in regions:
        if isinstance(region.parsed, tuple):  # a skip directive: (action, arguments)
            action, arguments = region.parsed
            holds = _condition_holds(arguments, device)
            if action == "next":
                skip_next = holds
            elif action == "start":
                skip_block = holds
            else:
                skip_block = False
            continue
        bound, used = _bound_and_used(_fence_code(root, region.parsed))
        if skip_next or skip_block:
            skipped_defined |= bound - defined
        else:
            line = text.count("\n", 0, region.start) + 1
            found += [(line, name) for name in sorted(used & skipped_defined - defined)]
            defined |= bound
        skip_next = False
    return found
