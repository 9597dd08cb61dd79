"""Which of Triton's messages a pasted text contains: ``match(text)`` against the message catalogue.

The catalogue (``data/messages/catalogue.json.gz``, built by ``triton_faq.catalogue_build`` from
Triton's released wheels) holds templates such as ``arange's range must be a power of 2`` or
``out of resource: {name}, Required: {required}, Hardware limit: {limit}. ...``. A text matches a
template when the template's words appear in it in order, each ``{placeholder}`` standing for up
to ``HOLE_WORDS`` words of one line. Words are compared lower-cased, as runs of letters and digits,
so punctuation, backticks a Markdown renderer ate, quoting and line wrapping do not matter.

Besides whole messages, two cut-down forms match, as users paste them:

- a message cut short (an issue title, a truncated log line): the template's first words, at least
  ``PARTIAL_WORDS`` of them, up to the end of the text's line; or at least three of them when they
  end the text and begin its last line (after an exception's name, if any);
- the last lines of a message that spans lines: the template from the start of one of its lines to
  its end, again at least ``PARTIAL_WORDS`` words.

Templates with fewer than ``MIN_INFORMATIVE`` informative words (three letters or more, not a stop
word) are never matched (``{} is not defined`` would match anything). A match whose span lies inside
another match with more of its own words is dropped (the generic ``Triton Error [CUDA]: {...}``
gives way to ``Triton Error [CUDA]: misaligned address``).

Finding candidates is indexed: each template is looked up by the rarest word among the first words
of the template and of each of its lines, so a call aligns only the few templates whose anchor the
text holds.

For ``triton-faq explain``: call ``match(text)`` first. A hit whose templates carry ``entries`` names
the entries that explain the message (``describe(hit)["entries"]``); a generic hit (``hit.generic``)
or one explained by several entries is an answer with several candidates, never a single confident
one. A hit with no entries is a known message without an entry: ``describe(hit)`` gives what raises
it (kind, form, file and line, a link to that line in the release), the releases that print it, and
how to report it; the nearest entries are the ones the text ranks highest otherwise.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from .handbook import ROOT

DATA = Path("data") / "messages" / "catalogue.json.gz"
TOKEN = re.compile(r"[a-z0-9]+")
FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
HOLE_WORDS = 30
PARTIAL_WORDS = 6
MIN_INFORMATIVE = 2
ANCHOR_SPAN = PARTIAL_WORDS
STOP = frozenset("""a an the is are was were be been of to in on at for with by and or not no it its this that
as from but if then than so too only can cannot must should has have had does do did use using""".split())
ISSUES = "https://github.com/triton-lang/triton/issues"
NEW_ISSUE = "https://github.com/triton-lang/triton/issues/new/choose"


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def _informative(word: str) -> bool:
    return len(word) >= 3 and word not in STOP and not word.isdigit()


def template_tokens(text: str) -> tuple[tuple, tuple]:
    """(tokens, line starts) of a template: literal words, None for a placeholder; the token index
    where each line of the template after the first begins. A word glued to a placeholder
    (``int{bits}``) is part of what the placeholder stands for."""
    out: list = []
    starts: list[int] = []
    pieces: list = []  # str or None
    last = 0
    for found in FIELD.finditer(text):
        pieces.append(text[last:found.start()])
        pieces.append("{" if found.group() == "{{" else "}" if found.group() == "}}" else None)
        last = found.end()
    pieces.append(text[last:])
    merged: list = []
    for piece in pieces:  # literal braces rejoin the text around them
        if piece is not None and merged and merged[-1] is not None:
            merged[-1] += piece
        else:
            merged.append(piece)
    for number, piece in enumerate(merged):
        if piece is None:
            if not out or out[-1] is not None:
                out.append(None)
            continue
        glued_before = number > 0 and merged[number - 1] is None and piece[:1].isalnum()
        glued_after = number + 1 < len(merged) and merged[number + 1] is None and piece[-1:].isalnum()
        lines = piece.split("\n")
        for index, line in enumerate(lines):
            if index and out:
                starts.append(len(out))
            words = tokens(line)
            if index == 0 and glued_before and words:
                words = words[1:]
            if index == len(lines) - 1 and glued_after and words:
                words = words[:-1]
            out.extend(words)
    return tuple(out), tuple(s for s in starts if 0 < s < len(out))


@dataclass(frozen=True)
class Template:
    id: str
    kind: str
    text: str
    form: str
    file: str | None
    line: int | None
    releases: tuple[str, ...]
    entries: tuple[str, ...]
    raw: dict = field(repr=False, compare=False, hash=False)

    @property
    def source_url(self) -> str | None:
        return source_url(self.raw)


@dataclass(frozen=True)
class Hit:
    template: Template
    start: int  # character offsets of the matched span in the text
    end: int
    words: int  # the template's own words found in order
    whole: bool  # the whole template matched (not a cut-down form)
    covered: float  # the template's words as a share of the span's words
    generic: bool = False  # too few words of its own to tell a message apart (matched as a whole line only)
    also: tuple = ()  # templates of the same text raised elsewhere (another file, other releases)

    @property
    def templates(self) -> tuple:
        return (self.template, *self.also)

    @property
    def releases(self) -> list[str]:
        """Every release that prints this text, from any of its places."""
        found = {r for t in self.templates for r in t.releases}
        return sorted(found, key=lambda r: [int(x) if x.isdigit() else 0 for x in re.findall(r"\d+|\D+", r)])

    @property
    def text(self) -> str:
        return self.template.text


COLUMNS = ("id", "kind", "text", "form", "file", "line", "lines", "releases", "entries", "cuda_error_reported_at")


def build_first_words(texts: list[str]) -> dict[str, list[int]]:
    """'first second' -> the templates (positions) that begin with these two words ('first *' when a
    placeholder follows the first word): the candidates for a text that is nothing but the beginning
    of a message (``out of resource: shared memory``)."""
    index: dict[str, list[int]] = {}
    for number, text in enumerate(texts):
        toks, _ = template_tokens(text)
        if len(toks) >= 2 and toks[0] is not None:
            index.setdefault(f"{toks[0]} {toks[1] or '*'}", []).append(number)
    return index


def build_index(texts: list[str]) -> dict[str, list[int]]:
    """anchor word -> the templates (positions) looked up by it: for the start of the template and of
    each of its lines, the rarest word among its first ``ANCHOR_SPAN`` words (informative words
    first). Stored with the catalogue, so that loading it parses JSON and nothing else."""
    parsed = [template_tokens(text) for text in texts]
    frequency: dict[str, int] = {}
    for toks, _ in parsed:
        for word in set(toks):
            if word is not None:
                frequency[word] = frequency.get(word, 0) + 1
    index: dict[str, list[int]] = {}
    for number, (toks, starts) in enumerate(parsed):
        anchors = set()
        for begin in (0, *starts):
            window = [t for t in toks[begin:] if t is not None][:ANCHOR_SPAN]
            if window:
                anchors.add(min(window, key=lambda w: (not _informative(w), frequency[w], w)))
        for anchor in sorted(anchors):
            index.setdefault(anchor, []).append(number)
    return index


class Catalogue:
    """The templates, indexed for ``match``. ``data["templates"]`` holds one list per column
    (``COLUMNS``); ``releases`` is a bit mask over ``data["releases"]`` (bit i: release i), or a
    list of names (Inductor's ``torch X``)."""

    def __init__(self, data: dict):
        self.data = data
        self.columns = data["templates"]
        self.size = len(self.columns["id"])
        self.index = data.get("index") or build_index(self.columns["text"])
        self.first_words = data.get("first_words") or build_first_words(self.columns["text"])
        self._parsed: dict[int, tuple] = {}
        self._templates: dict[int, Template] = {}
        self._by_id: dict[str, int] | None = None

    def template(self, number: int) -> Template:
        if number not in self._templates:
            raw = {name: self.columns[name][number] for name in COLUMNS if name in self.columns}
            raw["releases"] = self.release_names(raw.get("releases"))
            raw = {k: v for k, v in raw.items() if v is not None}
            self._templates[number] = Template(raw["id"], raw["kind"], raw["text"], raw.get("form", ""),
                                               raw.get("file"), raw.get("line"), tuple(raw["releases"]),
                                               tuple(raw.get("entries") or ()), raw)
        return self._templates[number]

    @property
    def templates(self) -> list[Template]:
        return [self.template(n) for n in range(self.size)]

    def by_id(self, template_id: str) -> Template | None:
        if self._by_id is None:
            self._by_id = {t: n for n, t in enumerate(self.columns["id"])}
        number = self._by_id.get(template_id)
        return None if number is None else self.template(number)

    def release_names(self, value) -> list[str]:
        if isinstance(value, int):
            return [r for bit, r in enumerate(self.data.get("releases", [])) if value >> bit & 1]
        return list(value or [])

    def _tokens(self, number: int) -> tuple:
        """(tokens, line starts, generic) of a template, parsed on first use."""
        if number not in self._parsed:
            toks, starts = template_tokens(self.columns["text"][number])
            literal = {t for t in toks if t is not None}
            generic = sum(_informative(t) for t in literal) < MIN_INFORMATIVE or sum(t is not None for t in toks) < 3
            self._parsed[number] = (toks, starts, generic)
        return self._parsed[number]

    @property
    def releases(self) -> list[str]:
        return list(self.data.get("releases", []))

    def match(self, text: str) -> list[Hit]:
        """The templates ``text`` contains, best first (whole matches, then more of their own words);
        templates of the same text from several files or releases come as one hit per template."""
        found = [(m.group(), m.start(), m.end()) for m in TOKEN.finditer(text.lower())]
        if not found:
            return []
        words = [w for w, _, _ in found]
        line_of, line, previous = [], 0, 0
        for _, start, _ in found:
            line += text.count("\n", previous, start)
            previous = start
            line_of.append(line)
        positions: dict[str, list[int]] = {}
        for i, word in enumerate(words):
            positions.setdefault(word, []).append(i)
        candidates = {n for word in positions for n in self.index.get(word, ())}
        # the text may end with nothing but a message's beginning: look it up by its first two words
        last = [i for i in range(len(words)) if line_of[i] == line_of[-1]]
        for i in {last[0], *(i for i in last if self._after_prefix(text, found, i))}:
            if i + 1 < len(words):
                candidates.update(self.first_words.get(f"{words[i]} {words[i + 1]}", ()))
                candidates.update(self.first_words.get(f"{words[i]} *", ()))
        candidates = sorted(candidates)
        hits = []
        for number in candidates:
            hit = self._align(number, words, line_of, found, positions, text)
            if hit is not None:
                hits.append(hit)
        kept = [h for h in hits if not any(
            g is not h and g.start <= h.start and h.end <= g.end and g.words > h.words for g in hits)]
        kept.sort(key=lambda h: (not h.whole, -h.words, -h.covered, -len(h.template.releases), h.template.id))
        merged: dict[str, Hit] = {}
        for hit in kept:  # one hit per text: the same message raised in several files or releases
            first = merged.get(hit.template.text)
            if first is None:
                merged[hit.template.text] = hit
            else:
                merged[hit.template.text] = replace(first, also=first.also + (hit.template,))
        return list(merged.values())

    @staticmethod
    def _after_prefix(text: str, found, i: int) -> bool:
        """Whether word i begins its line, or follows only an exception's name (``ValueError:``,
        ``triton.runtime.errors.OutOfResources:``, ``NameError("``) there."""
        start = found[i][1]
        before = text[text.rfind("\n", 0, start) + 1:start]
        return bool(EXCEPTION_PREFIX.fullmatch(before))

    def _align(self, number, words, line_of, found, positions, text="") -> Hit | None:
        toks, starts, generic = self._tokens(number)
        total = sum(t is not None for t in toks)
        n = len(words)
        best = None
        for begin in (0, *starts):
            first = begin
            while first < len(toks) and toks[first] is None:
                first += 1  # a placeholder at the start matches whatever precedes
            if first >= len(toks) or (generic and begin):
                continue
            # the words a match from here needs, all of them in the text somewhere: skip the walks
            # that cannot succeed (a whole match needs every word, a cut-short one its first words)
            needed = [t for t in toks[first:] if t is not None]
            if all(t in positions for t in needed):
                starts_at = positions[toks[first]]
            elif begin == 0 and not generic and all(t in positions for t in needed[:PARTIAL_WORDS]):
                starts_at = positions[toks[first]]
            elif begin == 0 and not generic and all(t in positions for t in needed[:3]):
                starts_at = [i for i in positions[toks[first]] if line_of[i] == line_of[-1]]
            else:
                continue
            for i in starts_at:
                end_i, count, state = _walk(toks, words, line_of, i, first)
                whole = state == REACHED and begin == 0
                if generic:
                    # a generic template is the whole of a line, or nothing
                    line = line_of[i]
                    starts_line = first > 0 or i == 0 or line_of[i - 1] != line
                    ends_line = toks[-1] is None or end_i >= n or line_of[end_i] != line
                    if not (whole and starts_line and ends_line):
                        continue
                elif not whole:
                    # the text ends with the message's beginning, alone on its line (or after the
                    # exception's name): 'RuntimeError: Internal Triton PTX codegen error:'
                    cut_short = state == CUT and end_i >= n and count >= 3 and self._after_prefix(text, found, i)
                    if begin > 0 and state != REACHED:
                        continue
                    if count < PARTIAL_WORDS and not cut_short:
                        continue
                span = max(end_i - i, 1)
                hit = Hit(self.template(number), found[i][1], found[max(end_i, i + 1) - 1][2], count, whole,
                          min(1.0, count / span), generic)
                if best is None or (hit.whole, hit.words) > (best.whole, best.words):
                    best = hit
                if best.whole and best.words == total:
                    return best
        return best


REACHED, CUT, DIVERGED = 2, 1, 0
EXCEPTION_PREFIX = re.compile(r"\s*(?:[\w.\[\]]+\s*[:(]\s*[\"']?)?")


def _walk(toks, words, line_of, i0, j0):
    """Align template tokens from j0 with text words from i0: (end, literal words matched, state):
    REACHED the template's end, CUT where the text or its line ended, DIVERGED where a word differs."""
    memo: dict[tuple[int, int], tuple] = {}
    n, m = len(words), len(toks)

    def better(a, b):
        return a if b is None or (a[2] == REACHED, a[1], a[2]) > (b[2] == REACHED, b[1], b[2]) else b

    def step(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if j == m:
            result = (i, 0, REACHED)
        elif toks[j] is None:
            if j == m - 1:
                result = (i, 0, REACHED)  # a placeholder at the end matches whatever follows
            else:
                result = None
                line = line_of[i - 1] if i > 0 else 0
                for k in range(0, HOLE_WORDS + 1):
                    at = i + k
                    if at > n or (k and line_of[at - 1] != line):
                        break
                    result = better(step(at, j + 1), result)
                    if result[2] == REACHED:
                        break
        elif i >= n:
            result = (i, 0, CUT)
        elif words[i] == toks[j]:
            found = step(i + 1, j + 1)
            result = (found[0], found[1] + 1, found[2])
        elif i > i0 and line_of[i] != line_of[i - 1]:
            result = (i, 0, CUT)  # the line ends here: a message cut short
        else:
            result = (i, 0, DIVERGED)
        memo[key] = result
        return result

    import sys
    if m * 2 + 200 > sys.getrecursionlimit():
        sys.setrecursionlimit(m * 2 + 200)
    return step(i0, j0)


@lru_cache(maxsize=4)
def _load(path: str) -> Catalogue:
    with gzip.open(path, "rb") as stream:
        return Catalogue(json.loads(stream.read()))


def load(root: Path = ROOT) -> Catalogue:
    """The committed catalogue (read once per process)."""
    return _load(str(root / DATA))


def match(text: str, root: Path = ROOT) -> list[Hit]:
    """The catalogue's templates that ``text`` contains, best first."""
    return load(root).match(text)


# -- where a template comes from ------------------------------------------------------------------

REPOSITORY_PATHS = (  # wheel path prefix -> path in triton-lang/triton
    ("triton/backends/nvidia/", "third_party/nvidia/backend/"),
    ("triton/backends/amd/", "third_party/amd/backend/"),
    ("triton/profiler/", "third_party/proton/proton/"),
    ("triton/", "python/triton/"),
)


def source_url(raw: dict) -> str | None:
    """A link to the line that raises a template, in the newest release that has it."""
    file, line = raw.get("file"), raw.get("line")
    if not file:
        return None
    if file.startswith("torch/"):
        version = (raw.get("releases") or ["torch main"])[-1].split()[-1].split("+")[0]
        return f"https://github.com/pytorch/pytorch/blob/v{version}/{file}" + (f"#L{line}" if line else "")
    release = raw["releases"][-1]
    for prefix, replacement in REPOSITORY_PATHS:
        if file.startswith(prefix):
            path = replacement + file[len(prefix):]
            return f"https://github.com/triton-lang/triton/blob/v{release}/{path}" + (f"#L{line}" if line else "")
    return None


def span(releases) -> str:
    """'3.2–3.9', '3.4, 3.6–3.9' from a list of releases."""
    short = [".".join(r.split(".")[:2]) for r in releases]
    if not short or any(not re.fullmatch(r"\d+\.\d+", s) for s in short):
        return ", ".join(releases)
    runs: list[list[str]] = []
    for version in short:
        major, minor = map(int, version.split("."))
        if runs and runs[-1][-1] == f"{major}.{minor - 1}":
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def describe(hit: Hit) -> dict:
    """What explain can say about a known message: what raises it, where, in which releases, which
    entries explain it, and how to report it when none does."""
    template = hit.template
    releases = hit.releases
    search = f"{ISSUES}?q=" + "+".join(tokens(template.text.split("{")[0])[:8])
    return {
        "template": template.text,
        "kind": template.kind,
        "raised_by": template.form,
        "file": template.file,
        "line": template.line,
        "source_url": template.source_url,
        "also_raised_at": [{"file": t.file, "line": t.line, "releases": span(t.releases), "source_url": t.source_url}
                           for t in hit.also if t.file],
        "releases": releases,
        "release_span": span(releases),
        "entries": sorted({e for t in hit.templates for e in t.entries}),
        "report": f"search {search} for the message, or open an issue at {NEW_ISSUE} with a short script that raises it",
        "search_url": search,
        "new_issue_url": NEW_ISSUE,
    }


# -- which entries explain a template ---------------------------------------------------------------

def entry_messages(root: Path = ROOT) -> list[tuple[str, str, str]]:
    """(entry ID, message, where it comes from): every message an entry claims in its front matter and
    every real message of tests/data/real_messages.yaml judged to an entry."""
    from .handbook.page import load_yaml

    from . import handbook

    claimed = handbook.load(root).claimed_errors
    found = [(e.entry.id, e.message, f"{e.entry.id} errors: {e.reproduce}") for e in claimed]
    real = root / "tests" / "data" / "real_messages.yaml"
    if real.is_file():
        for item in load_yaml(real.read_text(encoding="utf-8")) or []:
            if item.get("entry"):
                found.append((item["entry"], item["message"], item["url"]))
    return found


def named_messages(root: Path = ROOT) -> list[tuple[str, str]]:
    """(entry ID, line): the titles and symptoms of every entry's pages, where an entry can name a message
    that its proof cannot claim (TP065's needs a driver older than the GPU machine's)."""
    from . import handbook

    return [(entry.id, line) for entry in handbook.load(root).entries for view in entry.views()
            for line in (view.title, *view.symptoms)]


OWN_WORDS = 4  # a template with fewer words of its own maps only as most of an entry's claimed message


def entries_for(catalogue: Catalogue, root: Path = ROOT) -> dict[str, set[str]]:
    """template ID -> the entries that explain it. A template maps to an entry when it is found in one of
    the entry's claimed messages (``entry_messages``) or in a title or symptom of its pages
    (``named_messages``), is not generic, and its own words make at least half of the matched span (so
    ``{cls.__name__} has no attribute '{name}'`` is not mapped through Python's own AttributeError).
    It also needs ``OWN_WORDS`` words of its own, unless it is most of a claimed message: a short
    template inside a longer one is a phrase of it, not the message (``unsupported operand type`` in
    Python's ``unsupported operand type(s) for ** or pow()``, the bare ``Triton Error [CUDA]: {...}``
    in whatever CUDA error one entry explains)."""
    mapped: dict[str, set[str]] = {}
    sources = [(entry, message, True) for entry, message, _ in entry_messages(root)]
    sources += [(entry, line, False) for entry, line in named_messages(root)]
    for entry, text, claimed in sources:
        for hit in catalogue.match(text):
            most = 2 * len(TOKEN.findall(text[hit.start:hit.end].lower())) >= len(TOKEN.findall(text.lower()))
            if hit.covered >= 0.5 and not hit.generic and (hit.words >= OWN_WORDS or (claimed and most)):
                for template in hit.templates:  # the same text raised in several places
                    mapped.setdefault(template.id, set()).add(entry)
    return mapped
