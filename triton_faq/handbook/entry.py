"""An entry: one question, its page in every language and its mirrored files.

One entry, its files::

    docs/<language>/<topic>/<question>.md       its page in each language (kebab-case)
    snippets/<topic>/<question>.py               the reader's file: torch + triton only
    tests/entries/<topic>/test_<question>.py     the proof: one test per claim
    evidence/<topic>/<question>.py               GPU evidence functions (`triton-faq bench`)
    data/<topic>/<question>.json                 what the evidence returned, with provenance

``Entry`` holds what every language shares (ID, reader's file, claimed errors); ``entry.view(language)``
is the entry as a reader of that language sees it (title, description, symptoms, keywords, the
answer its page opens with, its URL).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import schema
from .page import Page, snippet_section
from .site import Site

H1 = re.compile(r"^# .*$", re.MULTILINE)
ANSWER_END = re.compile(r"^(```|## |\?\?\?\+? |!!! )", re.MULTILINE)  # code, a section, an admonition


def importable(root: Path) -> None:
    """Let ``root``'s proofs and evidence import the reader's files as ``snippets.<topic>.<question>``."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def snippet_for(name: str | Path) -> Path:
    """The reader's file of page ``topic/question`` (or its page file): snippets/topic/question.py."""
    parts = PurePosixPath(Path(name).as_posix()).with_suffix("").parts
    return Path("snippets", *(part.replace("-", "_") for part in parts)).with_suffix(".py")


def _mirror(snippet: Path | str, top: tuple[str, ...], prefix: str = "", suffix: str | None = None) -> Path:
    parts = Path(snippet).parts
    if len(parts) < 2 or parts[0] != "snippets":
        raise ValueError(f"front matter snippet {str(snippet)!r} is not under snippets/")
    path = Path(*top, *parts[1:-1], prefix + parts[-1])
    return path.with_suffix(suffix) if suffix else path


def proof_for(snippet: Path | str) -> Path:
    """snippets/topic/question.py -> tests/entries/topic/test_question.py"""
    return _mirror(snippet, ("tests", "entries"), "test_")


def evidence_for(snippet: Path | str) -> Path:
    """snippets/topic/question.py -> evidence/topic/question.py"""
    return _mirror(snippet, ("evidence",))


def data_for(snippet: Path | str) -> Path:
    """snippets/topic/question.py -> data/topic/question.json"""
    return _mirror(snippet, ("data",), suffix=".json")


@dataclass(frozen=True)
class ClaimedError:
    """One message under an entry's ``errors:`` (identical in every language)."""
    entry: "Entry"
    message: str
    fingerprint: re.Pattern
    where: str
    backend: str
    reproduce: str

    @property
    def name(self) -> str:
        return f"{self.entry.id}:{self.reproduce}"


@dataclass(frozen=True)
class EntryView:
    """An entry as a reader of one language sees it."""
    entry: "Entry"
    language: str
    page: Page = field(repr=False)

    @property
    def front_matter(self) -> dict:
        return self.page.front_matter

    @property
    def path(self) -> Path:
        """The page file, relative to the root."""
        return self.page.path.relative_to(self.entry.site.root)

    @property
    def title(self) -> str:
        return str(self.front_matter.get("title", self.entry.id))

    @property
    def description(self) -> str:
        return str(self.front_matter.get("description", ""))

    @property
    def symptoms(self) -> list[str]:
        return [str(item) for item in self.front_matter.get("symptoms", []) or []]

    @property
    def keywords(self) -> list[str]:
        return [str(item) for item in self.front_matter.get("keywords", []) or []]

    @property
    def body(self) -> str:
        """The page's Markdown after its front matter."""
        return self.page.body

    @property
    def heading(self) -> str:
        """The page's title as written in its Markdown (with its inline code)."""
        return next((text for _, level, text, _ in self.page.headings if level == 1), self.title)

    @property
    def answer(self) -> str:
        """The answer the page opens with: the paragraphs between its title and the fix code."""
        text = self.page.text
        title = H1.search(text)
        if title is None:
            return self.description
        rest = text[title.end():]
        end = ANSWER_END.search(rest)
        return (rest[: end.start()] if end else rest).strip() or self.description

    @property
    def url(self) -> str:
        return self.entry.site.url_of(self.entry.name, self.language)

    @property
    def url_path(self) -> str:
        """The page's path from the site's root (``zh/topic/question/``)."""
        return self.entry.site.url_path(self.entry.name, self.language)


@dataclass(frozen=True)
class Entry:
    id: str
    name: str  # topic/question: the page's path inside each language's folder, without .md
    snippet: Path  # snippets/<topic>/<question>.py, relative to the root
    site: Site = field(compare=False, repr=False)
    pages: dict = field(compare=False, repr=False)  # {language: Page}
    errors: tuple = field(default=(), compare=False, repr=False)  # (ClaimedError, ...)

    @property
    def topic(self) -> str:
        return self.name.split("/", 1)[0]

    def view(self, language: str | None = None) -> EntryView:
        """The entry in ``language`` (default: the site's default language)."""
        language = language or self.site.default
        if language not in self.pages:
            raise KeyError(f"{self.id} has no page in {language!r} ({self.site.page_file(self.name, language)})")
        return EntryView(self, language, self.pages[language])

    def views(self) -> list[EntryView]:
        """The entry in every language it has a page in, the default first."""
        return [self.view(language) for language in self.site.languages if language in self.pages]

    @property
    def page(self) -> Path:
        """The default language's page, relative to the root."""
        return self.view().path

    @property
    def fix(self) -> str | None:
        """The reader's file's ``fix`` section: the lines a reader changes."""
        return snippet_section(self.site.root / self.snippet, "fix")

    @property
    def proof(self) -> Path:
        """tests/entries/<topic>/test_<question>.py, relative to the root."""
        return proof_for(self.snippet)

    @property
    def evidence(self) -> Path:
        """evidence/<topic>/<question>.py (may not exist: not every entry has GPU evidence)."""
        return evidence_for(self.snippet)

    @property
    def data(self) -> Path:
        """data/<topic>/<question>.json, relative to the root."""
        return data_for(self.snippet)

    def url(self, language: str | None = None) -> str:
        return self.site.url_of(self.name, language)


def error_problems(where: str, item) -> list[str]:
    """What is wrong with one item of ``errors:`` (empty when it is well formed)."""
    keys = schema.ERROR_KEYS
    if not isinstance(item, dict):
        return [f"{where} must be a mapping with keys {sorted(keys)}"]
    problems = []
    if set(item) != keys:
        missing, extra = keys - set(item), set(item) - keys
        problems.append(f"{where}: missing {sorted(missing)}" if missing else f"{where}: unknown keys {sorted(extra)}")
    for key in keys & set(item):
        if not isinstance(item[key], str) or not item[key].strip():
            problems.append(f"{where}: '{key}' must be a non-empty string")
    if isinstance(item.get("where"), str) and item["where"] not in schema.WHERE:
        problems.append(f"{where}: where '{item['where']}' is not one of {', '.join(schema.WHERE)}")
    if isinstance(item.get("backend"), str) and item["backend"] not in schema.BACKENDS:
        problems.append(f"{where}: backend '{item['backend']}' is not one of {', '.join(schema.BACKENDS)}")
    if isinstance(item.get("fingerprint"), str):
        try:
            pattern = re.compile(item["fingerprint"])
        except re.error as error:
            problems.append(f"{where}: fingerprint is not a valid regex: {error}")
        else:
            if isinstance(item.get("message"), str) and not pattern.search(item["message"]):
                problems.append(f"{where}: fingerprint does not match its own message")
    return problems
