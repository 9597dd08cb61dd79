"""``triton-faq explain``: from a pasted error message, a traceback, a described symptom or an ID to
the entry, offline.

Fingerprints of the entries' claimed errors are tried first. Failing those, the text (the most
error-like lines of a traceback, or the whole of a short description) is compared with every
entry's messages, titles, descriptions, symptoms and keywords in both languages: English words
and Chinese character pairs, each weighed by how few entries use it. Up to three candidates are
shown, each with the entry's full URL on the site (mkdocs.yml's ``site_url``); ``--json`` gives
the same as data. Entries are read through :mod:`triton_faq.handbook`, one parse per page.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import handbook, ui_text
from .handbook import Entry

MAX_BYTES = 1 << 20
ID = re.compile(r"^\s*(tp\d{3})\s*$", re.IGNORECASE)
ERROR_LINE = re.compile(r"error|exception|warning|failed|fault|assert|illegal|invalid|cannot|no attribute", re.I)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.']*|\d+|[\u4e00-\u9fff]+")
FUZZY_THRESHOLD = 0.35
HAN = re.compile(r"[\u4e00-\u9fff]+")
STOP = frozenset("""a an the is are was were be been of to in on at for with by and or not no my our your it its
this that these those when why how what which does do did can cannot can't i we you he she they me from as
but if then than so too very just only also get gets got after before out up into over under about""".split())
HAN_STOP = frozenset("的了吗呢吧啊是在有和就都要会不没也还很把被让给对从到说这那个么为什怎样哪些里")


class ExplainError(ValueError):
    """Input that cannot be explained; the message is one line for the user."""


@dataclass
class Match:
    entry: Entry
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


def default_language(environ=os.environ, root: Path = handbook.ROOT) -> str:
    """The language of the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``) if the site has it, else the default."""
    site = handbook.load_site(root)
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if value:
            return next((language for language in site.languages if value.lower().startswith(language)), site.default)
    return site.default


def words(text: str) -> set[str]:
    return {w.lower().strip(".'") for w in WORD.findall(text)} - {""}


def terms(text: str) -> set[str]:
    """What a text is matched on: English words (no stop words) and Chinese character pairs."""
    found = {w for w in words(HAN.sub(" ", text)) if w not in STOP and len(w) > 1}
    for run in HAN.findall(text):
        run = "".join(c for c in run if c not in HAN_STOP) if len(run) > 2 else run
        found |= {run[i:i + 2] for i in range(len(run) - 1)} or ({run} if run else set())
    return found


def _profile(entry: Entry) -> list[str]:
    """Every text an entry is known by, in every language."""
    texts = [error.message for error in entry.errors]
    for view in entry.views():
        texts += [view.title, view.description, *view.symptoms, *view.keywords]
    return texts


def error_lines(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    chosen = [line for line in lines if ERROR_LINE.search(line)] or lines[-3:]
    return chosen[-20:]


def rank(text: str, root: Path) -> list[Match]:
    """Candidate entries for the text, best first."""
    book = handbook.load(root)
    claimed = book.claimed_errors
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
    lines = error_lines(text) if len(text.splitlines()) > 3 else [line.strip() for line in text.splitlines() if line.strip()]
    query = terms(" ".join(lines))
    entries = book.entries
    profiles = {entry.id: _profile(entry) for entry in entries}
    bags = {entry_id: set().union(*(terms(t) for t in texts)) for entry_id, texts in profiles.items()}
    weight = {term: math.log(1 + len(bags) / (1 + sum(term in bag for bag in bags.values()))) for term in query}
    total = sum(weight.values()) or 1.0
    matches = []
    for entry in entries:
        shared = query & bags[entry.id]
        overlap = sum(weight[t] for t in shared) / total
        similarity = max((difflib.SequenceMatcher(None, line.lower(), target.lower()).ratio()
                          for line in lines for target in profiles[entry.id]), default=0.0)
        # a text worded like one of the entry's lines counts, but not over the words it shares with
        # the entry: "works in the interpreter but ... on the GPU" is said of many entries
        best = overlap if overlap >= similarity else (2 * overlap + similarity) / 3
        if best >= FUZZY_THRESHOLD and shared:
            matches.append(Match(entry, best))
    return sorted(matches, key=lambda m: -m.score)[:3]


def render(match: Match, root: Path, language: str) -> str:
    colon = ui_text.text(language, "explain.colon")

    def labels(key):
        return ui_text.text(language, f"explain.{key}")

    view = match.entry.view(language)
    lines = [f"{match.entry.id} · {view.title}"]
    if match.message:
        lines.append(f"{labels('matched')}{colon} \"{match.message}\" ({labels(f'where.{match.where}')})")
    lines += ["", f"{labels('short')}{colon}", *("  " + line for line in view.answer.splitlines()), ""]
    fix = match.entry.fix
    if fix:
        lines += [f"{labels('fix')} ({match.entry.snippet}:fix){colon}", *("  " + line for line in fix.splitlines()), ""]
    lines.append(f"{labels('more')}{colon} {view.url}")
    return "\n".join(lines)


def as_data(match: Match, root: Path, language: str) -> dict:
    """One candidate as data, for ``--json``."""
    view = match.entry.view(language)
    return {
        "id": match.entry.id,
        "title": view.title,
        "url": view.url,
        "score": round(match.score, 3),
        "matched_message": match.message,
        "where": match.where,
        "answer": view.answer,
        "fix": match.entry.fix,
        "page": view.path.as_posix(),
    }


def candidates(text: str, root: Path = handbook.ROOT) -> list[Match]:
    """The entries for a text, best first; raises ExplainError when nothing fits."""
    asked = ID.match(text)
    if asked:
        book = handbook.load(root)
        entry = book.find(asked.group(1))
        if entry is None:
            raise ExplainError(f"no entry {asked.group(1).upper()}; IDs run from TP001 to {book.entries[-1].id}")
        return [Match(entry, 1.0)]
    matches = rank(text, root)
    if not matches:
        raise ExplainError("no entry matches this text; try the site's search, or open an issue with the message")
    return matches


def explain(text: str, language: str, root: Path = handbook.ROOT) -> str:
    """What to print for the text; raises ExplainError when nothing fits."""
    matches = candidates(text, root)
    if ID.match(text):
        return render(matches[0], root, language)
    confident = matches[0].score >= 100 and (len(matches) == 1 or matches[1].score < matches[0].score)
    if confident:
        return render(matches[0], root, language)
    parts = [ui_text.text(language, "explain.several" if matches[0].score >= 100 else "explain.unsure"), ""]
    for match in matches[:3]:
        parts += [render(match, root, language), "", "-" * 60, ""]
    return "\n".join(parts[:-3])
