"""Translation parity: every language's tree has the default language's structure.

Same files; on each pair of pages the same heading anchors, the same includes and the same
markers of generated content (every marker of ``handbook.schema.MARKERS``) in the same order, the
same code fences and the same front matter except the keys written in each language
(``handbook.schema.PER_LANGUAGE_KEYS``). Prose may differ freely.
"""

from __future__ import annotations

from pathlib import Path

from . import handbook
from .handbook.page import PageError, parse
from .handbook.schema import PER_LANGUAGE_KEYS


def anchor_problems(page) -> list[str]:
    return [
        f"{page.path}:{line}: heading '{text}' needs an explicit anchor, e.g. '{{ #{_suggest(text)} }}'"
        for line, level, text, anchor in page.headings
        if level > 1 and anchor is None
    ]


def _suggest(text: str) -> str:
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in text.lower())
    return "-".join(part for part in slug.split("-") if part) or "section"


def compare_pages(original_path: Path, translated_path: Path) -> list[str]:
    """What differs in structure between a page and its translation, one sentence each."""
    try:
        original, translated = parse(original_path), parse(translated_path)
    except PageError as error:
        return [str(error)]
    problems = anchor_problems(original) + anchor_problems(translated)
    if original.anchors != translated.anchors:
        problems.append(f"{translated_path}: heading anchors {translated.anchors} differ from {original_path}: "
                        f"{original.anchors}")
    if original.includes != translated.includes:
        problems.append(f"{translated_path}: includes {translated.includes} differ from {original_path}: "
                        f"{original.includes}")
    if original.markers != translated.markers:
        problems.append(f"{translated_path}: generated-content markers {translated.markers} differ from "
                        f"{original_path}: {original.markers}")

    def code(page):
        return [(f.info, f.body) for f in page.fences if f.info.startswith("python") and not f.includes]

    if code(original) != code(translated):
        problems.append(f"{translated_path}: its Python code fences differ from those of {original_path}")

    def shared(page):
        return {k: v for k, v in page.front_matter.items() if k not in PER_LANGUAGE_KEYS}

    if shared(original) != shared(translated):
        problems.append(f"{translated_path}: front matter {shared(translated)} differs from {original_path}: "
                        f"{shared(original)}")
    return problems


def check(docs: Path) -> list[str]:
    """Every parity problem under ``docs`` (the site's folder of pages), one sentence each, naming the files."""
    site = handbook.load_site(Path(docs).resolve().parent)
    tree = {language: {path.relative_to(site.folder(language)) for path in site.pages(language)}
            for language in site.languages}
    default = site.default
    problems = []
    for language in site.translations:
        def original(relative):
            return Path(docs) / default / relative

        def translated(relative):
            return Path(docs) / language / relative

        problems += [f"{translated(p)}: missing; translate {original(p)}"
                     for p in sorted(tree[default] - tree[language])]
        problems += [f"{original(p)}: missing; {translated(p)} has no {default} page"
                     for p in sorted(tree[language] - tree[default])]
        for relative in sorted(tree[default] & tree[language]):
            problems += compare_pages(original(relative), translated(relative))
    return problems
