"""Fill ``<!-- lint-rules -->`` with the rules of ``triton-faq lint``, each linking its entry; and
say, on each entry page whose pitfall a rule finds, which rule (under its ``{ #run-it }`` heading).

The rules come from triton_faq/lint.py, their one-line descriptions from triton_faq/ui_text.py
(``lint.rule.<ID>``), the entries' titles from their pages in the page's own language.
"""

from __future__ import annotations

import posixpath

from triton_faq import handbook
from triton_faq.handbook.schema import RUN_IT, marker
from triton_faq.lint import RULES
from triton_faq.ui_text import text

MARKER = marker("lint-rules")


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
    if not MARKER.search(markdown):
        return markdown
    return MARKER.sub(lambda _: render(handbook.load(site.root), language, page_path), markdown)
