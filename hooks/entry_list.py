"""Fill ``<!-- entry-list -->`` (every entry, by topic) and ``<!-- entry-list: TOPIC -->`` (one topic).

Titles come from each page's front matter in the page's own language, so a list never drifts
from the entries it links to.
"""

from __future__ import annotations

import posixpath

from mkdocs.exceptions import PluginError

from triton_faq import handbook
from triton_faq.handbook.schema import marker

MARKER = marker("entry-list")


def entries(book: handbook.Handbook, language: str) -> dict[str, list[tuple[str, str, str]]]:
    """{topic: [(id, title, path relative to the language's folder)]}, in ID order."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for entry in book.entries:
        if language in entry.pages:
            found.setdefault(entry.topic, []).append((entry.id, entry.view(language).title, f"{entry.name}.md"))
    return {topic: sorted(items) for topic, items in sorted(found.items())}


def render(book: handbook.Handbook, language: str, page_path: str, topic: str | None) -> str:
    """Markdown list(s) with links relative to ``page_path`` (relative to the language's folder)."""
    listed = entries(book, language)
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
            lines.insert(0, f"### [{book.title(f'{name}/index', language)}]({index}) {{ #{name} }}\n")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    site, language, name = handbook.built(page, config)
    book = handbook.load(site.root)
    try:
        return MARKER.sub(lambda m: render(book, language, f"{name}.md", m["argument"]), markdown)
    except (ValueError, KeyError) as error:  # a clear message, not a traceback
        raise PluginError(f"{page.file.src_uri}: cannot list the entries: {error}") from None
