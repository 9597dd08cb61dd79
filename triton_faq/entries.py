"""The handbook's entries: ID, English page, snippet, and where the snippet's GPU data lives."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .pages import parse

ROOT = Path(__file__).resolve().parent.parent


def snippet_for(page: Path) -> Path:
    """The snippet that mirrors a page: docs/<lang>/topic/page-name.md -> snippets/topic/page_name.py."""
    parts = Path(page).with_suffix("").parts
    if parts[:1] == ("docs",):
        parts = parts[2:]
    return Path("snippets", *(part.replace("-", "_") for part in parts)).with_suffix(".py")


def data_for(snippet: Path | str) -> Path:
    """The GPU data of a snippet: snippets/topic/question.py -> data/topic/question.json."""
    parts = Path(snippet).parts
    if len(parts) < 2 or parts[0] != "snippets":
        raise ValueError(f"front matter snippet {str(snippet)!r} is not under snippets/")
    return Path("data", *parts[1:]).with_suffix(".json")


@dataclass(frozen=True)
class Entry:
    id: str
    page: Path  # docs/en/<topic>/<question>.md, relative to the root
    snippet: Path  # snippets/<topic>/<question>.py, relative to the root

    @property
    def data(self) -> Path:
        """data/<topic>/<question>.json, relative to the root."""
        return data_for(self.snippet)

    @property
    def name(self) -> str:
        return self.page.relative_to("docs/en").with_suffix("").as_posix()


def load(root: Path = ROOT) -> list[Entry]:
    """Every entry, in ID order."""
    entries = []
    for page in sorted((root / "docs" / "en").rglob("*.md")):
        front = parse(page).front_matter
        if "id" in front:
            entries.append(Entry(front["id"], page.relative_to(root), Path(front["snippet"])))
    return sorted(entries, key=lambda entry: entry.id)


def find(selector: str, root: Path = ROOT) -> Entry | None:
    """The entry named by its ID (TP001), its page name (topic/question) or its snippet path."""
    for entry in load(root):
        if selector.upper() == entry.id or selector.strip("/") in (entry.name, str(entry.snippet)):
            return entry
    return None


def code_hash(root: Path, snippet: Path) -> str:
    """sha256 of the snippet file: the code that produced an entry's GPU data."""
    return hashlib.sha256((root / snippet).read_bytes()).hexdigest()
