"""Fill ``<!-- checked-report: FUNCTION -->`` with what ``triton_faq.checked()`` reports.

FUNCTION is a function of the entry's proof (tests/entries/<topic>/test_<question>.py); it is run when the site is built (see
triton_faq/reports.py), so the report on the page is always the checker's real output.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from triton_faq import handbook, recorded, ui_text
from triton_faq.checked_reports import ReportError, report
from triton_faq.handbook import proof_for
from triton_faq.handbook.page import indented_like
from triton_faq.handbook.schema import marker

MARKER = marker("checked-report")


def on_page_markdown(markdown, page, config, files):
    if not MARKER.search(markdown):
        return markdown
    snippet = page.meta.get("snippet")
    if not snippet:
        raise PluginError(f"{page.file.src_uri}: a checked-report marker needs `snippet:` in the front matter")
    built = handbook.built(page, config)
    language, root = built.language, built.site.root

    def render(match):
        name = match["argument"]
        proof = proof_for(snippet).as_posix()
        try:
            text = recorded.checked_report(root, proof, name, (snippet,))  # recorded: no torch needed
            if text is None:
                text = report(proof, name, root, uses=(snippet,))
        except ReportError as error:
            raise PluginError(f"{page.file.src_uri}: {error}") from None
        fence = "````" if "```" in text else "```"
        caption = ui_text.text(language, "checked_report.caption", name=name, snippet=proof)
        return f"{fence}text\n{text.rstrip()}\n{fence}\n\n<small>{caption}</small>"

    return MARKER.sub(lambda match: indented_like(match, render(match)), markdown)
