"""What a reader sees first, in Debian's chromium at 1280x800 on the built site, on every entry page in
every language: the whole fix in the first screen, and no stray space inside Chinese text.

One browser page visits every entry page with JavaScript off (the layout is the stylesheet's; the
theme's scripts add the copy button and search, neither of which moves the text), so the visits
take a few seconds in all.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from triton_faq import handbook
from triton_faq.handbook.schema import FIRST_SCREEN

pytestmark = pytest.mark.slow  # every page in a browser, both languages: where CI is set (.ci/run)

BOOK = handbook.load()
VIEWS = [view for entry in BOOK.entries for view in entry.views()]

MEASURE = """() => {
    const fix = document.querySelector("article .tp-fix");
    if (!fix) return null;
    const code = fix.querySelector("pre > code");
    const box = fix.getBoundingClientRect();
    return {top: box.top, bottom: box.bottom, overflow: code.scrollWidth - code.clientWidth,
            lines: code.textContent.replace(/\\n$/, "").split("\\n").length};
}"""


def has_font_for(language: str) -> bool:
    """Whether fontconfig (which chromium draws with) has a font for ``language``: without one, Chinese
    text is drawn as narrow boxes and the Chinese pages would measure shorter than a reader sees them."""
    if not shutil.which("fc-list"):
        return False
    return bool(subprocess.run(["fc-list", f":lang={language}"], capture_output=True, text=True).stdout.strip())


LANGUAGES = BOOK.site.languages


@pytest.fixture(scope="module")
def pages_at_first_screen_size(site, browser):
    width, height = FIRST_SCREEN
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=False)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def first_screens(site, pages_at_first_screen_size):
    """``first_screens(language)``: ``[(view, measurements)]`` of the fix block of every entry page."""
    measured = {}

    def measure(language):
        if not has_font_for(language):
            message = (f"a font for '{language}' is needed to measure its pages (for Chinese: "
                       "apt-get install fonts-wqy-microhei)")
            if os.environ.get("CI"):
                pytest.fail(message)  # CI installs it (.ci/run)
            pytest.skip(message)
        if language not in measured:
            page = pages_at_first_screen_size
            measured[language] = []
            for view in (view for view in VIEWS if view.language == language):
                page.goto(site + view.url_path, wait_until="load")
                measured[language].append((view, page.evaluate(MEASURE)))
        return measured[language]

    return measure


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_page_shows_its_whole_fix_in_the_first_screen(first_screens, language):
    width, height = FIRST_SCREEN
    problems = []
    for view, found in first_screens(language):
        if found is None:
            problems.append(f"{view.url_path}: no fix block (.tp-fix) under the answer")
        elif found["bottom"] > height:
            problems.append(f"{view.url_path}: the fix ends {found['bottom']:.0f} px down, below the first {height} px")
        elif found["overflow"] > 0:
            problems.append(f"{view.url_path}: the fix runs {found['overflow']} px past the right edge of its block")
    assert not problems, f"at {width}x{height}:\n" + "\n".join(problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_fix_block_shows_the_fix_section_line_for_line(first_screens, language):
    """The marked block is the fix itself: as many lines as the page's first top-level fence includes."""
    from triton_faq.handbook.page import snippet_section

    wrong = []
    for view, found in first_screens(language):
        fence = next(f for f in handbook.parse(view.path).fences if not f.indent)
        code = "\n\n".join(snippet_section(BOOK.root / path, section) for path, section in fence.includes)
        if found is not None and found["lines"] != code.count("\n") + 1:
            wrong.append(f"{view.url_path}: {found['lines']} lines shown, {code.count(chr(10)) + 1} in the fence")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_check_estimate_agrees_with_the_browser(first_screens, language):
    """triton-faq check's estimate of where the fix ends stays within 70 px (a title line and an answer
    line) of the real bottom edge."""
    from triton_faq import first_screen

    off = []
    for view, found in first_screens(language):
        estimate, _ = first_screen.fix_bottom(handbook.parse(view.path), BOOK.root)
        if found is not None and estimate is not None and abs(estimate - found["bottom"]) > 70:
            off.append(f"{view.url_path}: estimated {estimate:.0f} px, measured {found['bottom']:.0f} px")
    assert not off, "\n".join(off)
