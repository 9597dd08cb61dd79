"""Add "On which Triton versions" to every entry page, from data/version-matrix.json.

Each of the entry's interpreter tests (one per claim) gets its verdict across the Triton
releases the matrix ran ("holds on 3.2–3.9", "changed in 3.5: ..."); claims that differ between
versions come first. The section goes right before "Run it yourself".
"""

from __future__ import annotations

from pathlib import Path

from triton_faq.matrix import COMMAND, read, verdict
from triton_faq.pages import RUN_IT, page_language

TEXT = {
    "en": {
        "heading": "On which Triton versions { #triton-versions }",
        "intro": "Every claim on this page that the interpreter can check was run against each Triton release "
                 "from {first} to {last} ({versions}) on {day} ({backend}; Python {python}, torch {torch}). "
                 "`{command}` runs it again.",
        "changed": "Claims that differ between versions:",
        "same": "All {n} of them give the same result on every version.",
        "all": "Every claim, one test each",
        "claim": "Claim (test)", "result": "Result",
        "import": "On {versions} the entry's code does not import: `{error}`",
        "missing": "This entry has not been run against other Triton versions yet: run `{command} --only {id}`.",
    },
    "zh": {
        "heading": "在哪些 Triton 版本上成立 { #triton-versions }",
        "intro": "本页中解释器能检查的每条说法，都在 Triton {first} 到 {last} 的每个版本（{versions}）上跑过，"
                 "日期 {day}（{backend}；Python {python}，torch {torch}）。重新运行：`{command}`。",
        "changed": "在不同版本上结果不同的说法：",
        "same": "这 {n} 条说法在每个版本上结果都相同。",
        "all": "全部说法（每条一个测试）",
        "claim": "说法（测试）", "result": "结果",
        "import": "在 {versions} 上本条目的代码无法导入：`{error}`",
        "missing": "本条目还没有在其他 Triton 版本上跑过：运行 `{command} --only {id}`。",
    },
}


def table(rows, language):
    text = TEXT[language]
    lines = [f"| {text['claim']} | {text['result']} |", "| --- | --- |"]
    lines += [f"| `{name}` | {sentence} |" for name, sentence in rows]
    return "\n".join(lines)


def render(data: dict | None, entry_id: str, language: str) -> str:
    text = TEXT[language]
    out = [f"## {text['heading']}", ""]
    row = (data or {}).get("entries", {}).get(entry_id)
    if row is None:
        return "\n".join(out + [text["missing"].format(command=COMMAND, id=entry_id), ""])
    versions, prov = data["versions"], data["provenance"]
    out.append(text["intro"].format(first=versions[0], last=versions[-1], versions=", ".join(versions),
                                    day=row.get("date", prov["date"]), command=f"{COMMAND} --only {entry_id}",
                                    backend=prov["backend"],
                                    python=prov["python"], torch=prov["torch"]))
    out.append("")
    rows = [(name, *verdict(outcomes, versions, language)) for name, outcomes in row["tests"].items()]
    changed = [(name, sentence) for name, sentence, differs in rows if differs]
    ran = [r for r in rows if r[1] != verdict({}, versions, language)[0]]
    if changed:
        out += [text["changed"], "", table(changed, language), ""]
    else:
        out += [text["same"].format(n=len(ran)), ""]
    for version_error in sorted(set(row.get("import_errors", {}).values())):
        failing = [v for v, e in row["import_errors"].items() if e == version_error]
        out += [text["import"].format(versions=", ".join(failing), error=version_error.replace("`", "'")), ""]
    out += [f'??? note "{text["all"]}"', ""]
    out += ["    " + line for line in table([(name, sentence) for name, sentence, _ in rows], language).splitlines()]
    return "\n".join(out) + "\n\n"


def on_page_markdown(markdown, page, config, files):
    entry_id = page.meta.get("id")
    if not entry_id or not RUN_IT.search(markdown):
        return markdown
    data = read(Path(config["config_file_path"]).parent)
    section = render(data, entry_id, page_language(page))
    match = RUN_IT.search(markdown)
    return markdown[:match.start()] + section + markdown[match.start():]
