"""The tree follows the conventions: mirrored paths for each entry's page, reader's file, proof and evidence."""

import re

import pytest

from conftest import ROOT
from triton_faq.handbook import parse, snippet_for
from triton_faq.handbook import load as load_handbook

ENTRIES = load_handbook(ROOT).entries
SNIPPETS = sorted((ROOT / "snippets").rglob("*.py"))
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_an_entry_mirrors_its_page_path_in_every_file(entry):
    relative = entry.page.relative_to("docs/en").with_suffix("")
    assert all(KEBAB.match(part) for part in relative.parts), f"{relative}: use kebab-case names"
    assert entry.snippet == snippet_for(entry.name), entry.snippet
    assert (ROOT / entry.snippet).is_file()
    assert (ROOT / entry.proof).is_file(), f"{entry.id}: no proof at {entry.proof}"
    assert (ROOT / "docs" / "zh" / entry.page.relative_to("docs/en")).is_file()


def test_entry_ids_are_unique_and_well_formed():
    ids = [entry.id for entry in ENTRIES]
    assert all(re.fullmatch(r"TP\d{3}", i) for i in ids), ids
    assert len(ids) == len(set(ids)), ids


def test_every_readers_file_and_proof_belongs_to_an_entry():
    snippets = {entry.snippet for entry in ENTRIES}
    assert [s.relative_to(ROOT) for s in SNIPPETS if s.relative_to(ROOT) not in snippets] == []
    proofs = {entry.proof for entry in ENTRIES}
    stray = [p.relative_to(ROOT) for p in (ROOT / "tests" / "entries").rglob("test_*.py")
             if p.relative_to(ROOT) not in proofs]
    assert stray == []
    evidence = {entry.evidence for entry in ENTRIES}
    assert [p.relative_to(ROOT) for p in (ROOT / "evidence").rglob("*.py") if p.relative_to(ROOT) not in evidence] == []


def test_no_readers_file_is_named_like_a_test_file():
    assert not [s for s in SNIPPETS if s.name.startswith("test_")]


def test_pages_parse():
    for page in (ROOT / "docs").rglob("*.md"):
        parse(page)
