"""The copy button of a ``>>>`` session copies the code only: no prompts, no printed output.

A page's sessions show what a run prints (``>>> row_max(...)`` then ``[0.0, ...]``), and the theme's
copy button copies a block's text as shown, so a reader who pastes it gets prompts and outputs that
Python refuses. The theme copies an element's ``data-copy`` attribute instead of its text when it has
one: every block whose first line is a ``>>>`` prompt gets one, with the session's source lines, read
the way :mod:`doctest` reads them (a ``>>>`` line and the ``...`` lines right after it; every other
line is output).
"""

from __future__ import annotations

import html
import re

BLOCK = re.compile(r'<div class="(?P<classes>[^"]*\bhighlight\b[^"]*)"(?P<rest>[^>]*)>(?P<body>.*?</code></pre>)', re.DOTALL)
CODE = re.compile(r"<code>(?P<code>.*?)</code></pre>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")
PROMPT = re.compile(r"^>>>(?: |$)")
CONTINUATION = re.compile(r"^\.\.\.(?: |$)")


def session_source(text: str) -> str | None:
    """The code of a ``>>>`` session, prompts taken off and outputs left out; None if ``text`` is not one."""
    lines = text.split("\n")
    if not lines or not PROMPT.match(lines[0]):
        return None
    source, in_source = [], False
    for line in lines:
        if PROMPT.match(line):
            source.append(line[4:])
            in_source = True
        elif in_source and CONTINUATION.match(line):
            source.append(line[4:])
        else:
            in_source = False
    return "\n".join(source).rstrip("\n") + "\n"


def _copy_only_code(block: re.Match) -> str:
    code = CODE.search(block["body"])
    if code is None or "data-copy=" in block["rest"]:
        return block.group(0)
    source = session_source(html.unescape(TAG.sub("", code["code"])))
    if source is None:
        return block.group(0)
    return (f'<div class="{block["classes"]}"{block["rest"]} data-copy="{html.escape(source, quote=True)}">'
            f'{block["body"]}')


def copy_only_code(page_html: str) -> str:
    return BLOCK.sub(_copy_only_code, page_html)


def on_page_content(html_, page, config, files):
    return copy_only_code(html_)
