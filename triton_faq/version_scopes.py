"""Version scopes: a claim whose proof changes outcome across Triton releases says on which.

``data/version-matrix.json`` records, per entry, each interpreter test (one per claim) on each
Triton release from 3.2. For a test whose outcome is not the same on every release it ran on:

1. every sentence of the entry's pages, in both languages, that cites the test (`` `test_x` ``)
   names, for each change, one of the two releases the change lies between (a change from
   passing on 3.6 to failing on 3.7 needs "3.6" or "3.7" in the sentence: "up to 3.6",
   "3.2–3.6", "from 3.7", "3.7 起" all do);
2. every row that fails on some release is explained on each page in one line,
   ``<!-- version-note: test_x: why -->``, which the page's version table ("On which Triton
   versions", ``hooks/version_matrix.py``) shows next to the row;
3. where the entry's code does not import on a release (the matrix's ``import_errors``: no test of
   the file runs there), one line explains it for the whole file, ``<!-- version-note: import: why
   -->``, shown under the table; a row that fails only on those releases needs no line of its own.

Every entry's pages are held to it (``triton-faq check``).
"""

from __future__ import annotations

import re
from pathlib import Path

from . import handbook
from .handbook import ROOT
from .matrix import read

IMPORT = "import"  # the note for the releases where the entry's code does not import
NOTE = re.compile(r"<!--\s*version-note:\s*(?P<test>test_\w+|import)\s*:\s*(?P<why>.*?)\s*-->")
CITED = re.compile(r"`(test_\w+)`")
RELEASE = re.compile(r"(?<![\d.])3\.(\d+)(?:\.\d+)?(?!\d)")
FENCE = re.compile(r"^\s*(```|~~~)")
BLOCK_START = re.compile(r"^\s*(?:[-*] |\d+\. |\?\?\?|!!!|#|>|<!--)")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(“\"\[])|(?<=[。！？])")


def short(version: str) -> str:
    return ".".join(version.split(".")[:2])


def outcomes(row: dict, versions: list[str]) -> dict[str, list[tuple[str, bool]]]:
    """Per test: [(release, passed)] over the releases it ran on (passed, failed, or not collected)."""
    ran = {}
    for test, by_version in row.get("tests", {}).items():
        ran[test] = [(short(v), by_version[v] == "passed") for v in versions
                     if by_version.get(v) in ("passed", "failed", "not collected")]
    return ran


def changes(runs: list[tuple[str, bool]]) -> list[tuple[str, str]]:
    """The pairs of consecutive releases between which the outcome changes."""
    return [(a, b) for (a, ok_a), (b, ok_b) in zip(runs, runs[1:]) if ok_a != ok_b]


def sentences(text: str) -> list[tuple[int, str]]:
    """(line, sentence) of the prose: code fences and comments left out, list items and folds apart."""
    blocks: list[tuple[int, list[str]]] = []
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or not line.strip():
            blocks.append((number, []))
            continue
        line = re.sub(r"<!--.*?-->", "", line)
        if BLOCK_START.match(line) or not blocks:
            blocks.append((number, []))
        blocks[-1][1].append(line.strip())
    found = []
    for number, lines in blocks:
        joined = " ".join(lines)
        for sentence in SENTENCE_END.split(joined):
            if sentence.strip():
                found.append((number, sentence.strip()))
    return found


def import_only(runs: list[tuple[str, bool]], unimported: set[str]) -> bool:
    """Whether a test fails only on releases where its file does not import."""
    return all(ok or version in unimported for version, ok in runs)


def unimported_releases(row: dict) -> set[str]:
    """The releases (3.x) where the entry's code does not import (the matrix's ``import_errors``)."""
    return {short(version) for version in row.get("import_errors", {})}


def failing_only_where_unimported(row: dict, versions: list[str]) -> set[str]:
    """The tests that fail somewhere, and only on releases where the entry's code does not import."""
    unimported = unimported_releases(row)
    return {test for test, runs in outcomes(row, versions).items()
            if unimported and not all(ok for _, ok in runs) and import_only(runs, unimported)}


def page_problems(path: Path, relative: Path, ran: dict, failing: set[str], text: str | None = None,
                  unimported: set[str] = frozenset()) -> list[str]:
    """``unimported``: the releases (3.x) where the entry's code does not import."""
    text = path.read_text(encoding="utf-8") if text is None else text
    problems = []
    for number, sentence in sentences(text):
        named = set(RELEASE.findall(sentence))
        for test in dict.fromkeys(CITED.findall(sentence)):
            for a, b in changes(ran.get(test, [])):
                if a.split(".")[1] not in named and b.split(".")[1] not in named:
                    problems.append(f"{relative}:{number}: `{test}` changes outcome between Triton {a} and {b} "
                                    f"(data/version-matrix.json): the sentence that cites it names the releases "
                                    f"(e.g. 'up to {a}' or 'from {b}')")
    notes = {m["test"]: m["why"] for m in NOTE.finditer(text)}
    releases = ", ".join(sorted(unimported, key=lambda v: int(v.split(".")[1])))
    if unimported and not notes.get(IMPORT):
        problems.append(f"{relative}:1: the entry's code does not import on Triton {releases} (data/version-matrix.json, "
                        f"import_errors): explain it once, <!-- version-note: {IMPORT}: why -->, shown under the "
                        f"page's version table")
    if notes.get(IMPORT) and not unimported:
        problems.append(f"{relative}:1: version-note for `{IMPORT}`, but the entry's code imports on every release "
                        f"the matrix ran")
    for test in sorted(failing):
        if not notes.get(test) and not import_only(ran.get(test, []), unimported):
            runs = ", ".join(f"{v} {'passed' if ok else 'failed'}" for v, ok in ran.get(test, []))
            problems.append(f"{relative}:1: `{test}` fails on some Triton releases ({runs}): explain it in one "
                            f"line, <!-- version-note: {test}: why -->, shown in the page's version table")
    for test in sorted(set(notes) - failing - {IMPORT}):
        problems.append(f"{relative}:1: version-note for `{test}`, which fails on no release the matrix ran")
    return problems


def entry_problems(entry, row: dict, versions: list[str], root: Path = ROOT,
                   texts: dict[str, str] | None = None) -> list[str]:
    """The problems of one entry's pages (``texts``: {language: page text} instead of the files)."""
    ran = outcomes(row, versions)
    failing = {test for test, runs in ran.items() if not all(ok for _, ok in runs)}
    unimported = unimported_releases(row)
    problems = []
    site = handbook.load_site(root)
    for language in site.languages:
        path = site.page_file(entry.name, language)
        relative = path.relative_to(site.root)
        if texts is None and not path.is_file():
            continue
        problems += page_problems(path, relative, ran, failing, None if texts is None else texts[language], unimported)
    return problems


def notes(page_text: str) -> dict[str, str]:
    """{test: its one-line explanation} of a page (for the version table); ``import``: the file's, if any."""
    return {m["test"]: m["why"] for m in NOTE.finditer(page_text)}


def check(root: Path = ROOT) -> list[str]:
    """Every version-scope problem of every entry."""
    data = read(root)
    if not data:
        return []
    problems = []
    for entry in handbook.load(root).entries:
        row = data["entries"].get(entry.id)
        if row is None:
            continue
        problems += entry_problems(entry, row, data["versions"], root)
    return problems
