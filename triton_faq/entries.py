"""The handbook's entries: ID, pages, the reader's file, its proof, its GPU evidence and data.

One entry, four mirrored paths::

    snippets/<topic>/<question>.py               the reader's file: torch + triton only
    tests/entries/<topic>/test_<question>.py     the proof: one test per claim
    evidence/<topic>/<question>.py               GPU evidence functions (`triton-faq bench`)
    data/<topic>/<question>.json                 what the evidence returned, with provenance
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

from .pages import parse

ROOT = Path(__file__).resolve().parent.parent
SITE_URL = "https://triton-faq.github.io/triton-faq/"
"""Where the site is published (mkdocs.yml's ``site_url``; a test keeps the two equal)."""


def importable(root: Path) -> None:
    """Let ``root``'s proofs and evidence import the reader's files as ``snippets.<topic>.<question>``."""
    import sys

    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def entry_url(name: str, language: str = "en") -> str:
    """The full URL of the page ``topic/question`` on the site, in ``language``."""
    return SITE_URL + ("" if language == "en" else f"{language}/") + name + "/"


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


def _mirror(snippet: Path | str, top: tuple[str, ...], prefix: str = "") -> Path:
    parts = Path(snippet).parts
    if len(parts) < 2 or parts[0] != "snippets":
        raise ValueError(f"front matter snippet {str(snippet)!r} is not under snippets/")
    return Path(*top, *parts[1:-1], prefix + parts[-1])


def proof_for(snippet: Path | str) -> Path:
    """snippets/topic/question.py -> tests/entries/topic/test_question.py"""
    return _mirror(snippet, ("tests", "entries"), "test_")


def evidence_for(snippet: Path | str) -> Path:
    """snippets/topic/question.py -> evidence/topic/question.py"""
    return _mirror(snippet, ("evidence",))


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
    def proof(self) -> Path:
        """tests/entries/<topic>/test_<question>.py, relative to the root."""
        return proof_for(self.snippet)

    @property
    def evidence(self) -> Path:
        """evidence/<topic>/<question>.py (may not exist: not every entry has GPU evidence)."""
        return evidence_for(self.snippet)

    @property
    def name(self) -> str:
        return self.page.relative_to("docs/en").with_suffix("").as_posix()


def load(root: Path = ROOT) -> list[Entry]:
    """Every entry, in ID order (the pages are parsed once per process while they stay unchanged)."""
    entries = []
    for page in sorted((root / "docs" / "en").rglob("*.md")):
        front = parse(page).front_matter
        if "id" in front and isinstance(front.get("snippet"), str):
            entries.append(Entry(front["id"], page.relative_to(root), Path(front["snippet"])))
    return sorted(entries, key=lambda entry: entry.id)


def find(selector: str, root: Path = ROOT) -> Entry | None:
    """The entry named by its ID (TP001), its page name (topic/question) or its snippet path."""
    for entry in load(root):
        if selector.upper() == entry.id or selector.strip("/") in (entry.name, str(entry.snippet)):
            return entry
    return None


def _code_only(source: str) -> str:
    """The code of a Python file without its comments, docstrings, blank lines and trailing spaces.

    Worked on the source text (not ``ast.dump``, whose output changes between Python versions),
    so the same file gives the same text on every Python: comments are found by ``tokenize``,
    docstrings by their positions in the AST.
    """
    lines = source.splitlines()
    cut: dict[int, int] = {}  # 0-based line -> column where a comment starts
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            cut[token.start[0] - 1] = token.start[1]
    blank: list[tuple[int, int, int, int]] = []
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            doc = body[0]
            blank.append((doc.lineno - 1, doc.col_offset, doc.end_lineno - 1, doc.end_col_offset))
    for first, start, last, end in blank:
        if first == last:
            lines[first] = lines[first][:start] + lines[first][end:]
        else:
            lines[first] = lines[first][:start]
            for number in range(first + 1, last):
                lines[number] = ""
            lines[last] = lines[last][end:]
    kept = []
    for number, line in enumerate(lines):
        if number in cut:
            line = line[:cut[number]]
        if line.strip():
            kept.append(line.rstrip())
    return "\n".join(kept)


def code_hash(root: Path, *paths: Path) -> str:
    """sha256 of the code in ``paths`` (missing files count as empty), ignoring comments and docstrings.

    Called with an entry's reader's file and its evidence file, this is the code that produced
    its GPU data: editing a test, a comment or a docstring leaves the data current; editing a
    kernel, a launcher or an evidence function makes it stale.
    """
    digest = hashlib.sha256()
    for path in paths:
        file = root / path
        digest.update(str(path).encode() + b"\0")
        if file.is_file():
            digest.update(_code_only(file.read_text(encoding="utf-8")).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def data_hash(root: Path, entry: "Entry") -> str:
    """The hash GPU data is keyed to: the reader's file and the evidence file, code only."""
    return code_hash(root, entry.snippet, entry.evidence)


def proof_hash(root: Path, entry: "Entry") -> str:
    """The hash the version matrix is keyed to: the reader's file and its proof, code only."""
    return code_hash(root, entry.snippet, entry.proof)
