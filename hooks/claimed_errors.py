"""Show, under the title of every entry with ``errors:`` in its front matter, the messages it answers.

The messages come from the front matter, which the error gate test checks against what the
entry's own code produces; showing them on the page makes a pasted error message findable.
"""

from __future__ import annotations

import re

from triton_faq.pages import inline_code, page_language

H1 = re.compile(r"^# .*$", re.MULTILINE)
TITLE = {"en": "Error messages this entry answers", "zh": "本条目解答的报错信息"}
WHERE = {
    "en": {"compile": "compile time", "launch": "launch", "interpreter": "interpreter", "runtime": "CUDA runtime"},
    "zh": {"compile": "编译时", "launch": "启动时", "interpreter": "解释器", "runtime": "CUDA 运行时"},
}



def render(claimed: list[dict], language: str) -> str:
    lines = [f'!!! bug "{TITLE[language]}"']
    for item in claimed:
        lines.append(f"    - {inline_code(item['message'])} ({WHERE[language][item['where']]})")
    return "\n".join(lines) + "\n"


def insert(markdown: str, claimed: list[dict], language: str) -> str:
    title = H1.search(markdown)
    if title is None:
        raise ValueError("an entry with errors: needs an h1 title to put them under")
    return markdown[: title.end()] + "\n\n" + render(claimed, language) + markdown[title.end():]


def on_page_markdown(markdown, page, config, files):
    claimed = page.meta.get("errors")
    if not claimed:
        return markdown
    return insert(markdown, claimed, page_language(page))
