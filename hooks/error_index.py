"""Fill ``<!-- error-index -->`` with every error message the entries answer, grouped by where it appears."""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from triton_faq import errors
from triton_faq.pages import PageError, inline_code, page_language, parse

MARKER = "<!-- error-index -->"

GROUPS = {
    "en": {"compile": "At compile time", "launch": "At launch", "interpreter": "In the interpreter",
           "runtime": "From the CUDA runtime"},
    "zh": {"compile": "编译时", "launch": "启动（launch）时", "interpreter": "解释器里", "runtime": "CUDA 运行时"},
}
HEADER = {"en": "| Message | Entry |\n| --- | --- |", "zh": "| 报错信息 | 条目 |\n| --- | --- |"}


def render(root: Path, language: str) -> str:
    claimed, problems = errors.load(root)
    if problems:
        raise ValueError("; ".join(problems))
    blocks = []
    for where, heading in GROUPS[language].items():
        rows = [error for error in claimed if error.where == where]
        if not rows:
            continue
        lines = [f"## {heading} {{ #{where} }}", "", HEADER[language]]
        for error in sorted(rows, key=lambda e: (e.entry.id, e.message)):
            relative = error.entry.page.relative_to("docs/en")
            title = parse(root / "docs" / language / relative).front_matter["title"]
            message = error.message.replace("|", "\\|")
            lines.append(f"| {inline_code(message)} | `{error.entry.id}` [{title}]({relative.as_posix()}) |")
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
