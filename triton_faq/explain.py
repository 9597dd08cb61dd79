"""``triton-faq explain``: from a pasted error message, a traceback, a described symptom or an ID to
the entry, offline.

In order: an ID; Triton's message catalogue (``triton_faq.messages``, when installed); the error
messages the entries claim (their fingerprints); then the ranking of ``retrieval`` (BM25F over every
entry's fields in both languages). One entry is printed alone only when one entry's fingerprint
matches, the message is not one several causes print (``generic_messages.yaml``), and the rest of
the text does not point at another entry. A generic message shows its best entry, then every entry
that explains it with the line that tells them apart. Anything else gives up to three candidates,
or "no entry" with the nearest. Each candidate comes with its URL on the site
(mkdocs.yml's ``site_url``); ``--json`` gives the same as data. Entries are read through
:mod:`triton_faq.handbook`, one parse per page.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import handbook, retrieval, ui_text
from .handbook import Entry
from .handbook.page import load_yaml

MAX_BYTES = 1 << 20
ID = re.compile(r"^\s*(tp\d{3})\s*$", re.IGNORECASE)
GENERIC = Path(__file__).resolve().parent / "generic_messages.yaml"
MIN_SCORE = 2.0  # below this BM25F score no entry is offered, only named as the nearest (development set)
NEAR = 0.3  # candidates after the first: at least this share of the first one's score
ELSEWHERE = 2.0  # the rest of a text "points elsewhere" when another entry scores twice as much there
REST_MIN = 8.0  # ... and at least this much (about the median score of a right answer on the development set)


class ExplainError(ValueError):
    """Input that cannot be explained; the message is one line for the user."""


@dataclass
class Match:
    entry: Entry
    score: float
    message: str | None = None
    where: str | None = None


@dataclass
class Answer:
    """What explain found: ``single`` (one entry), ``causes`` (a generic message: the entries that
    explain it, best first, with ``group``), ``several`` (several fingerprints), ``unsure``."""
    kind: str
    matches: list[Match]
    group: dict | None = field(default=None)
    known: dict | None = field(default=None)  # a message Triton prints that no entry explains (``messages.describe``)


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


def answer_language(text: str, environ=os.environ, root: Path = handbook.ROOT) -> str:
    """The language to answer in: the text's own, if the site has it and it is not the default, else the locale's."""
    written = retrieval.language_of(text)
    site = handbook.load_site(root)
    return written if written in site.translations else default_language(environ, root)


@lru_cache(maxsize=1)
def generic_messages() -> tuple[dict, ...]:
    """The messages several causes print (generic_messages.yaml), their patterns compiled."""
    groups = load_yaml(GENERIC.read_text(encoding="utf-8"))
    return tuple(dict(group, compiled=re.compile(group["pattern"])) for group in groups)


def _literal(pattern: str) -> int:
    """How many characters of a fingerprint are literal: the more, the more specific it is."""
    return len(re.sub(r"\\[wdsWDS][*+?]?|\.[*+?]?\??|\[[^\]]*\][*+?]?|\{[\d,]+\}|[()|?*+^$]|\\", "", pattern))


def known_unanswered(text: str, root: Path) -> dict | None:
    """The first message in the text that Triton prints (its message catalogue, ``triton_faq.messages``,
    built from Triton's wheels) and no entry explains: ``messages.describe`` of it (what raises it, where,
    in which releases, how to report it). The catalogue's mapping to entries decides nothing here: the
    entries' own fingerprints and the ranking do."""
    from . import messages

    try:
        found = messages.match(text, root)
    except (OSError, ValueError):  # no catalogue in this copy
        return None
    for hit in found:
        if not hit.generic and not any(template.entries for template in hit.templates):
            return messages.describe(hit)
    return None


def answer(text: str, root: Path = handbook.ROOT) -> Answer:
    """The entries for a text and how sure explain is of them; raises ExplainError when nothing fits."""
    book = handbook.load(root)
    asked = ID.match(text)
    if asked:
        entry = book.find(asked.group(1))
        if entry is None:
            raise ExplainError(f"no entry {asked.group(1).upper()}; IDs run from TP001 to {book.entries[-1].id}")
        return Answer("single", [Match(entry, 1.0)])
    by_id = {entry.id: entry for entry in book.entries}
    claimed = book.claimed_errors
    built = retrieval.index(root)
    hits: dict[str, tuple[tuple[int, int], Match]] = {}
    rest = text
    for error in claimed:
        found = error.fingerprint.search(text)
        if found:
            key = (len(found.group(0)), _literal(error.fingerprint.pattern))
            if error.entry.id not in hits or key > hits[error.entry.id][0]:
                hits[error.entry.id] = (key, Match(error.entry, 100.0 + key[0], error.message, error.where))
            rest = rest.replace(found.group(0), " ")
    ranked = retrieval.rank(text, root, built)
    score = dict(ranked)
    group = next((g for g in generic_messages() if g["compiled"].search(text)), None)
    if hits:
        ordered = [match for _, match in sorted(hits.values(), key=lambda pair: (pair[0], score.get(pair[1].entry.id, 0)),
                                                reverse=True)]
        if group:
            members = [by_id[i] for i in group["entries"] if i in by_id]
            extra = sorted((e for e in members if e.id not in hits), key=lambda e: -score.get(e.id, 0))
            kind = "several" if len(ordered) > 1 else "causes"  # several fingerprints: each is shown
            return Answer(kind, ordered + [Match(e, score.get(e.id, 0)) for e in extra], group)
        if len(ordered) > 1:
            return Answer("several", ordered)
        first = ordered[0]
        elsewhere = retrieval.rank(rest, root, built)
        if elsewhere and elsewhere[0][0] != first.entry.id and elsewhere[0][1] >= REST_MIN:
            own = dict(elsewhere).get(first.entry.id, 0.0)
            if elsewhere[0][1] >= ELSEWHERE * max(own, 1.0):
                return Answer("several", [first, Match(by_id[elsewhere[0][0]], elsewhere[0][1])])
        return Answer("single", [first])
    known = known_unanswered(text, root)  # Triton's own message that no entry answers: said first
    if known is not None and (not ranked or ranked[0][1] < MIN_SCORE):
        return Answer("unsure", [], known=known)
    if not ranked:
        raise ExplainError("no entry matches this text; try the site's search, or open an issue with the message")
    best_id, best = ranked[0]
    if best < MIN_SCORE:
        raise ExplainError(f"no entry matches this text (the nearest, {best_id}, shares only a few words with it); "
                           "try the site's search, or open an issue with the message")
    chosen = [Match(by_id[i], s) for i, s in ranked[:3] if s >= NEAR * best and i in by_id]
    if group:
        members = [i for i in group["entries"] if i in by_id]
        chosen = sorted(chosen + [Match(by_id[i], score.get(i, 0.0)) for i in members
                                  if i not in {m.entry.id for m in chosen}], key=lambda m: -m.score)[:3]
        return Answer("unsure", chosen, group, known)
    return Answer("unsure", chosen, known=known)


def candidates(text: str, root: Path = handbook.ROOT) -> list[Match]:
    """The entries for a text, best first; raises ExplainError when nothing fits."""
    return answer(text, root).matches


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


def causes(group: dict, language: str, by_id: dict) -> list[str]:
    """The lines that tell apart the entries explaining a generic message, in ``language``."""
    colon = ui_text.text(language, "explain.colon")
    lines = [f"{ui_text.text(language, 'explain.causes')}"]
    for entry_id, when in group["entries"].items():
        if entry_id in by_id:
            lines.append(f"  {entry_id} · {when[language]}  {by_id[entry_id].url(language)}")
    lines.append(f"  {ui_text.text(language, 'explain.otherwise')}{colon} {group['otherwise'][language]}")
    return lines


def known_message(known: dict, language: str) -> list[str]:
    """What explain says of a message Triton prints that no entry explains."""
    colon = ui_text.text(language, "explain.colon")
    lines = [ui_text.text(language, "explain.known"), "", f"  {known['template']}", ""]
    where = f"{known['file']}:{known['line']}" if known.get("file") else known.get("kind", "")
    lines.append(f"{ui_text.text(language, 'explain.known_raised')}{colon} {where} ({known['raised_by']})")
    if known.get("source_url"):
        lines.append(f"  {known['source_url']}")
    lines.append(f"{ui_text.text(language, 'explain.known_releases')}{colon} {known['release_span']}")
    lines.append(f"{ui_text.text(language, 'explain.known_report')}{colon} "
                 + ui_text.text(language, "explain.known_how", search=known["search_url"], new=known["new_issue_url"]))
    return lines


def explain(text: str, language: str, root: Path = handbook.ROOT) -> str:
    """What to print for the text; raises ExplainError when nothing fits."""
    found = answer(text, root)
    by_id = {entry.id: entry for entry in handbook.load(root).entries}
    if found.kind == "single":
        return render(found.matches[0], root, language)
    if found.kind == "causes":
        return "\n".join([render(found.matches[0], root, language), "", *causes(found.group, language, by_id)])
    if found.known is not None:  # a message Triton prints that no entry answers: what raises it, then the nearest
        parts = known_message(found.known, language)
        if found.matches:
            parts += ["", ui_text.text(language, "explain.nearest"), ""]
    else:
        parts = [ui_text.text(language, "explain.several" if found.kind == "several" else "explain.unsure"), ""]
    for number, match in enumerate(found.matches[:3]):
        parts += ([] if number == 0 else ["", "-" * 60, ""]) + [render(match, root, language)]
    if found.group:
        parts += ["", *causes(found.group, language, by_id)]
    return "\n".join(parts)
