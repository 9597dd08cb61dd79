"""Fill ``<!-- gpu-test-runs -->`` with the last whole test run on each GPU, from data/test-runs.json."""

from __future__ import annotations

import json
from pathlib import Path

from triton_faq.pages import page_language
from triton_faq.test_runs import PATH

MARKER = "<!-- gpu-test-runs -->"

HEADER = {
    "en": ["GPU", "date", "torch", "Triton", "passed", "failed", "skipped"],
    "zh": ["GPU", "日期", "torch", "Triton", "通过", "失败", "跳过"],
}
FAILED = {"en": "Failed in that run:", "zh": "那次运行中失败的测试："}
NONE = {
    "en": '!!! warning "Not yet verified on a GPU"\n    Run `pytest --record-gpu-run` on a machine with an NVIDIA GPU.\n',
    "zh": '!!! warning "尚未在 GPU 上验证"\n    在有 NVIDIA GPU 的机器上运行 `pytest --record-gpu-run`。\n',
}


def render(data: dict | None, language: str) -> str:
    results = sorted((data or {}).get("results", {}).items())
    if not results:
        return NONE[language]
    lines = ["| " + " | ".join(HEADER[language]) + " |", "|" + " --- |" * len(HEADER[language])]
    failures = []
    for gpu, run in results:
        p, c = run["provenance"], run["counts"]
        cells = [gpu, p["date"][:10], p["torch"], p["triton"], c["passed"], c["failed"] + c["error"], c["skipped"]]
        lines.append("| " + " | ".join(str(x) for x in cells) + " |")
        failures += [f"- {gpu}: `{nodeid}`" for nodeid in run.get("failures", [])]
    if failures:
        lines += ["", FAILED[language], "", *failures]
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown, page, config, files):
    if MARKER not in markdown:
        return markdown
    path = Path(config["config_file_path"]).parent / PATH
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return markdown.replace(MARKER, render(data, page_language(page)))
