"""Every snippet runs as a script and prints what it shows; the tree follows the conventions."""

import re
import runpy
from pathlib import Path

import pytest

from conftest import ROOT
from triton_faq.entries import snippet_for
from triton_faq.pages import parse

SNIPPETS = sorted((ROOT / "snippets").rglob("*.py"))
ENTRY_PAGES = sorted(p for p in (ROOT / "docs" / "en").rglob("*.md") if "id" in parse(p).front_matter)
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda p: str(p.relative_to(ROOT)))
def test_snippet_runs_as_a_script_and_prints(snippet, capsys):
    runpy.run_path(str(snippet), run_name="__main__")
    assert capsys.readouterr().out.strip(), f"{snippet} printed nothing"


@pytest.mark.parametrize("page", ENTRY_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_entry_names_the_snippet_that_mirrors_its_path(page):
    relative = page.relative_to(ROOT / "docs" / "en").with_suffix("")
    expected = snippet_for(page.relative_to(ROOT))
    assert all(KEBAB.match(part) for part in relative.parts), f"{relative}: use kebab-case names"
    assert parse(page).front_matter["snippet"] == str(expected)
    assert (ROOT / expected).is_file()


def test_entry_ids_are_unique_and_well_formed():
    ids = [parse(p).front_matter["id"] for p in ENTRY_PAGES]
    assert all(re.fullmatch(r"TP\d{3}", i) for i in ids), ids
    assert len(ids) == len(set(ids)), ids


def test_no_snippet_is_named_like_a_test_file():
    assert not [s for s in SNIPPETS if s.name.startswith("test_")]
