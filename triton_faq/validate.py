"""``triton-faq check``: every problem with every entry, each with its file and line.

Front matter keys and types, unique IDs, both languages (parity), included sections, claimed
errors, unfinished scaffolding (``TODO(new entry)``), the Chinese glossary, and the v2 shape:

* the page: the answer and its fix code before the first section, within the first screen; the
  sections every entry has; test code only inside folds; verdict labels on claim blocks;
* the reader's file: the prelude, ``pitfall`` and ``fix`` sections, ``main()``, nothing imported
  but torch, triton and the standard library, no tests;
* the proof: exists, with at least one test.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import claimed_errors, download, first_screen, handbook, parity, placeholders, version_scopes
from .handbook import proof_for, snippet_for
from .handbook.page import section_exists, snippet_section
from .handbook.schema import (CLAIM, CLAIMS_SECTION, DEPENDS, ENTRY_KEYS, FIRST_USE, GLOSSARY, ID,
                              PRELUDE, REQUIRED_KEYS, REQUIRED_SECTIONS, SNIPPET_SECTIONS, UNFINISHED, VERDICTS)

TODO = re.compile(re.escape(UNFINISHED))
TEST_CODE = re.compile(r"^\s*(def test_|assert |@pytest)", re.MULTILINE)  # in a page's unfolded fences
TESTS_IN_FILE = re.compile(r"^\s*(def test_|@pytest|import pytest|from pytest)", re.MULTILINE)  # in a reader's file


def _lines(path: Path, pattern: re.Pattern) -> list[int]:
    return [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]


def entry_problems(root: Path) -> list[str]:
    book = handbook.load(root)
    problems, seen = list(book.problems), {}
    for language, pages in book.pages.items():
        for name, page in sorted(pages.items()):
            relative = page.path.relative_to(book.root)
            front = page.front_matter
            for fence in page.fences:
                for path, section in fence.includes:
                    missing = section_exists(root, path, section)
                    if missing:
                        problems.append(f"{relative}:{fence.line}: {missing}")
            for number in _lines(page.path, TODO):
                problems.append(f"{relative}:{number}: unfinished ({UNFINISHED})")
            problems += placeholders.problems(page.path, relative)
            problems += glossary_problems(page.path, relative, language)
            problems += first_use_problems(page.path, relative, language)
            if "id" not in front:
                continue
            problems += shape_problems(page, relative, language)
            for key in REQUIRED_KEYS:
                if key not in front:
                    problems.append(f"{relative}:1: front matter lacks '{key}'")
            for key in ("symptoms", "keywords"):
                value = front.get(key)
                if isinstance(value, list) and (not value or not all(isinstance(v, str) and v.strip() for v in value)):
                    problems.append(f"{relative}:1: '{key}' is a list of phrases a reader would type, in the page's language")
            for key, value in front.items():
                if key not in ENTRY_KEYS:
                    problems.append(f"{relative}:1: unknown front matter key '{key}' (allowed: {', '.join(ENTRY_KEYS)})")
                elif not isinstance(value, ENTRY_KEYS[key]):
                    problems.append(f"{relative}:1: '{key}' must be a {ENTRY_KEYS[key].__name__}")
            if language != book.site.default:
                continue
            if isinstance(front.get("id"), str):
                if not ID.match(front["id"]):
                    problems.append(f"{relative}:1: id '{front['id']}' is not of the form TP001")
                else:
                    if front["id"] in seen:
                        problems.append(f"{relative}:1: id {front['id']} is already used by {seen[front['id']]}")
                    seen[front["id"]] = relative
            snippet = front.get("snippet")
            if isinstance(snippet, str):
                problems += snippet_problems(root, relative, name, snippet)
    return problems


def topic_problems(root: Path) -> list[str]:
    """Every topic's section name has a translation in mkdocs.yml's ``nav_translations``."""
    site = handbook.load_site(root)
    problems = []
    for topic in site.topics():
        section = topic.replace("-", " ").replace("_", " ").capitalize()  # the name MkDocs gives the folder
        for language in site.translations:
            if section not in site.nav_translations.get(language, {}):
                problems.append(f"mkdocs.yml: the i18n language {language!r} has no nav_translations for "
                                f"'{section}' (the topic folder {topic}/): add '{section}: <its name>'")
    return problems


def glossary_problems(path: Path, relative: Path, language: str) -> list[str]:
    """Words a language's pages avoid; a quoted source (a '>' line, or text inside “…”) keeps its own."""
    glossary = GLOSSARY.get(language)
    if not glossary:
        return []
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith(">"):
            continue
        own = re.sub(r"“[^”]*”", "", line)
        for preferred, avoided in glossary.items():
            for word in avoided:
                if word in own:
                    problems.append(f"{relative}:{number}: write '{preferred}', not '{word}' (glossary)")
    return problems


def first_use_problems(path: Path, relative: Path, language: str) -> list[str]:
    """Each glossary term's first use in a Chinese page's prose carries its English: 掩码（mask）.

    Headings, code, quoted sources and link targets are not prose; a term split from its bracket
    by a line break still counts.
    """
    terms = FIRST_USE.get(language)
    if not terms:
        return []
    text = path.read_text(encoding="utf-8")
    body_start = text.find("\n---\n", 4) + 5 if text.startswith("---\n") else 0
    lines, prose, in_fence = text[body_start:].split("\n"), [], False
    first_line = text[:body_start].count("\n") + 1
    for number, line in enumerate(lines, first_line):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or stripped.startswith(("#", ">", "<!--", "???", "!!!")):
            continue
        line = re.sub(r"`[^`]*`|\]\([^)]*\)|“[^”]*”", "", line)
        prose.append((number, line))
    joined = "".join(line for _, line in prose)
    problems = []
    for term, english in terms.items():
        at = joined.find(term)
        if at < 0:
            continue
        after = joined[at + len(term):at + len(term) + len(english) + 2]
        if not re.match(r"[（(]\s*" + re.escape(english), after, re.IGNORECASE):
            consumed, number = 0, prose[0][0]
            for number, line in prose:
                consumed += len(line)
                if consumed > at:
                    break
            problems.append(f"{relative}:{number}: first use of '{term}' gives the English: '{term}（{english}）'")
    return problems


def shape_problems(page, relative: Path, language: str) -> list[str]:
    """The v2 page shape: answer first, the sections, test code folded, verdict labels."""
    problems = []
    headings = [(line, anchor) for line, level, _, anchor in page.headings if level == 2]
    first_section = headings[0][0] if headings else 10**9
    title = next((line for line, level, _, _ in page.headings if level == 1), page.body_start)
    fixes = [f for f in page.fences if any(section == "fix" for _, section in f.includes)]
    if not fixes or fixes[0].line > first_section:
        problems.append(f"{relative}:{title}: the fix code (a fence including the 'fix' section) must come "
                        "right after the answer, before the first section")
    else:
        problems += first_screen.problems(page, relative, page.path.parents[len(relative.parts) - 1])
    anchors = {anchor for _, anchor in headings}
    for anchor in REQUIRED_SECTIONS:
        if anchor not in anchors:
            problems.append(f"{relative}:{title}: no '## ... {{ #{anchor} }}' section")
    for fence in page.fences:
        tests = [path for path, _ in fence.includes if path.startswith("tests/")]
        if not fence.indent and (tests or TEST_CODE.search(fence.body)):
            problems.append(f"{relative}:{fence.line}: test code outside a fold: put it in a '??? ...' block")
    text = page.path.read_text(encoding="utf-8").splitlines()
    in_claims = False
    for number, line in enumerate(text, 1):
        if line.startswith("## "):
            in_claims = f"#{CLAIMS_SECTION}" in line.replace(" ", "")
        match = CLAIM.match(line)
        if match and in_claims:
            label = match["title"]
            if not label.startswith(VERDICTS[language]):
                problems.append(f"{relative}:{number}: a claim's title starts with its verdict, one of "
                                f"{', '.join(repr(v.strip()) for v in VERDICTS[language])}: '{label}'")
            else:
                verdict = re.split(r"[:：]", label, maxsplit=1)[0].strip()
                if verdict == DEPENDS[language]:
                    problems.append(f"{relative}:{number}: '{verdict}' says on what (a version, a backend, a size)")
    return problems


def snippet_problems(root: Path, page: Path, name: str, snippet: str) -> list[str]:
    expected = snippet_for(name)
    if Path(snippet) != expected:
        return [f"{page}:1: snippet should be {expected} (mirrors the page path)"]
    path = root / snippet
    if not path.is_file():
        return [f"{page}:1: snippet {snippet} does not exist"]
    problems = [f"{snippet}:{n}: unfinished ({UNFINISHED})" for n in _lines(path, TODO)]
    text = path.read_text(encoding="utf-8")
    for section in SNIPPET_SECTIONS:
        if f"# --8<-- [start:{section}]" not in text:
            problems.append(f"{snippet}:1: no section '{section}' (# --8<-- [start:{section}] ... [end:{section}])")
    prelude = snippet_section(path, "prelude")
    if prelude is not None and not prelude.startswith(PRELUDE):
        problems.append(f"{snippet}:1: the prelude must start as CONTRIBUTING.md shows (it picks CUDA or the interpreter)")
    if not re.search(r"^def main\(", text, re.MULTILINE):
        problems.append(f"{snippet}:1: no main(): it prints the pitfall's result next to the fix's")
    if TESTS_IN_FILE.search(text):
        problems.append(f"{snippet}:1: tests belong in {proof_for(snippet)}, not in the reader's file")
    try:
        foreign = download.imports_outside_stdlib(text)
    except SyntaxError as error:
        foreign = []
        problems.append(f"{snippet}:{error.lineno}: {error.msg}")
    if foreign:
        problems.append(f"{snippet}:1: the reader's file imports {', '.join(foreign)}; only torch, triton "
                        "and the standard library")
    proof = root / proof_for(snippet)
    if not proof.is_file():
        problems.append(f"{page}:1: no proof: {proof_for(snippet)} holds one test per claim")
    else:
        problems += [f"{proof_for(snippet)}:{n}: unfinished ({UNFINISHED})" for n in _lines(proof, TODO)]
        if not re.search(r"^def test_", proof.read_text(encoding="utf-8"), re.MULTILINE):
            problems.append(f"{proof_for(snippet)}:1: no test_ function: one test per claim")
    return problems


def check(root: Path = handbook.ROOT) -> list[str]:
    """Every problem, one line each, file first."""
    problems = entry_problems(root)
    problems += topic_problems(root)
    problems += parity.check(handbook.load_site(root).docs_dir)
    problems += claimed_errors.load(root)[1]
    problems += version_scopes.check(root)  # a claim that changes across Triton releases says on which
    return problems
