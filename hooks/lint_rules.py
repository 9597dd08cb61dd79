"""Fill ``<!-- lint-rules -->`` with the rules of ``triton-faq lint``, each linking its entry; and
say, on each entry page whose pitfall a rule finds, which rule (under its ``{ #run-it }`` heading).

The rules come from triton_faq/lint/rules/, their measured precision from data/lint/judged-*.tsv, their
one-line descriptions from triton_faq/ui_text.py
(``lint.rule.<ID>``), the entries' titles from their pages in the page's own language.
"""

from __future__ import annotations

import posixpath
from collections import Counter

from triton_faq import handbook
from triton_faq.handbook.schema import RUN_IT, marker
from triton_faq.lint import RULES
from triton_faq.lint.measured import STAGES, precision, table
from triton_faq.ui_text import text

MARKER = marker("lint-rules")
PRECISION = marker("lint-precision")


def render_precision(language: str) -> str:
    """The measured precision per rule and corpus, from data/lint/judged-*.tsv: true or true-but-harmless
    findings of all findings. Default rules only (the corpora were judged for those)."""
    measured = table()
    header = [text(language, "lint.precision.rule")] + [text(language, f"lint.precision.{c}.{s}") for c, s in STAGES]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def cell(counts) -> str:
        value = precision(counts) if counts else None
        if value is None:
            return text(language, "lint.precision.none")
        return text(language, "lint.precision.cell", ok=counts["true"] + counts["harmless"],
                    total=sum(counts.values()), percent=f"{100 * value:.0f}")

    totals = {stage: Counter() for stage in STAGES}
    for rule, by_stage in measured.items():
        for stage in STAGES:
            totals[stage].update(by_stage.get(stage, Counter()))
        status = "" if rule in RULES and RULES[rule].default else " " + text(language, "lint.precision.opt_in")
        rows.append(f"| [{rule}](#{rule.lower()}){status} | " + " | ".join(cell(by_stage.get(stage)) for stage in STAGES) + " |")
    rows.append(f"| {text(language, 'lint.precision.all')} | " + " | ".join(cell(totals[stage]) for stage in STAGES) + " |")
    return "\n".join(rows) + "\n"


def render(book: handbook.Handbook, language: str, page_path: str) -> str:
    here = posixpath.dirname(page_path)
    blocks = []
    for rule in RULES.values():
        title = book.title(rule.page, language)
        link = posixpath.relpath(f"{rule.page}.md", here or ".")
        status = text(language, "lint.default.on" if rule.default else "lint.default.off", rule=rule.id)
        blocks.append(f"### {rule.id} {{ #{rule.id.lower()} }}\n\n"
                      f"{text(language, f'lint.rule.{rule.id}')}\n\n"
                      f"- {text(language, 'lint.status')}: {status}\n"
                      f"- {text(language, 'lint.entry')}: [{rule.id} {title}]({link})\n")
    return "\n".join(blocks)


def rule_note(rule, language: str, page_path: str) -> str:
    """The line an entry page gets: which rule finds its pitfall, linking the rules page."""
    link = posixpath.relpath("lint.md", posixpath.dirname(page_path) or ".") + f"#{rule.id.lower()}"
    key = "lint.finds.on" if rule.default else "lint.finds.off"
    return text(language, key, rule=rule.id, link=link)


def on_page_markdown(markdown, page, config, files):
    site, language, name = handbook.built(page, config)
    page_path = f"{name}.md"  # relative to the language's folder
    rule = RULES.get(page.meta.get("id", ""))
    if rule is not None:
        heading = RUN_IT.search(markdown)
        if heading is not None:
            markdown = markdown[: heading.end()] + "\n\n" + rule_note(rule, language, page_path) + "\n" + markdown[heading.end():]
    if PRECISION.search(markdown):
        markdown = PRECISION.sub(lambda _: render_precision(language), markdown)
    if not MARKER.search(markdown):
        return markdown
    return MARKER.sub(lambda _: render(handbook.load(site.root), language, page_path), markdown)
