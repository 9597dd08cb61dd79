"""Read a handbook page into the parts the checks compare: front matter, anchors, fences.

A page is Markdown with YAML front matter. Every heading below the title carries an explicit
anchor (``## Fix { #fix }``) so both languages share it. A code fence either holds Python to
run, or only include lines (``--8<-- "snippets/topic/question.py:section"``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .schema import ANY_MARKER

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")
HEADING = re.compile(r"^(?P<level>#{1,6})[ \t]+(?P<text>.*?)[ \t]*$")
ANCHOR = re.compile(r"\{[ \t]*#(?P<anchor>[A-Za-z0-9_-]+)[ \t]*\}$")
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"(?P<path>[^":]+)(?::(?P<section>[A-Za-z0-9_-]+))?"[ \t]*$')


class PageError(ValueError):
    """A page that cannot be read as a handbook page; the message names file and line."""


@dataclass(frozen=True)
class Fence:
    line: int  # 1-based line of the opening fence
    info: str  # the info string after the backticks, stripped
    body: str
    includes: tuple[tuple[str, str | None], ...]  # (path, section) pairs, for include-only fences
    indent: str = ""  # the opening fence's indentation: inside an admonition or a fold when not empty

    @property
    def is_include_only(self) -> bool:
        return bool(self.includes)


@dataclass
class Page:
    path: Path
    front_matter: dict
    body_start: int  # 1-based line where the Markdown after the front matter starts
    headings: list[tuple[int, int, str, str | None]] = field(default_factory=list)  # line, level, text, anchor
    fences: list[Fence] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)  # generated-content markers, in order
    text: str = field(default="", repr=False)  # the whole file

    @property
    def body(self) -> str:
        """The Markdown after the front matter."""
        return "\n".join(self.text.split("\n")[self.body_start - 1:])

    @property
    def anchors(self) -> list[str | None]:
        return [anchor for _, level, _, anchor in self.headings if level > 1]

    @property
    def includes(self) -> list[tuple[str, str | None]]:
        return [include for fence in self.fences for include in fence.includes]


def load_yaml(text: str):
    """``yaml.safe_load(text)``, through libyaml where PyYAML has it (twenty times faster on the pages'
    front matter, the same values). A text it refuses is read again by the pure-Python loader, whose
    message quotes the line at fault."""
    try:
        return yaml.load(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        if _FAST_LOADER is yaml.SafeLoader:
            raise
    return yaml.safe_load(text)


_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def split_front_matter(text: str, path: Path) -> tuple[dict, str, int]:
    if not text.startswith("---\n"):
        return {}, text, 1
    end = text.find("\n---\n", 4)
    if end < 0:
        raise PageError(f"{path}:1: front matter opened with '---' is never closed")
    try:
        data = load_yaml(text[4:end]) or {}
    except yaml.YAMLError as error:
        raise PageError(f"{path}:1: front matter is not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise PageError(f"{path}:1: front matter must be a mapping of keys to values")
    consumed = text[: end + 5]
    return data, text[end + 5 :], consumed.count("\n") + 1


def parse(path: Path, text: str | None = None) -> Page:
    """The page at ``path`` (or ``text`` as if it were there). Reading a file is cached per process
    until the file changes, so hooks, checks and tests share one parse of each page."""
    path = Path(path)
    if text is None:
        stat = path.stat()
        return _parse_file(path, stat.st_mtime_ns, stat.st_size)
    return _parse(path, text)


@functools.lru_cache(maxsize=1024)
def _parse_file(path: Path, mtime_ns: int, size: int) -> Page:
    text = path.read_text(encoding="utf-8")
    known = _PARSED_TEXT.get(text)  # the same page in another copy of the tree (the checks' tests make many)
    if known is not None:
        return dataclasses.replace(known, path=path)
    page = _PARSED_TEXT[text] = _parse(path, text)
    if len(_PARSED_TEXT) > 1024:
        del _PARSED_TEXT[next(iter(_PARSED_TEXT))]
    return page


_PARSED_TEXT: dict[str, Page] = {}  # a text's page, whatever its path; the oldest goes first


def _parse(path: Path, text: str) -> Page:
    front_matter, body, first_line = split_front_matter(text, path)
    page = Page(path, front_matter, first_line, text=text)
    lines = body.split("\n")
    index = 0
    while index < len(lines):
        number = first_line + index
        opening = FENCE.match(lines[index])
        if opening:
            index = _read_fence(page, lines, index, opening, number)
            continue
        page.markers += [m["marker"] for m in ANY_MARKER.finditer(lines[index])]
        heading = HEADING.match(lines[index])
        if heading:
            level, text_ = len(heading["level"]), heading["text"]
            anchor = ANCHOR.search(text_)
            title = ANCHOR.sub("", text_).strip()
            page.headings.append((number, level, title, anchor["anchor"] if anchor else None))
        index += 1
    return page


def _read_fence(page: Page, lines: list[str], index: int, opening: re.Match, number: int) -> int:
    marker, indent = opening["fence"], opening["indent"]
    body: list[str] = []
    index += 1
    while index < len(lines):
        closing = FENCE.match(lines[index])
        if closing and closing["fence"][0] == marker[0] and len(closing["fence"]) >= len(marker) and not closing["info"].strip():
            break
        body.append(lines[index][len(indent):] if lines[index].startswith(indent) else lines[index])
        index += 1
    else:
        raise PageError(f"{page.path}:{number}: code fence is never closed")
    text = "\n".join(body)
    includes = [INCLUDE.match(line) for line in body if line.strip()]
    if any(includes) and not all(includes):
        raise PageError(
            f"{page.path}:{number}: a fence mixes --8<-- include lines with code; "
            "put the code in the snippet and include it, or write the code without includes"
        )
    found = tuple((m["path"], m["section"]) for m in includes if m)
    page.fences.append(Fence(number, opening["info"].strip(), text, found, indent))
    return index + 1


def section_lines(path: Path, name: str) -> tuple[int, str]:
    """The 1-based line where section ``name``'s code starts, and that code (KeyError if absent)."""
    stat = Path(path).stat()
    found = _sections(Path(path), stat.st_mtime_ns, stat.st_size).get(name)
    if found is None:
        raise KeyError(f"{path} has no section '{name}'")
    return found


SECTION_MARKER = re.compile(r"# --8<-- \[(?P<kind>start|end):(?P<name>[^\]]*)\]")


@functools.lru_cache(maxsize=2048)
def _sections(path: Path, mtime_ns: int, size: int) -> dict[str, tuple[int, str]]:
    """Every section of a file, read once while the file stays unchanged (the checks ask for each
    section of each reader's file many times): a name's first start marker and first end marker."""
    lines = path.read_text(encoding="utf-8").split("\n")
    first: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines):
        marker = SECTION_MARKER.fullmatch(line.strip())
        if marker:
            first.setdefault((marker["kind"], marker["name"]), number)
    sections = {}
    for (kind, name), start in first.items():
        end = first.get(("end", name))
        if kind == "start" and end is not None and end >= start:
            sections[name] = (start + 2, "\n".join(lines[start + 1:end]))
    return sections


def snippet_section(path: Path, name: str) -> str | None:
    """The code between ``# --8<-- [start:name]`` and ``# --8<-- [end:name]``, or None."""
    try:
        return section_lines(path, name)[1].strip("\n")
    except KeyError:
        return None


def section_exists(root: Path, path: str, section: str | None) -> str | None:
    """Return None if the include target exists, else a sentence saying what is missing."""
    target = root / path
    if not target.is_file():
        return f"included file {path} does not exist"
    if section is None:
        return None
    if snippet_section(target, section) is None:
        return f"{path} has no section '{section}' (markers '--8<-- [start:{section}]' and '[end:{section}]')"
    return None


def indented_like(match: re.Match, text: str) -> str:
    """``text`` for a marker matched at the start of an indented line (inside a fold): every line
    after the first gets the marker's indentation, so the rendered block stays inside the fold."""
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    indent = match.string[line_start:match.start()]
    if indent.strip():
        return text  # the marker sits inside a line of text: leave it
    return text.rstrip("\n").replace("\n", "\n" + indent) + ("\n" if text.endswith("\n") else "")


def inline_code(text: str) -> str:
    """Markdown inline code that survives backticks inside the text."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"
