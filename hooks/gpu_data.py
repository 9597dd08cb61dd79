"""Fill ``<!-- gpu-data: NAME -->`` markers with the GPU evidence NAME from data/.

The data file is the one mirroring the page's ``snippet`` (data/<topic>/<question>.json); a page
that is not an entry names its file and the command that writes it in its front matter instead
(``data: data/checkers-compared.json`` and ``data_command:``, one command, or a mapping from
evidence names (``gpu-*`` patterns allowed) to the command that writes each). Each machine that
produced the evidence gets a table and a caption naming it, the versions and the date (a run
without a GPU, ``"gpu": "none"``, names its machine instead). A cell is a value, or a mapping
``{"en": ..., "zh": ...}`` shown in the page's language. A page whose data is missing shows a
visible "not yet measured" note instead.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

from triton_faq import handbook, ui_text
from triton_faq.handbook import data_for
from triton_faq.handbook.page import indented_like
from triton_faq.handbook.schema import marker

MARKER = marker("gpu-data")


def cell(value, language: str) -> str:
    if isinstance(value, bool):
        return ui_text.text(language, "gpu_data.yes" if value else "gpu_data.no")
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return ", ".join(cell(v, language) for v in value)
    if isinstance(value, dict):
        return cell(value[language], language)
    return str(value).replace("|", "\\|")


def render_table(evidence: dict, language: str) -> str:
    header = [column[language] for column in evidence["columns"]]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(cell(v, language) for v in row) + " |" for row in evidence["rows"]]
    return "\n".join(lines)


COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def render_chart(evidence: dict, language: str, width: int = 640, height: int = 320) -> str:
    """An inline SVG line chart of the table: y against x (x as evenly spaced categories), a line per series."""
    chart, columns = evidence["chart"], evidence["columns"]
    index = {column.get("key"): i for i, column in enumerate(columns)}
    x, y, series, mark = (index[chart[k]] if chart.get(k) else None for k in ("x", "y", "series", "mark"))
    xs = sorted({row[x] for row in evidence["rows"]})
    top = max(row[y] for row in evidence["rows"]) or 1
    left, right, upper, lower = 60, 120, 20, 40
    def px(value):
        return left + (xs.index(value) + 0.5) * (width - left - right) / len(xs)
    def py(value):
        return upper + (1 - value / top) * (height - upper - lower)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'class="gpu-chart" style="max-width:{width}px;width:100%">',
             f'<line x1="{left}" y1="{py(0)}" x2="{width - right}" y2="{py(0)}" stroke="currentColor"/>',
             f'<line x1="{left}" y1="{upper}" x2="{left}" y2="{py(0)}" stroke="currentColor"/>']
    for tick in (0, top / 2, top):
        parts.append(f'<text x="{left - 6}" y="{py(tick) + 4:.1f}" text-anchor="end" font-size="11" '
                     f'fill="currentColor">{cell(float(tick), language)}</text>')
    for value in xs:
        parts.append(f'<text x="{px(value):.1f}" y="{py(0) + 16:.1f}" text-anchor="middle" font-size="11" '
                     f'fill="currentColor">{cell(value, language)}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 4}" text-anchor="middle" font-size="12" '
                 f'fill="currentColor">{columns[x][language]}</text>')
    parts.append(f'<text x="14" y="{upper - 6}" font-size="12" fill="currentColor">{columns[y][language]}</text>')
    groups = sorted({row[series] for row in evidence["rows"]}) if series is not None else [None]
    for number, group in enumerate(groups):
        colour = COLOURS[number % len(COLOURS)]
        rows = sorted((r for r in evidence["rows"] if series is None or r[series] == group), key=lambda r: r[x])
        points = " ".join(f"{px(r[x]):.1f},{py(r[y]):.1f}" for r in rows)
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for r in rows:
            radius = 6 if mark is not None and r[mark] else 3
            fill = "none" if radius == 6 else colour
            parts.append(f'<circle cx="{px(r[x]):.1f}" cy="{py(r[y]):.1f}" r="{radius}" fill="{fill}" stroke="{colour}" stroke-width="2"/>')
        if series is not None:
            legend_y = upper + 16 * number
            parts.append(f'<rect x="{width - right + 10}" y="{legend_y}" width="10" height="10" fill="{colour}"/>')
            parts.append(f'<text x="{width - right + 26}" y="{legend_y + 9}" font-size="11" fill="currentColor">'
                         f'{columns[series][language]} {cell(group, language)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def command_for(name: str, command: str | dict | None) -> str | None:
    """The command that writes evidence ``name``: ``command`` itself, or its first pattern matching ``name``."""
    if not isinstance(command, dict):
        return command
    found = next((c for pattern, c in command.items() if fnmatch.fnmatchcase(name, pattern)), None)
    if found is None:
        raise ValueError(f"data_command names no command for the gpu-data {name!r}")
    return found


def render(name: str, data: dict | None, language: str, entry_id: str, command: str | dict | None = None) -> str:
    """The Markdown that replaces one marker: a captioned table per GPU, or a visible note."""
    command = command_for(name, command)
    measured = [(gpu, r) for gpu, r in sorted((data or {}).get("results", {}).items()) if name in r["evidence"]]
    if not measured:
        body = (ui_text.text(language, "gpu_data.missing_command", name=name, command=command) if command
                else ui_text.text(language, "gpu_data.missing", name=name, id=entry_id))
        return f'!!! warning "{ui_text.text(language, "gpu_data.missing_title")}"\n    {body}\n'
    blocks = []
    for _, result in measured:
        p = result["provenance"]
        key = "gpu_data.caption_cpu" if p.get("gpu") == "none" else "gpu_data.caption"
        caption = ui_text.text(language, key, day=p["date"][:10], **p)
        evidence = result["evidence"][name]
        chart = f"\n{render_chart(evidence, language)}\n" if "chart" in evidence else ""
        blocks.append(f"{render_table(evidence, language)}\n{chart}\n*{caption}*\n")
    return "\n".join(blocks)


def fill(markdown: str, data: dict | None, language: str, entry_id: str, command: str | dict | None = None) -> str:
    return MARKER.sub(lambda m: indented_like(m, render(m["argument"], data, language, entry_id, command)), markdown)


data_path = data_for


def on_page_markdown(markdown, page, config, files):
    if "gpu-data:" not in markdown:
        return markdown
    snippet, named = page.meta.get("snippet"), page.meta.get("data")
    if snippet is None and named is None:
        raise ValueError(f"{page.file.src_uri}: a gpu-data marker needs 'snippet' (or 'data') in the front matter")
    if named is not None and "data_command" not in page.meta:
        raise ValueError(f"{page.file.src_uri}: 'data' needs 'data_command', the command that writes it")
    root = Path(config["config_file_path"]).parent
    path = root / (named if named is not None else data_path(snippet))
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    language = handbook.built(page, config).language
    return fill(markdown, data, language, page.meta.get("id", ""), page.meta.get("data_command"))
