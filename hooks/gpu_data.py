"""Fill ``<!-- gpu-data: NAME -->`` markers with the GPU evidence NAME from data/.

The data file is the one mirroring the page's ``snippet`` (data/<topic>/<question>.json). Each
GPU that produced the evidence gets a table and a caption naming the GPU, versions and date. A
page whose data is missing shows a visible "not yet measured" note instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MARKER = re.compile(r"<!--\s*gpu-data:\s*(?P<name>[A-Za-z0-9_-]+)\s*-->")

TEXT = {
    "en": {
        "caption": "Measured on {gpu} (driver {driver}, CUDA {cuda}, torch {torch}, Triton {triton}) on {day} by `{command}`.",
        "missing_title": "Not yet measured",
        "missing": "No GPU data for `{name}` yet. On a machine with an NVIDIA GPU, run `make bench ONLY={id}` to generate it.",
        True: "yes",
        False: "no",
    },
    "zh": {
        "caption": "测量于 {gpu}（驱动 {driver}，CUDA {cuda}，torch {torch}，Triton {triton}），{day}，命令 `{command}`。",
        "missing_title": "尚未测量",
        "missing": "`{name}` 还没有 GPU 数据。在有 NVIDIA GPU 的机器上运行 `make bench ONLY={id}` 即可生成。",
        True: "是",
        False: "否",
    },
}


def cell(value, language: str) -> str:
    if isinstance(value, bool):
        return TEXT[language][value]
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return ", ".join(cell(v, language) for v in value)
    return str(value)


def render_table(evidence: dict, language: str) -> str:
    header = [column[language] for column in evidence["columns"]]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(cell(v, language) for v in row) + " |" for row in evidence["rows"]]
    return "\n".join(lines)


def render(name: str, data: dict | None, language: str, entry_id: str) -> str:
    """The Markdown that replaces one marker: a captioned table per GPU, or a visible note."""
    text = TEXT[language]
    measured = [(gpu, r) for gpu, r in sorted((data or {}).get("results", {}).items()) if name in r["evidence"]]
    if not measured:
        body = text["missing"].format(name=name, id=entry_id)
        return f'!!! warning "{text["missing_title"]}"\n    {body}\n'
    blocks = []
    for _, result in measured:
        p = result["provenance"]
        caption = text["caption"].format(day=p["date"][:10], **p)
        blocks.append(f"{render_table(result['evidence'][name], language)}\n\n*{caption}*\n")
    return "\n".join(blocks)


def fill(markdown: str, data: dict | None, language: str, entry_id: str) -> str:
    return MARKER.sub(lambda m: render(m["name"], data, language, entry_id), markdown)


def data_path(snippet: str) -> Path:
    parts = Path(snippet).parts
    if len(parts) < 2 or parts[0] != "snippets":
        raise ValueError(f"front matter snippet {snippet!r} is not under snippets/")
    return Path("data", *parts[1:]).with_suffix(".json")


def on_page_markdown(markdown, page, config, files):
    if "gpu-data:" not in markdown:
        return markdown
    snippet = page.meta.get("snippet")
    if snippet is None:
        raise ValueError(f"{page.file.src_uri}: a gpu-data marker needs 'snippet' in the front matter")
    root = Path(config["config_file_path"]).parent
    path = root / data_path(snippet)
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    language = page.file.src_uri.split("/", 1)[0]
    return fill(markdown, data, language, page.meta.get("id", ""))
