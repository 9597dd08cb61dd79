"""``triton-faq explain``: from a pasted error message, a traceback or an ID to the entry, offline.

Fingerprints of the entries' claimed errors are tried first; failing those, the most error-like
lines of the input are compared with every entry's messages, title and description, and up to
three candidates are shown.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import entries as entries_module
from . import errors as errors_module
from . import interface
from .pages import parse, snippet_section

MAX_BYTES = 1 << 20
ID = re.compile(r"^\s*(tp\d{3})\s*$", re.IGNORECASE)
ERROR_LINE = re.compile(r"error|exception|warning|failed|fault|assert|illegal|invalid|cannot|no attribute", re.I)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.']*|\d+|[\u4e00-\u9fff]+")
SECTION = re.compile(r"^## .*\{ #short-answer \}\s*$", re.MULTILINE)
FUZZY_THRESHOLD = 0.35


class ExplainError(ValueError):
    """Input that cannot be explained; the message is one line for the user."""


@dataclass
class Match:
    entry: entries_module.Entry
    score: float
    message: str | None = None
    where: str | None = None


def decode(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise ExplainError("the input is larger than 1 MiB; paste the error message or the last lines "
                           "of the traceback")
    if b"\x00" in data:
        raise ExplainError("the input is binary, not text; paste the error message or the traceback")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ExplainError("the input is not UTF-8 text; paste the error message or the traceback") from None
    if not text.strip():
        raise ExplainError("nothing to explain; paste an error message, pipe a traceback, or give an ID like TP001")
    return text


def default_language(environ=os.environ) -> str:
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def words(text: str) -> set[str]:
    return {w.lower().strip(".'") for w in WORD.findall(text)} - {""}


def error_lines(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    chosen = [line for line in lines if ERROR_LINE.search(line)] or lines[-3:]
    return chosen[-20:]


def rank(text: str, root: Path) -> list[Match]:
    """Candidate entries for the text, best first."""
    claimed, _ = errors_module.load(root)
    by_fingerprint: dict[str, Match] = {}
    for error in claimed:
        found = error.fingerprint.search(text)
        if found:
            score = 100 + len(found.group(0))
            best = by_fingerprint.get(error.entry.id)
            if best is None or score > best.score:
                by_fingerprint[error.entry.id] = Match(error.entry, score, error.message, error.where)
    if by_fingerprint:
        return sorted(by_fingerprint.values(), key=lambda m: -m.score)
    lines = error_lines(text)
    query = words(" ".join(lines))
    matches = []
    for entry in entries_module.load(root):
        front = parse(root / entry.page).front_matter
        messages = [e.message for e in claimed if e.entry.id == entry.id]
        targets = messages + [str(front.get("title", "")), str(front.get("description", ""))]
        best = 0.0
        for target in targets:
            overlap = len(query & words(target)) / max(1, len(words(target)))
            similarity = max((difflib.SequenceMatcher(None, line.lower(), target.lower()).ratio() for line in lines),
                             default=0.0)
            best = max(best, overlap, similarity)
        if best >= FUZZY_THRESHOLD:
            matches.append(Match(entry, best))
    return sorted(matches, key=lambda m: -m.score)[:3]


def short_answer(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    found = SECTION.search(text)
    if found is None:
        return str(parse(page).front_matter.get("description", ""))
    rest = text[found.end():]
    end = re.search(r"^## ", rest, re.MULTILINE)
    return (rest[: end.start()] if end else rest).strip()


def site_path(entry: entries_module.Entry, language: str) -> str:
    relative = entry.page.relative_to("docs/en").with_suffix("").as_posix()
    return f"/{'zh/' if language == 'zh' else ''}{relative}/"


def render(match: Match, root: Path, language: str) -> str:
    def labels(key):
        return interface.text(language, f"explain.{key}")

    page = root / "docs" / language / match.entry.page.relative_to("docs/en")
    title = parse(page).front_matter.get("title", match.entry.id)
    lines = [f"{match.entry.id} · {title}"]
    if match.message:
        lines.append(f"{labels('matched')}: \"{match.message}\" ({labels(f'where.{match.where}')})")
    lines += ["", f"{labels('short')}:", *("  " + line for line in short_answer(page).splitlines()), ""]
    fix = snippet_section(root / match.entry.snippet, "fix")
    if fix:
        lines += [f"{labels('fix')} ({match.entry.snippet}:fix):", *("  " + line for line in fix.splitlines()), ""]
    lines.append(f"{labels('more')}: {page.relative_to(root)}  (site: {site_path(match.entry, language)})")
    return "\n".join(lines)


def explain(text: str, language: str, root: Path = entries_module.ROOT) -> str:
    """What to print for the text; raises ExplainError when nothing fits."""
    asked = ID.match(text)
    if asked:
        entry = entries_module.find(asked.group(1), root)
        if entry is None:
            raise ExplainError(f"no entry {asked.group(1).upper()}; IDs run from TP001 to "
                               f"{entries_module.load(root)[-1].id}")
        return render(Match(entry, 1.0), root, language)
    matches = rank(text, root)
    if not matches:
        raise ExplainError("no entry matches this text; try the site's search, or open an issue with the message")
    confident = matches[0].score >= 100 and (len(matches) == 1 or matches[1].score < matches[0].score)
    if confident:
        return render(matches[0], root, language)
    parts = [interface.text(language, "explain.several" if matches[0].score >= 100 else "explain.unsure"), ""]
    for match in matches[:3]:
        parts += [render(match, root, language), "", "-" * 60, ""]
    return "\n".join(parts[:-3])
