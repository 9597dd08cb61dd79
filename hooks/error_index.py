"""Fill ``<!-- error-index -->`` with every error message the entries answer, grouped by where it appears.

One row per message: the entry that answers it (the lowest ID that claims it), and any other entry
that also produces it as "also shown in".
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from triton_faq import handbook, ui_text
from triton_faq.handbook.page import inline_code
from triton_faq.handbook.schema import WHERE, marker

MARKER = marker("error-index")


def _link(language: str, entry, title: bool) -> str:
    text = entry.view(language).title if title else entry.id
    return (f"`{entry.id}` " if title else "") + f"[{text}]({entry.name}.md)"


def render(root: Path, language: str) -> str:
    book = handbook.load(root)
    if book.error_problems:
        raise ValueError("; ".join(book.error_problems))
    claimed = book.claimed_errors
    blocks = []
    for where in WHERE:
        heading = ui_text.text(language, f"error_index.group.{where}")
        rows = [error for error in claimed if error.where == where]
        if not rows:
            continue
        lines = [f"## {heading} {{ #{where} }}", "", ui_text.text(language, "error_index.header")]
        by_message: dict[str, list] = {}
        for error in sorted(rows, key=lambda e: (e.entry.id, e.message)):
            by_message.setdefault(error.message, []).append(error.entry)
        for message, owners in sorted(by_message.items(), key=lambda item: (item[1][0].id, item[0])):
            first, *others = list(dict.fromkeys(owners))
            cell = _link(language, first, title=True)
            if others:
                cell += (f"; {ui_text.text(language, 'error_index.also')} "
                         + ", ".join(_link(language, e, title=False) for e in others))
            lines.append(f"| {inline_code(message.replace('|', chr(92) + '|'))} | {cell} |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    site, language, _ = handbook.built(page, config)
    try:
        return MARKER.sub(lambda _: render(site.root, language), markdown)
    except (ValueError, KeyError) as error:  # a clear message, not a traceback
        raise PluginError(f"{page.file.src_uri}: cannot build the error index: {error}") from None
