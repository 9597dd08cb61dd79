"""The handbook as data: its site, its pages and its entries, read once.

This package is the only code that knows where pages live (``docs/<language>/...``), which
languages there are and what a page's URL is. Everything else (``explain``, ``check``, parity, the
scaffold, the command line, the site's hooks) reads through it::

    book = handbook.load(root)          # cached while no page and mkdocs.yml change
    book.site.languages                 # ('en', 'zh'): from mkdocs.yml, the default first
    entry = book.find("TP001")
    entry.view("zh").title, entry.view("zh").url, entry.errors, entry.proof

A page that cannot be parsed does not stop the load: it is left out and named in ``book.problems``.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from . import schema
from .entry import (ClaimedError, Entry, EntryView, data_for, error_problems, evidence_for, importable,
                    proof_for, snippet_for)
from .page import Page, PageError, parse
from .site import Site, SiteError, load_site

ROOT = Path(__file__).resolve().parent.parent.parent
"""The checkout this package was loaded from."""

__all__ = ["ROOT", "Handbook", "Entry", "EntryView", "ClaimedError", "Site", "SiteError", "Page", "PageError",
           "load", "load_site", "parse", "schema", "importable", "snippet_for", "proof_for", "evidence_for",
           "data_for", "built"]


@dataclass
class Handbook:
    site: Site
    pages: dict[str, dict[str, Page]]  # {language: {name: Page}}, every page that parsed
    entries: list[Entry]  # in ID order
    problems: list[str] = field(default_factory=list)  # pages that could not be read
    error_problems: list[str] = field(default_factory=list)  # items of ``errors:`` that are malformed

    @property
    def root(self) -> Path:
        return self.site.root

    def find(self, selector: str) -> Entry | None:
        """The entry named by its ID (TP001), its name (topic/question) or its reader's file's path."""
        wanted = selector.strip().strip("/")
        for entry in self.entries:
            if wanted.upper() == entry.id or wanted in (entry.name, entry.snippet.as_posix()):
                return entry
        return None

    def page(self, name: str, language: str) -> Page | None:
        """Page ``name`` in ``language``, or None if it does not exist or did not parse."""
        return self.pages.get(language, {}).get(name)

    def title(self, name: str, language: str) -> str:
        page = self.page(name, language)
        if page is None:
            raise KeyError(f"no page {self.site.page_file(name, language)}")
        return str(page.front_matter.get("title", name))

    @property
    def claimed_errors(self) -> list[ClaimedError]:
        """Every well-formed claimed error of every entry, in ID order."""
        return [error for entry in self.entries for error in entry.errors]


class BuiltPage(NamedTuple):
    site: Site
    language: str
    name: str  # topic/question, or lint, or topic/index


def built(page, config) -> BuiltPage:
    """The site, language and name of a page MkDocs is building (for the hooks)."""
    site = load_site(Path(config["config_file_path"]).parent)
    try:
        return BuiltPage(site, *site.name_of(page.file.src_uri))
    except SiteError:  # a page the build generates outside the language folders belongs to the default language
        return BuiltPage(site, site.default, Path(page.file.src_uri).with_suffix("").as_posix())


def load(root: Path | None = None) -> Handbook:
    """The handbook of the checkout at ``root`` (default: this package's), parsed once per process
    while its pages and mkdocs.yml stay unchanged."""
    site = load_site(Path(root or ROOT))
    return _load(site, _signature(site))


def _signature(site: Site) -> tuple:
    stats = []
    for folder, _, files in os.walk(site.docs_dir):
        for name in files:
            if name.endswith(".md"):
                stat = os.stat(os.path.join(folder, name))
                stats.append((folder, name, stat.st_mtime_ns, stat.st_size))
    return tuple(sorted(stats))


@functools.lru_cache(maxsize=16)
def _load(site: Site, signature: tuple) -> Handbook:
    pages: dict[str, dict[str, Page]] = {language: {} for language in site.languages}
    problems: list[str] = []
    malformed: list[str] = []
    for language in site.languages:
        if not site.folder(language).is_dir():
            problems.append(f"{site.folder(language)}: missing: mkdocs.yml lists the language {language!r}")
            continue
        for path in site.pages(language):
            try:
                pages[language][site.name_of(path)[1]] = parse(path)
            except PageError as error:
                problems.append(str(error))
    entries = []
    for name, page in pages[site.default].items():
        front = page.front_matter
        if "id" not in front or not isinstance(front.get("snippet"), str):
            continue
        own = {language: pages[language][name] for language in site.languages if name in pages[language]}
        entry = Entry(str(front["id"]), name, Path(front["snippet"]), site, own)
        items = front.get("errors", []) or []
        claimed = []
        if not isinstance(items, list):
            malformed.append(f"{entry.page}: 'errors' must be a list")
            items = []
        for index, item in enumerate(items):
            found = error_problems(f"{entry.page}: errors[{index}]", item)
            malformed += found
            if not found:
                claimed.append(ClaimedError(entry, item["message"], re.compile(item["fingerprint"]), item["where"],
                                            item["backend"], item["reproduce"]))
        object.__setattr__(entry, "errors", tuple(claimed))
        entries.append(entry)
    return Handbook(site, pages, sorted(entries, key=lambda entry: entry.id), problems, malformed)
