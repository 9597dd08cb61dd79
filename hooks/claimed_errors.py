"""Show, under the title of every entry with ``errors:`` in its front matter, the messages it answers.

Each message is a heading of its own: the site search weighs headings far above body text, so
pasting the message finds the entry that answers it.

The messages come from the front matter, which the error gate test checks against what the
entry's own code produces; showing them on the page makes a pasted error message findable.
"""

from __future__ import annotations

import re

from triton_faq.pages import inline_code, page_language

H1 = re.compile(r"^# .*$", re.MULTILINE)
H2 = re.compile(r"^## ", re.MULTILINE)
TITLE = {"en": "Error messages this entry answers", "zh": "本条目解答的报错信息"}
WHERE = {
    "en": {"compile": "compile time", "launch": "launch", "interpreter": "interpreter", "runtime": "CUDA runtime"},
    "zh": {"compile": "编译时", "launch": "启动时", "interpreter": "解释器", "runtime": "CUDA 运行时"},
}



def render(claimed: list[dict], language: str) -> str:
    """A section whose sub-headings are the messages: search ranks a pasted message by its heading."""
    lines = [f"## {TITLE[language]} {{ #error-messages }}", ""]
    for number, item in enumerate(claimed, 1):
        lines += [f"### {inline_code(item['message'])} {{ #error-{number} }}", "", WHERE[language][item["where"]], ""]
    return "\n".join(lines)


def insert(markdown: str, claimed: list[dict], language: str) -> str:
    """The section goes after the title and its opening lines, before the first ``##`` section."""
    title = H1.search(markdown)
    if title is None:
        raise ValueError("an entry with errors: needs an h1 title to put them under")
    first = H2.search(markdown, title.end())
    at = first.start() if first else len(markdown)
    return markdown[:at].rstrip("\n") + "\n\n" + render(claimed, language) + "\n" + markdown[at:]


def on_page_markdown(markdown, page, config, files):
    claimed = page.meta.get("errors")
    if not claimed:
        return markdown
    return insert(markdown, claimed, page_language(page))
