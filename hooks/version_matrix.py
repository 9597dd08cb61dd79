"""Add "On which Triton versions" to every entry page, from data/version-matrix.json.

Each of the entry's interpreter tests (one per claim) gets its verdict across the Triton
releases the matrix ran ("holds on 3.2–3.9", "changed in 3.5: ..."); claims that differ between
versions come first. The section goes right before "Run it yourself".

``<!-- version-matrix: checker -->`` on any page is replaced by the same verdicts for the checked
interpreter's own tests (``triton_checked/tests/test_checked.py``, recorded by ``triton-faq matrix --only checker``).
"""

from __future__ import annotations

import re
from pathlib import Path

from triton_faq import handbook, ui_text
from triton_faq.matrix import COMMAND, read, spans, verdict
from triton_faq.handbook.page import indented_like
from triton_faq.handbook.schema import RUN_IT, marker
from triton_faq.version_scopes import IMPORT, failing_only_where_unimported, unimported_releases
from triton_faq.version_scopes import notes as version_notes

CHECKER = marker("version-matrix")


def table(rows, language, notes=None):
    """The claims' rows; with ``notes`` ({test: the page's one-line explanation}), a column for them."""
    claim, result, why = (ui_text.text(language, f"version_matrix.{key}") for key in ("claim", "result", "why"))
    if not notes:
        lines = [f"| {claim} | {result} |", "| --- | --- |"]
        lines += [f"| `{name}` | {sentence} |" for name, sentence in rows]
        return "\n".join(lines)
    lines = [f"| {claim} | {result} | {why} |", "| --- | --- | --- |"]
    lines += [f"| `{name}` | {sentence} | {notes.get(name, '').replace('|', chr(92) + '|')} |" for name, sentence in rows]
    return "\n".join(lines)


def backend(recorded: str, language: str) -> str:
    """Where the matrix ran, in the page's language (the data records it in English)."""
    if recorded.startswith("interpreter"):
        return ui_text.text(language, "version_matrix.backend_interpreter")
    return recorded


def render(data: dict | None, entry_id: str, language: str, notes: dict | None = None) -> str:
    def text(key, **values):
        return ui_text.text(language, f"version_matrix.{key}", **values)

    out = [f"## {text('heading')}", ""]
    row = (data or {}).get("entries", {}).get(entry_id)
    if row is None:
        return "\n".join(out + [text("missing", command=COMMAND, id=entry_id), ""])
    versions, prov = data["versions"], data["provenance"]
    out.append(text("intro", first=versions[0], last=versions[-1], versions=", ".join(versions),
                    day=row.get("date", prov["date"]), command=f"{COMMAND} --only {entry_id}",
                    backend=backend(prov["backend"], language), python=prov["python"], torch=prov["torch"]))
    out.append("")
    rows = [(name, *verdict(by_version, versions, language)) for name, by_version in row["tests"].items()]
    notes = dict(notes or {})
    why_import = notes.pop(IMPORT, "")
    for name in failing_only_where_unimported(row, versions) - set(notes):  # they point to the line under the table
        notes[name] = text("import_row", versions=spans(versions, unimported_releases(row)))
    changed = [(name, sentence) for name, sentence, differs in rows if differs or name in notes]
    ran = [r for r in rows if r[1] != verdict({}, versions, language)[0]]
    if changed:
        out += [text("changed"), "", table(changed, language, notes), ""]
    else:
        out += [text("same", n=len(ran)), ""]
    for version_error in sorted(set(row.get("import_errors", {}).values())):
        failing = [v for v, e in row["import_errors"].items() if e == version_error]
        line = text("import", versions=", ".join(failing), error=version_error.replace("`", "'"))
        out += [text("import_why", line=line, why=why_import) if why_import else line, ""]
    out += [f'??? note "{text("all")}"', ""]
    out += ["    " + line for line in table([(name, sentence) for name, sentence, _ in rows], language).splitlines()]
    return "\n".join(out) + "\n\n"


def render_checker(data: dict | None, language: str) -> str:
    """The checked interpreter's tests across the Triton versions: the ones that differ, then all."""
    def text(key, **values):
        return ui_text.text(language, f"version_matrix.{key}", **values)

    row = (data or {}).get("checker")
    if row is None:
        return text("checker_missing", command=f"{COMMAND} --only checker") + "\n"
    versions, prov = data["versions"], data["provenance"]
    out = [text("checker_intro", first=versions[0], last=versions[-1], versions=", ".join(versions),
                day=row.get("date", prov["date"]), command=f"{COMMAND} --only checker", backend=backend(prov["backend"], language),
                python=prov["python"], torch=prov["torch"]), ""]
    rows = [(name, *verdict(outcomes, versions, language)) for name, outcomes in row["tests"].items()]
    changed = [(name, sentence) for name, sentence, differs in rows if differs]
    if changed:
        out += [text("changed"), "", table(changed, language), ""]
    else:
        out += [text("same", n=len(rows)), ""]
    out += [table([(name, sentence) for name, sentence, _ in rows], language)]
    return "\n".join(out) + "\n"


def on_page_markdown(markdown, page, config, files):
    if CHECKER.search(markdown):
        data = read(Path(config["config_file_path"]).parent)
        markdown = CHECKER.sub(lambda m: indented_like(m, render_checker(data, handbook.built(page, config).language)), markdown)
    entry_id = page.meta.get("id")
    if not entry_id or not RUN_IT.search(markdown):
        return markdown
    data = read(Path(config["config_file_path"]).parent)
    section = render(data, entry_id, handbook.built(page, config).language, version_notes(markdown))
    match = RUN_IT.search(markdown)
    return markdown[:match.start()] + section + markdown[match.start():]
