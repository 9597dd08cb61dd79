"""The copy button of a ``>>>`` session copies code that runs: no prompts, no outputs (hooks/copy_code.py)."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hooks"))

from copy_code import session_source  # noqa: E402

from triton_faq import handbook  # noqa: E402


def test_a_session_copies_its_source_lines_only():
    session = (">>> for i in range(2):\n...     print(i)\n0\n1\n>>> x = [\n...     1]\n>>> x\n[1]\n"
               "... not a continuation: output after output\n")
    assert session_source(session) == "for i in range(2):\n    print(i)\nx = [\n    1]\nx\n"
    assert session_source("import os\n>>> not a session\n") is None


def test_every_session_on_an_entry_page_copies_without_prompts(built_site: Path):
    entry = handbook.load().find("TP001")
    page = (built_site / entry.view().url_path / "index.html").read_text(encoding="utf-8")
    copies = [html.unescape(c) for c in re.findall(r'<div class="[^"]*highlight[^"]*"[^>]*data-copy="([^"]*)"', page)]
    sessions = page.count("&gt;&gt;&gt;")
    assert copies and sessions
    assert all(">>>" not in copy and copy.strip() for copy in copies)
    assert "row_max(row_max_fixed, x).tolist()\n" in copies[0] and "[-1.0, -101.0" not in copies[0]
