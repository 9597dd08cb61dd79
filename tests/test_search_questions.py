"""Everyday questions (search_questions.json), typed into the built site's search box in chromium:
at least 90% of each language's find an answering entry in the top three.

Its own file, so pytest-xdist runs it beside test_search_browser.py; the browser fixtures are in
tests/conftest.py.
"""

import json

import pytest

from conftest import ROOT

QUESTIONS = json.loads((ROOT / "tests" / "search_questions.json").read_text(encoding="utf-8"))
QUESTIONS_FOUND = 0.9  # the share of each language's questions whose entry must be in the top three


@pytest.mark.parametrize("language", ["en", "zh"])
def test_everyday_questions_find_their_entry_in_the_top_three(search_page, search_for, site, language):
    """Questions typed as one asks a colleague: at least 90% find an answering entry in the top three."""
    prefix = site + ("zh/" if language == "zh" else "")
    questions = QUESTIONS[language]
    assert len(questions) >= 40
    missed = []
    for query, expected in questions:
        hits = search_for(search_page(language), query)
        if not any(prefix + page in hits[:3] for page in expected):
            missed.append(f"  {query!r} -> {expected[0]} (top three: {[hit[len(prefix):] for hit in hits[:3]]})")
    found = len(questions) - len(missed)
    rate = found / len(questions)
    assert rate >= QUESTIONS_FOUND, (f"{language}: {found} of {len(questions)} questions ({rate:.1%}) found their entry "
                                     f"in the top three, below {QUESTIONS_FOUND:.0%}; missed:\n" + "\n".join(missed))
