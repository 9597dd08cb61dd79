"""Fill ``<!-- error-index -->`` with every error message the entries answer, grouped by where it appears.

One row per message: the entry that answers it (the lowest ID that claims it), and any other entry
that also produces it as "also shown in".
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from triton_faq import errors, interface
from triton_faq.pages import PageError, inline_code, page_language, parse

MARKER = "<!-- error-index -->"


def _link(root: Path, language: str, entry, title: bool) -> str:
    relative = entry.page.relative_to("docs/en")
    text = parse(root / "docs" / language / relative).front_matter["title"] if title else entry.id
    return (f"`{entry.id}` " if title else "") + f"[{text}]({relative.as_posix()})"


def render(root: Path, language: str) -> str:
    claimed, problems = errors.load(root)
    if problems:
        raise ValueError("; ".join(problems))
    blocks = []
    for where in errors.WHERE:
        heading = interface.text(language, f"error_index.group.{where}")
        rows = [error for error in claimed if error.where == where]
        if not rows:
            continue
        lines = [f"## {heading} {{ #{where} }}", "", interface.text(language, "error_index.header")]
        by_message: dict[str, list] = {}
        for error in sorted(rows, key=lambda e: (e.entry.id, e.message)):
            by_message.setdefault(error.message, []).append(error.entry)
        for message, owners in sorted(by_message.items(), key=lambda item: (item[1][0].id, item[0])):
            first, *others = list(dict.fromkeys(owners))
            cell = _link(root, language, first, title=True)
            if others:
                cell += (f"; {interface.text(language, 'error_index.also')} "
                         + ", ".join(_link(root, language, e, title=False) for e in others))
            lines.append(f"| {inline_code(message.replace('|', chr(92) + '|'))} | {cell} |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def on_page_markdown(markdown, page, config, files):
    if MARKER not in markdown:
        return markdown
    root = Path(config["config_file_path"]).parent
    try:
        return markdown.replace(MARKER, render(root, page_language(page)))
    except (ValueError, PageError) as error:  # a clear message, not a traceback
        raise PluginError(f"{page.file.src_uri}: cannot build the error index: {error}") from None
