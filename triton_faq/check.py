"""``triton-faq check``: every problem with every entry, each with its file and line.

Front matter keys and types, unique IDs, both languages (parity), included sections, claimed
errors, unfinished scaffolding (``TODO(new entry)``), and the Chinese glossary.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import errors, parity
from .entries import ROOT, snippet_for
from .pages import PageError, parse, section_exists

ENTRY_KEYS = {"id": str, "title": str, "description": str, "snippet": str, "errors": list}
REQUIRED = ("id", "title", "description", "snippet")
ID = re.compile(r"^TP\d{3}$")
UNFINISHED = "TODO(new entry)"
TODO = re.compile(re.escape(UNFINISHED))
GLOSSARY = {  # preferred term: spellings the Chinese pages avoid
    "掩码": ("遮罩", "掩膜", "屏蔽码"),
    "步长": ("跨距", "跨步", "步幅"),
    "共享内存": ("共享存储器", "共享記憶體"),
    "寄存器溢出": ("寄存器溢写", "寄存器泄漏"),
    "越界": ("超界", "出界"),
}


def _lines(path: Path, pattern: re.Pattern) -> list[int]:
    return [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]


def entry_problems(root: Path) -> list[str]:
    problems, seen = [], {}
    for page_path in sorted((root / "docs").rglob("*.md")):
        try:
            page = parse(page_path)
        except PageError as error:
            problems.append(str(error))
            continue
        relative = page_path.relative_to(root)
        front = page.front_matter
        for fence in page.fences:
            for path, section in fence.includes:
                missing = section_exists(root, path, section)
                if missing:
                    problems.append(f"{relative}:{fence.line}: {missing}")
        for number in _lines(page_path, TODO):
            problems.append(f"{relative}:{number}: unfinished ({UNFINISHED})")
        if relative.parts[1] == "zh":
            for preferred, avoided in GLOSSARY.items():
                for word in avoided:
                    for number in _lines(page_path, re.compile(re.escape(word))):
                        problems.append(f"{relative}:{number}: write '{preferred}', not '{word}' (glossary)")
        if "id" not in front:
            continue
        for key in REQUIRED:
            if key not in front:
                problems.append(f"{relative}:1: front matter lacks '{key}'")
        for key, value in front.items():
            if key not in ENTRY_KEYS:
                problems.append(f"{relative}:1: unknown front matter key '{key}' (allowed: {', '.join(ENTRY_KEYS)})")
            elif not isinstance(value, ENTRY_KEYS[key]):
                problems.append(f"{relative}:1: '{key}' must be a {ENTRY_KEYS[key].__name__}")
        if isinstance(front.get("id"), str):
            if not ID.match(front["id"]):
                problems.append(f"{relative}:1: id '{front['id']}' is not of the form TP001")
            elif relative.parts[1] == "en":
                if front["id"] in seen:
                    problems.append(f"{relative}:1: id {front['id']} is already used by {seen[front['id']]}")
                seen[front["id"]] = relative
        snippet = front.get("snippet")
        if isinstance(snippet, str) and relative.parts[1] == "en":
            problems += snippet_problems(root, relative, snippet)
    return problems


def snippet_problems(root: Path, page: Path, snippet: str) -> list[str]:
    expected = snippet_for(page)
    if Path(snippet) != expected:
        return [f"{page}:1: snippet should be {expected} (mirrors the page path)"]
    path = root / snippet
    if not path.is_file():
        return [f"{page}:1: snippet {snippet} does not exist"]
    problems = [f"{snippet}:{n}: unfinished ({UNFINISHED})" for n in _lines(path, TODO)]
    text = path.read_text(encoding="utf-8")
    if not re.search(r"^def test_", text, re.MULTILINE):
        problems.append(f"{snippet}:1: no test_ function: one test per claim")
    if "--8<-- [start:" not in text:
        problems.append(f"{snippet}:1: no named section (# --8<-- [start:name]) for the page to include")
    return problems


def check(root: Path = ROOT) -> list[str]:
    """Every problem, one line each, file first."""
    problems = entry_problems(root)
    problems += parity.check(root / "docs")
    problems += errors.load(root)[1]
    return problems
