"""How far down an entry page its fix code sits, and how long the page is outside its folds.

    python tooling/page_layout.py SITE_DIR

Reads the built site's English entry pages and counts *rendered lines*: a heading is one line, a
paragraph or list item one line per 100 characters, a code block one line per line of code, a
table one line per row, a collapsed fold only its title. Prints, over the entries, the median and
maximum line at which the first fix code block starts (counted from the title), the entries that
show no code in their answer or fix, and the median number of lines outside any fold.
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag

WIDTH = 100
BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "tr", "summary", "blockquote"}
FIX_SECTIONS = {"fix", "short-answer", "the-fix", "answer"}


def lines(node: Tag) -> int:
    if node.name == "pre":
        return max(1, node.get_text().rstrip("\n").count("\n") + 1)
    if node.name == "tr":
        return 1
    text = " ".join(node.get_text(" ").split())
    return max(1, math.ceil(len(text) / WIDTH)) if text else 0


def walk(node: Tag, out: list, folded: bool = False) -> None:
    """Append (kind, lines, folded, section) for each rendered block, in order."""
    for child in node.children:
        if isinstance(child, NavigableString) or not isinstance(child, Tag):
            continue
        if child.name == "details":
            summary = child.find("summary")
            if summary is not None:
                out.append(("summary", 1, folded, None))
            open_ = child.has_attr("open")
            walk(child, out, folded=folded or not open_)
            continue
        if child.name in ("h2", "h3") and child.get("id"):
            out.append(("heading", lines(child), folded, child["id"]))
            continue
        if child.name in BLOCKS and child.name != "summary":
            if child.name in ("li", "blockquote") and child.find(["p", "pre", "ul", "ol"]):
                walk(child, out, folded)
                continue
            out.append((child.name, lines(child), folded, None))
            continue
        walk(child, out, folded)


def measure(page: Path) -> tuple[int | None, int]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article")
    for tag in article.select(".headerlink, .md-content__button, script, style"):
        tag.decompose()
    blocks: list = []
    walk(article, blocks)
    line, first_fix, section, outside = 0, None, None, 0
    started = False
    for kind, count, folded, anchor in blocks:
        if kind == "h1":
            started = True
        if not started:
            continue
        if kind == "heading":
            section = anchor
        if first_fix is None and kind == "pre" and not folded and (section is None or section in FIX_SECTIONS):
            first_fix = line
        if not folded:
            line += count + (1 if kind in ("p", "pre", "heading", "h1", "summary") else 0)
            outside += count
    return first_fix, outside


def main(site: str) -> int:
    from triton_faq import handbook

    site_dir = Path(site)
    translations = handbook.load_site(handbook.ROOT).translations
    results = {}
    for page in sorted(site_dir.glob("*/*/index.html")):
        if page.parts[-3] in (*translations, "notebooks", "downloads", "assets", "search"):
            continue
        html = page.read_text(encoding="utf-8")
        if "TP0" not in html or 'id="run-it"' not in html:
            continue
        results[page.parent.relative_to(site_dir).as_posix()] = measure(page)
    fixes = [f for f, _ in results.values() if f is not None]
    missing = sorted(name for name, (f, _) in results.items() if f is None)
    print(f"entries: {len(results)}")
    print(f"first fix code: median rendered line {statistics.median(fixes):.0f}, max {max(fixes)}")
    print(f"entries with no code in an answer or fix section: {len(missing)} {missing}")
    print(f"rendered lines outside folds: median {statistics.median(o for _, o in results.values()):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
