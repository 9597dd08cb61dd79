"""Take out the spaces between two Chinese (or other CJK) characters, which a browser shows as gaps.

A paragraph of Markdown is wrapped at some width, and every line break in it reaches the HTML as a
newline, which a browser draws as a space. Between two words of English that space is wanted;
between two CJK characters it is a stray gap a Chinese reader notices at once (CJK text has no
spaces between words). The same goes for a space typed next to bold text (``**溢出。** 在``) or
kept in a table label that a GPU run recorded (``中位数 毫秒``). So, in the HTML of every page,
whitespace whose nearest characters on both sides are CJK characters or CJK punctuation is
removed, whatever inline tags (a link, emphasis) stand between them. Code is left alone
(``<pre>``, ``<code>``, ``<script>``, ``<style>``), and so is every space next to a Latin letter or a
digit (``在 GPU 上``).

Done on the rendered HTML rather than on the Markdown sources: the sources stay wrapped like the
English ones (short lines, readable diffs), every page written later is covered without a rule to
remember, and text a hook generates into a page is covered too. The search index is built from
this HTML, so search results show the joined text. tests/test_cjk_spacing.py reads the built site.
"""

from __future__ import annotations

import re

CJK = (r"\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
       r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef")
"""CJK ideographs, kana, bopomofo, CJK and full-width punctuation (，。：（）etc.)."""
TAG = r"<(?!/?(?:pre|code|script|style)\b)[^<>]*>"
GAP = re.compile(rf"(?<=[{CJK}])((?:{TAG})*)\s+((?:{TAG})*)(?=[{CJK}])")
VERBATIM = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.DOTALL)
ANY_CJK = re.compile(rf"[{CJK}]")


def join_breaks(html: str) -> str:
    """``html`` without whitespace between two CJK characters, outside code."""
    if not ANY_CJK.search(html):  # nothing to join (most English pages, the notebooks): not scanned
        return html
    pieces, at = [], 0
    for verbatim in VERBATIM.finditer(html):
        pieces.append(GAP.sub(r"\1\2", html[at:verbatim.start()]))
        pieces.append(verbatim.group(0))
        at = verbatim.end()
    pieces.append(GAP.sub(r"\1\2", html[at:]))
    return "".join(pieces)


def on_page_content(html, page, config, files):
    return join_breaks(html)
