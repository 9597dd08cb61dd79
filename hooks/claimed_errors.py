"""List, in the Symptom section of every entry with ``errors:`` in its front matter, the messages it answers.

A compact list (not headings above the answer): the message verbatim, and where it appears. The
messages come from the front matter, which the error gate test checks against what the entry's
own code produces.
"""

from __future__ import annotations

import re

from triton_faq import handbook, ui_text
from triton_faq.handbook.page import inline_code
from triton_faq.handbook.schema import section_heading

SYMPTOM = section_heading("symptom")
H2 = re.compile(r"^## ", re.MULTILINE)


def render(claimed: list[dict], language: str) -> str:
    lines = [f"**{ui_text.text(language, 'claimed_errors.title')}**", ""]
    for number, item in enumerate(claimed, 1):  # #error-N: where the search result for the message leads
        where = ui_text.text(language, "claimed_errors.in_parentheses",
                               where=ui_text.text(language, f"claimed_errors.where.{item['where']}"))
        lines.append(f'- <a id="error-{number}"></a>{inline_code(item["message"])}{where}')
    return "\n".join(lines) + "\n"


def insert(markdown: str, claimed: list[dict], language: str) -> str:
    """The list goes at the end of the ``{ #symptom }`` section."""
    symptom = SYMPTOM.search(markdown)
    if symptom is None:
        raise ValueError("an entry with errors: needs a '## ... { #symptom }' section to list them in")
    following = H2.search(markdown, symptom.end())
    at = following.start() if following else len(markdown)
    return markdown[:at].rstrip("\n") + "\n\n" + render(claimed, language) + "\n" + markdown[at:]


def on_page_markdown(markdown, page, config, files):
    claimed = page.meta.get("errors")
    if not claimed:
        return markdown
    return insert(markdown, claimed, handbook.built(page, config).language)
