"""No space between two CJK characters anywhere in the built site's text (code aside).

A browser draws any run of spaces or line breaks between two Chinese characters as a gap a Chinese
reader notices at once; hooks/cjk_spacing.py takes them out of every page's HTML, and this test reads
every built page's text, block by block as a browser shows it, for any that is left.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hooks"))

from cjk_spacing import CJK, join_breaks  # noqa: E402

VERBATIM = re.compile(r"<(pre|code|script|style|textarea|svg)\b.*?</\1>", re.DOTALL | re.IGNORECASE)
BLOCK = re.compile(r"</?(?:p|li|ul|ol|div|h[1-6]|td|th|tr|table|thead|tbody|details|summary|blockquote|dl|dt|dd|"
                   r"figure|figcaption|nav|header|footer|main|section|article|aside|form|label|input|button|br|hr|"
                   r"title|head|body|html|meta|link)\b[^>]*>", re.IGNORECASE)
TAG = re.compile(r"<[^>]+>")
GAP = re.compile(rf"[{CJK}]\s+[{CJK}]")


def gaps(html: str) -> list[str]:
    """The spaces between two CJK characters in ``html``'s text outside code, each with some context."""
    text = TAG.sub("", BLOCK.sub("\x00", VERBATIM.sub("\x00", html)))  # a block boundary is no space
    return [repr(text[max(0, m.start() - 12):m.end() + 12].replace("\x00", "|")) for m in GAP.finditer(text)]


def test_no_space_between_cjk_characters_in_any_built_page(built_site: Path):
    found = []
    for page in sorted(built_site.rglob("*.html")):
        for gap in gaps(page.read_text(encoding="utf-8")):
            found.append(f"{page.relative_to(built_site)}: {gap}")
    assert not found, f"{len(found)} gaps:\n" + "\n".join(found[:40])


def test_a_wrapped_chinese_paragraph_is_joined_and_code_and_latin_words_are_not():
    html = ('<p>第一行\n  第二行，<a href="x">链接</a>\n<strong>加粗。</strong> 然后\nEnglish\nwords 在 GPU 上</p>'
            '<pre><code>中\n文</code></pre><p><code>a\nb</code>\n中</p>')
    assert join_breaks(html) == ('<p>第一行第二行，<a href="x">链接</a><strong>加粗。</strong>然后\nEnglish\nwords 在 GPU 上'
                                 '</p><pre><code>中\n文</code></pre><p><code>a\nb</code>\n中</p>')
    assert gaps(join_breaks(html)) == []
    assert gaps("<p>中文 中文</p>") == ["'|中文 中文|'"]  # | marks a block's edge
