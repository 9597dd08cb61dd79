"""Mark the fix under each entry page's answer, so its long lines wrap instead of scrolling sideways.

An entry page shows its answer, a folded block with the lines the reader's file opens with, and
then the fix (``triton-faq check`` holds every entry page to that order and size). The first code
block outside a fold is the fix: it gets the class ``tp-fix``, and each of its lines a block of its
own whose wrapped part is indented under the line's code (docs/assets/handbook.css), so all the
lines that change are in the first screen and none runs past the right edge.
"""

from __future__ import annotations

import html as html_module
import re

from triton_faq import handbook

FIX_CLASS = "tp-fix"
HANGING = 4  # how much further than its line's own indentation a wrapped part starts, in characters
TAGS = re.compile(r'<details\b|</details>|<div class="(?P<classes>[^"]*\bhighlight\b[^"]*)"')
CODE = re.compile(r"<code>(?P<lines>.*?)</code>", re.DOTALL)
LINE = re.compile(r'(?P<anchor><a id="__codelineno-[^"]*"[^>]*></a>)?(?P<code>[^\n]*)\n')
MARKUP = re.compile(r"<[^>]+>")


def _line(match: re.Match) -> str:
    text = html_module.unescape(MARKUP.sub("", match["code"]))
    indent = len(text) - len(text.lstrip(" ")) + HANGING
    return (f'{match["anchor"] or ""}<span class="tp-line" style="padding-left:{indent}ch;text-indent:-{indent}ch">'
            f'{match["code"]}\n</span>')


def mark_fix(html: str) -> str:
    """``html`` with the first code block outside any ``<details>`` fold marked as the fix."""
    depth = 0
    for tag in TAGS.finditer(html):
        if tag.group(0).startswith("<details"):
            depth += 1
        elif tag.group(0) == "</details>":
            depth -= 1
        elif depth == 0:
            start, end = tag.span("classes")
            code = CODE.search(html, end)
            if code is None:
                return html
            lines = LINE.sub(_line, code["lines"] if code["lines"].endswith("\n") else code["lines"] + "\n")
            return (html[:start] + tag["classes"] + f" {FIX_CLASS}" + html[end:code.start("lines")] + lines
                    + html[code.end("lines"):])
    return html


def on_page_content(html, page, config, files):
    where = handbook.built(page, config)
    if handbook.load(where.site.root).find(where.name) is None:
        return html  # not an entry page
    return mark_fix(html)
