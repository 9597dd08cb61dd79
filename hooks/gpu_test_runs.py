"""The GPU test runs of data/test-runs.json, on the site.

* ``<!-- gpu-test-runs -->`` (the home page): the last whole test run on each GPU.
* Every entry page: a line at the top of its ``{ #how-we-know }`` section saying where its tests
  ran: on the interpreter in CI, and on each GPU with that run's counts for the entry's proof and
  page. Derived from the record, never typed on a page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from triton_faq import interface
from triton_faq.entries import proof_for
from triton_faq.pages import page_language
from triton_faq.test_runs import PATH

MARKER = "<!-- gpu-test-runs -->"
COLUMNS = ("gpu", "date", "torch", "triton", "passed", "failed", "skipped")


def render(data: dict | None, language: str) -> str:
    results = sorted((data or {}).get("results", {}).items())
    if not results:
        return interface.text(language, "gpu_test_runs.none")
    header = [interface.text(language, f"gpu_test_runs.column.{column}") for column in COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    failures = []
    for gpu, run in results:
        p, c = run["provenance"], run["counts"]
        cells = [gpu, p["date"][:10], p["torch"], p["triton"], c["passed"], c["failed"] + c["error"], c["skipped"]]
        lines.append("| " + " | ".join(str(x) for x in cells) + " |")
        failures += [f"- {gpu}: `{nodeid}`" for nodeid in run.get("failures", [])]
    if failures:
        lines += ["", interface.text(language, "gpu_test_runs.failed"), "", *failures]
    return "\n".join(lines) + "\n"


HOW_WE_KNOW = re.compile(r"^## .*\{ *#how-we-know *\}[ \t]*$", re.MULTILINE)


def checked_line(data: dict | None, language: str, files: tuple[str, ...]) -> str:
    """Where an entry's tests ran, from the record; ``files`` are its proof and its English page."""
    line = interface.text(language, "gpu_test_runs.checked.ci")
    runs = sorted((data or {}).get("results", {}).items())
    counted = False
    for gpu, run in runs:
        per_file = run.get("files", {})
        counts = {k: sum(per_file.get(f, {}).get(k, 0) for f in files) for k in ("passed", "failed", "skipped")}
        if not any(counts.values()):
            continue
        counted = True
        p = run["provenance"]
        line += interface.text(language, "gpu_test_runs.checked.gpu", gpu=gpu, cuda=p["cuda"], torch=p["torch"],
                               triton=p["triton"], day=p["date"][:10], **counts)
    return line + ("" if counted else interface.text(language, "gpu_test_runs.checked.none"))


def on_page_markdown(markdown, page, config, files):
    root = Path(config["config_file_path"]).parent
    path = root / PATH
    if MARKER not in markdown and "id" not in page.meta:
        return markdown
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    language = page_language(page)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, render(data, language))
    heading = HOW_WE_KNOW.search(markdown)
    if "id" in page.meta and "snippet" in page.meta and heading:
        english = "docs/en/" + page.file.src_uri.split("/", 1)[1]
        line = checked_line(data, language, (proof_for(page.meta["snippet"]).as_posix(), english))
        markdown = markdown[: heading.end()] + "\n\n" + line + "\n" + markdown[heading.end():]
    return markdown
