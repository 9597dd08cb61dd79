"""The first screen of an entry page: its answer and its fix, seen without scrolling.

A reader who lands on an entry sees, in a browser window of :data:`schema.FIRST_SCREEN` (1280 by
800 pixels), the title, the answer, a fold with the lines the reader's file opens with, and the fix
code: the ``fix`` section of the reader's file, alone in its block, its long lines wrapped
(hooks/first_screen.py). ``triton-faq check`` holds every entry page to that, from the Markdown:

* between the title and the fix there is only prose and at most one fold;
* the first code block outside a fold includes only ``fix`` sections;
* the estimated bottom of that block is inside the window.

The estimate adds up the rendered heights of the theme at that size (:data:`LAYOUT`, measured in
chromium on the built site): a title or answer line per :data:`LAYOUT` width of text, a code row per
line of the fix, and more rows where a long line wraps. tests/test_first_screen_browser.py measures
the real thing on every page, in both languages; this is the check's fast stand-in for it.
"""

from __future__ import annotations

import math
import re
import textwrap
import unicodedata
from pathlib import Path

from .handbook.page import snippet_section
from .handbook.schema import FIRST_SCREEN

LAYOUT = {  # pixels, chromium at 1280x800 with the site's theme and stylesheet (measured on the built site)
    "top": 98,  # the title's top edge (under the header bar)
    "column": 688 - 15,  # the text column, less what breaking lines between words leaves unused
    "title_line": 41.6, "title_after": 40, "title_em": 32,  # the title: line height, margin below, font size
    "prose_line": 25.6, "prose_after": 16, "prose_em": 16,  # an answer paragraph
    "latin": 0.46, "wide": 1.0, "code": 0.51, "code_padding": 0.8,  # widths in em: a letter, a CJK character,
    # a character of inline code, and the padding around it
    "fold": 44.9,  # a closed fold: its title bar and the space under it
    "block_padding": 21, "code_row": 19.04, "code_columns": 80,  # the fix block
    "hanging": 4,  # a wrapped part starts this many characters right of its line's indentation
}
CODE_SPAN = re.compile(r"`+([^`]*)`+")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
EMPHASIS = re.compile(r"\*\*|(?<!\w)[*_]|[*_](?!\w)")


def text_width(markdown: str, em: float) -> float:
    """The rendered width of one paragraph of Markdown, in pixels, at font size ``em``."""
    width = 0.0
    plain = LINK.sub(r"\1", markdown)
    at = 0
    for span in CODE_SPAN.finditer(plain):
        width += _prose_width(EMPHASIS.sub("", plain[at:span.start()]), em)
        width += (len(span.group(1)) * LAYOUT["code"] + LAYOUT["code_padding"]) * em
        at = span.end()
    return width + _prose_width(EMPHASIS.sub("", plain[at:]), em)


def _prose_width(text: str, em: float) -> float:
    return sum((LAYOUT["wide"] if unicodedata.east_asian_width(c) in "WF" else LAYOUT["latin"]) * em
               for c in " ".join(text.split()))


def code_rows(code: str) -> int:
    """Rows a block of code takes at the fix block's width, its long lines wrapped with a hanging indent."""
    columns, rows = LAYOUT["code_columns"], 0
    for line in code.split("\n"):
        if len(line) <= columns:
            rows += 1
            continue
        indent = " " * (len(line) - len(line.lstrip(" ")) + LAYOUT["hanging"])
        rows += len(textwrap.wrap(line, columns, subsequent_indent=indent, break_on_hyphens=True,
                                  drop_whitespace=True)) or 1
    return rows


def fix_bottom(page, root: Path) -> tuple[float | None, str | None]:
    """The estimated bottom edge of the page's fix block, in pixels; or None and what is wrong."""
    body = page.text.split("\n")
    title = next((line for line, level, _, _ in page.headings if level == 1), None)
    top_level = [fence for fence in page.fences if not fence.indent]
    if title is None or not top_level:
        return None, None  # the shape check names a missing title or fix
    fix = top_level[0]
    if not fix.includes or any(section != "fix" for _, section in fix.includes):
        return None, ("the first code block outside a fold shows the fix alone: include only the 'fix' "
                      "section (the lines the reader's file opens with go in a fold above it)")
    height = LAYOUT["top"]
    heading = body[title - 1].lstrip("#").strip()
    height += math.ceil(text_width(heading, LAYOUT["title_em"]) / LAYOUT["column"]) * LAYOUT["title_line"]
    height += LAYOUT["title_after"]
    folds, paragraph = 0, []
    for line in body[title:fix.line - 1] + [""]:
        if line.startswith(("???", "!!!")):
            folds += 1
        elif line.startswith("    ") and folds:
            continue
        elif line.strip():
            paragraph.append(line.strip())
            continue
        if paragraph:
            lines = math.ceil(text_width(" ".join(paragraph), LAYOUT["prose_em"]) / LAYOUT["column"])
            height += lines * LAYOUT["prose_line"] + LAYOUT["prose_after"]
            paragraph = []
    if folds > 1:
        return None, "at most one fold between the answer and the fix (it holds the lines before the fix)"
    height += folds * LAYOUT["fold"]
    code = "\n\n".join(snippet_section(root / path, "fix") or "" for path, _ in fix.includes)
    return height + LAYOUT["block_padding"] + code_rows(code) * LAYOUT["code_row"], None


def problems(page, relative: Path, root: Path) -> list[str]:
    """What keeps the page's answer and fix out of the first screen (an empty list: nothing)."""
    fix = next((fence for fence in page.fences if not fence.indent), None)
    bottom, wrong = fix_bottom(page, root)
    if wrong:
        return [f"{relative}:{fix.line}: {wrong}"]
    width, height = FIRST_SCREEN
    if bottom is not None and bottom > height:
        return [f"{relative}:{fix.line}: the fix ends about {bottom:.0f} px down a {width}x{height} window, "
                "below the first screen: shorten the answer, or keep only the lines that change in the 'fix' "
                "section (the rest in a section shown in a block right after it)"]
    return []
