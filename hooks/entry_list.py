"""Fill ``<!-- entry-list -->`` (every entry, by topic) and ``<!-- entry-list: TOPIC -->`` (one topic).

Titles come from each page's front matter in the page's own language, so a list never drifts
from the entries it links to.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from triton_faq.pages import PageError, parse

MARKER = re.compile(r"<!--\s*entry-list(?::\s*(?P<topic>[a-z0-9-]+))?\s*-->")


def entries(docs: Path, language: str) -> dict[str, list[tuple[str, str, str]]]:
    """{topic: [(id, title, path relative to the language root)]}, in ID order."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for page in sorted((docs / language).rglob("*.md")):
        front = parse(page).front_matter
        if "id" in front:
            relative = page.relative_to(docs / language).as_posix()
            found.setdefault(relative.split("/", 1)[0], []).append((front["id"], front["title"], relative))
    return {topic: sorted(items) for topic, items in sorted(found.items())}


def topic_title(docs: Path, language: str, topic: str) -> str:
    return parse(docs / language / topic / "index.md").front_matter["title"]


def render(docs: Path, language: str, page_path: str, topic: str | None) -> str:
    """Markdown list(s) with links relative to ``page_path`` (relative to the language root)."""
    listed = entries(docs, language)
    if topic is not None and topic not in listed:
        raise ValueError(f"{page_path}: entry-list names topic {topic!r}, which has no entries")
    here = posixpath.dirname(page_path)
    blocks = []
    for name, items in listed.items():
        if topic is not None and name != topic:
            continue
        lines = [f"- `{id_}` [{title}]({posixpath.relpath(path, here or '.')})" for id_, title, path in items]
        if topic is None:
            index = posixpath.relpath(f"{name}/index.md", here or ".")
            lines.insert(0, f"### [{topic_title(docs, language, name)}]({index}) {{ #{name} }}\n")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def on_page_markdown(markdown, page, config, files):
    if "entry-list" not in markdown:
        return markdown
    docs = Path(config["docs_dir"])
    language, page_path = page.file.src_uri.split("/", 1)
    try:
        return MARKER.sub(lambda m: render(docs, language, page_path, m["topic"]), markdown)
    except (ValueError, PageError) as error:  # a clear message, not a traceback
        raise PluginError(f"{page.file.src_uri}: cannot list the entries: {error}") from None
