"""Translation parity: the English and Chinese trees must have the same structure.

Same files; on each pair of pages the same heading anchors, the same includes and the same
markers of generated content (``<!-- gpu-data: ... -->``) in the same order, the same code
fences and the same non-prose front matter. Prose may differ freely.
"""

from __future__ import annotations

from pathlib import Path

from .pages import PROSE_KEYS, PageError, parse

LANGUAGES = ("en", "zh")


def page_files(docs: Path, language: str) -> set[Path]:
    tree = docs / language
    return {path.relative_to(tree) for path in tree.rglob("*.md")}


def anchor_problems(page) -> list[str]:
    return [
        f"{page.path}:{line}: heading '{text}' needs an explicit anchor, e.g. '{{ #{_suggest(text)} }}'"
        for line, level, text, anchor in page.headings
        if level > 1 and anchor is None
    ]


def _suggest(text: str) -> str:
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in text.lower())
    return "-".join(part for part in slug.split("-") if part) or "section"


def compare_pages(en_path: Path, zh_path: Path) -> list[str]:
    try:
        en, zh = parse(en_path), parse(zh_path)
    except PageError as error:
        return [str(error)]
    problems = anchor_problems(en) + anchor_problems(zh)
    if en.anchors != zh.anchors:
        problems.append(f"{zh_path}: heading anchors {zh.anchors} differ from {en_path}: {en.anchors}")
    if en.includes != zh.includes:
        problems.append(f"{zh_path}: includes {zh.includes} differ from {en_path}: {en.includes}")
    if en.markers != zh.markers:
        problems.append(f"{zh_path}: generated-content markers {zh.markers} differ from {en_path}: {en.markers}")
    en_code = [(f.info, f.body) for f in en.fences if f.info.startswith("python") and not f.includes]
    zh_code = [(f.info, f.body) for f in zh.fences if f.info.startswith("python") and not f.includes]
    if en_code != zh_code:
        problems.append(f"{zh_path}: its Python code fences differ from those of {en_path}")
    en_keys = {k: v for k, v in en.front_matter.items() if k not in PROSE_KEYS}
    zh_keys = {k: v for k, v in zh.front_matter.items() if k not in PROSE_KEYS}
    if en_keys != zh_keys:
        problems.append(f"{zh_path}: front matter {zh_keys} differs from {en_path}: {en_keys}")
    return problems


def check(docs: Path) -> list[str]:
    """Every parity problem under ``docs``, one sentence each, naming the files."""
    docs = Path(docs)
    en, zh = page_files(docs, "en"), page_files(docs, "zh")
    problems = [f"{docs / 'zh' / p}: missing; translate {docs / 'en' / p}" for p in sorted(en - zh)]
    problems += [f"{docs / 'en' / p}: missing; {docs / 'zh' / p} has no English page" for p in sorted(zh - en)]
    for relative in sorted(en & zh):
        problems += compare_pages(docs / "en" / relative, docs / "zh" / relative)
    return problems
