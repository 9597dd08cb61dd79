"""The GPU test runs of data/test-runs.json, on the site.

* ``<!-- gpu-test-runs -->`` (the home page): the last whole test run on each GPU.
* Every entry page: a line at the top of its ``{ #how-we-know }`` section saying where its tests
  ran: on the interpreter in CI, and on each GPU with that run's counts for the entry's proof and
  page. Derived from the record, never typed on a page.
"""

from __future__ import annotations

import json

from triton_faq import handbook, ui_text
from triton_faq.gpu_runs import PATH
from triton_faq.handbook import proof_for
from triton_faq.handbook.schema import marker, section_heading

MARKER = marker("gpu-test-runs")
COLUMNS = ("gpu", "date", "torch", "triton", "passed", "failed", "skipped")


def render(data: dict | None, language: str) -> str:
    results = sorted((data or {}).get("results", {}).items())
    if not results:
        return ui_text.text(language, "gpu_test_runs.none")
    header = [ui_text.text(language, f"gpu_test_runs.column.{column}") for column in COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    failures = []
    for gpu, run in results:
        p, c = run["provenance"], run["counts"]
        cells = [gpu, p["date"][:10], p["torch"], p["triton"], c["passed"], c["failed"] + c["error"], c["skipped"]]
        lines.append("| " + " | ".join(str(x) for x in cells) + " |")
        failures += [f"- {gpu}: `{nodeid}`" for nodeid in run.get("failures", [])]
    if failures:
        lines += ["", ui_text.text(language, "gpu_test_runs.failed"), "", *failures]
    return "\n".join(lines) + "\n"


HOW_WE_KNOW = section_heading("how-we-know")


def checked_line(data: dict | None, language: str, files: tuple[str, ...]) -> str:
    """Where an entry's tests ran, from the record; ``files`` are its proof and its page in the default language."""
    line = ui_text.text(language, "gpu_test_runs.checked.ci")
    runs = sorted((data or {}).get("results", {}).items())
    counted = False
    for gpu, run in runs:
        per_file = run.get("files", {})
        counts = {k: sum(per_file.get(f, {}).get(k, 0) for f in files) for k in ("passed", "failed", "skipped")}
        if not any(counts.values()):
            continue
        counted = True
        p = run["provenance"]
        line += ui_text.text(language, "gpu_test_runs.checked.gpu", gpu=gpu, cuda=p["cuda"], torch=p["torch"],
                               triton=p["triton"], day=p["date"][:10], **counts)
    return line + ("" if counted else ui_text.text(language, "gpu_test_runs.checked.none"))


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown) and "id" not in page.meta:
        return markdown
    site, language, name = handbook.built(page, config)
    path = site.root / PATH
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    if MARKER.search(markdown):
        markdown = MARKER.sub(lambda _: render(data, language), markdown)
    heading = HOW_WE_KNOW.search(markdown)
    if "id" in page.meta and "snippet" in page.meta and heading:
        original = site.page_file(name, site.default).relative_to(site.root).as_posix()
        line = checked_line(data, language, (proof_for(page.meta["snippet"]).as_posix(), original))
        markdown = markdown[: heading.end()] + "\n\n" + line + "\n" + markdown[heading.end():]
    return markdown
