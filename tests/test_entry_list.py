"""The entry lists on the home and topic pages are generated from the entries' front matter."""

import importlib.util

import pytest

from conftest import ROOT
from triton_faq import handbook

spec = importlib.util.spec_from_file_location("entry_list_hook", ROOT / "hooks" / "entry_list.py")
hook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hook)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_home_page_lists_every_entry_once(language):
    listing = hook.render(handbook.load(ROOT), language, "index.md", None)
    for entry in handbook.load(ROOT).entries:
        assert listing.count(f"`{entry.id}` [") == 1
        assert f"]({entry.name}.md)" in listing


def test_a_topic_page_lists_its_own_entries_with_relative_links():
    listing = hook.render(handbook.load(ROOT), "en", "garbage-values/index.md", "garbage-values")
    assert "`TP001` [" in listing and "](masked-load-without-other.md)" in listing
    assert "TP002" not in listing


def test_an_unknown_topic_is_refused():
    with pytest.raises(ValueError, match="names topic 'no-such-topic'"):
        hook.render(handbook.load(ROOT), "en", "index.md", "no-such-topic")
