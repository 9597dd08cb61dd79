"""Give each language its own search index, so each language's search finds its own pages.

mkdocs-static-i18n merges every language into one index at ``search/search_index.json``, built
with one word separator, and every page loads it. After the whole build this hook writes the
Chinese entries to ``zh/search/search_index.json`` (Chinese text segmented by jieba, split on
the zero-width spaces it inserts and on Chinese punctuation) and keeps only the English ones in
the root index; Chinese pages are pointed at their own index through Material's ``base``.

The error messages an entry claims (``errors:`` in its front matter) become the search tags of
its page, and each a search result of its own titled by the message (leading to its line in the
Symptom section, ``#error-N``), so a pasted message finds the entry that answers it.

What the reader sees and the words they type (``symptoms:`` and ``keywords:``, written per
language) go into a ``keywords`` field of the entry's page, searched but never shown; Chinese
ones segmented by jieba as Material segments the page text, each Chinese keyword also kept whole.
The words a question is full of that find nothing (interface.py, per language) are handed to
overrides/main.html, which drops them from a query before it reaches the search worker.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

from triton_faq import handbook, ui_text

BASE = re.compile(r'("base": ")([^"]*)(")')
MESSAGE_WEIGHT = 300.0  # between text (1) and title (1000): a claimed message weighs more than body text
READER_WEIGHT = 300.0  # symptoms and keywords: as much as a claimed message
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def tag_claimed_messages(index: dict, root: Path) -> dict:
    """Put each entry's claimed error messages in the ``tags`` of its page-level search document.

    The messages are the entry's ``errors:`` (identical in both languages, parity-checked).
    """
    book = handbook.load(root)
    by_location: dict[str, list[str]] = {}
    for error in book.claimed_errors:
        for view in error.entry.views():
            by_location.setdefault(view.url_path, []).append(error.message)
    for doc in index["docs"]:
        if doc["location"] in by_location:
            doc["tags"] = by_location[doc["location"]]
    # and each message is a search result of its own, titled by the message, that leads to the
    # Symptom section where the page lists it: found like a heading, without being one on the page
    for location, messages in by_location.items():
        index["docs"] += [{"location": f"{location}#error-{number}", "title": message, "text": ""}
                          for number, message in enumerate(messages, 1)]
    index["config"]["fields"] = {**index["config"].get("fields", {}), "tags": {"boost": MESSAGE_WEIGHT}}
    return index


def segment(phrase: str) -> str:
    """A Chinese phrase as Material indexes page text: each run of Han characters cut into words by
    jieba, the words separated by zero-width spaces (the Chinese index's separator)."""
    import jieba

    return HAN.sub(lambda run: "\u200b" + "\u200b".join(jieba.cut(run[0])) + "\u200b", phrase).strip("\u200b")


def reader_words(view: handbook.EntryView) -> list[str]:
    """An entry's symptoms and keywords in one language, as its search field holds them: Chinese
    segmented (text with no Han characters is left as it is), each Chinese keyword also kept whole, so
    the query's segmenter (longest word in the index first) finds it."""
    whole = [word for keyword in view.keywords for word in HAN.findall(keyword) if len(word) > 1]
    return [segment(phrase) for phrase in [*view.symptoms, *view.keywords]] + whole


def index_reader_words(index: dict, root: Path) -> dict:
    """Each entry page's ``symptoms:`` and ``keywords:``, per language, in a searched ``keywords`` field."""
    words = {view.url_path: reader_words(view) for entry in handbook.load(root).entries for view in entry.views()}
    for doc in index["docs"]:
        if doc["location"] in words:
            doc["keywords"] = words[doc["location"]]
    index["config"]["fields"] = {**index["config"].get("fields", {}), "keywords": {"boost": READER_WEIGHT}}
    return index


def stop_words(site: handbook.Site) -> list[str]:
    """Every language's words that find nothing, longest first (a longer one may contain a shorter)."""
    words = {word for language in site.languages
             for word in ui_text.text(language, "search_per_language.stop_words").split()}
    return sorted(words, key=lambda word: (-len(word), word))


def split(index: dict, site: handbook.Site) -> dict[str, dict]:
    """{language: index} from one merged index whose translated locations start with ``<language>/``."""
    config = {key: value for key, value in index["config"].items() if key not in ("lang", "separator")}
    docs: dict[str, list] = {language: [] for language in site.languages}
    for doc in index["docs"]:
        language = next((other for other in site.translations if doc["location"].startswith(f"{other}/")),
                        site.default)
        prefix = "" if language == site.default else f"{language}/"
        docs[language].append(dict(doc, location=doc["location"][len(prefix):]) if prefix else doc)
    return {language: {"config": {**config, "lang": [language],
                                  "separator": ui_text.text(language, "search_per_language.separator")},
                       "docs": docs[language]}
            for language in site.languages}


def one_level_up(base: str) -> str:
    """The ``base`` of a page one folder nearer its root: '../../..' -> '../..', '..' -> '.'."""
    parts = [part for part in base.split("/") if part not in ("", ".")]
    if not parts or parts[-1] != "..":
        raise ValueError(f"unexpected Material base {base!r} on a translated page")
    return "/".join(parts[:-1]) or "."


def point_at_own_index(html: str) -> str:
    return BASE.sub(lambda m: m[1] + one_level_up(m[2]) + m[3], html, count=1)


def on_config(config):
    site = handbook.load_site(Path(config["config_file_path"]).parent)
    config["extra"]["search_stop_words"] = stop_words(site)  # for overrides/main.html
    return config


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language and merged the index
def on_post_build(config):
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.building:  # a nested per-language build; the final pass comes later
        return
    built = Path(config["site_dir"])
    site = handbook.load_site(Path(config["config_file_path"]).parent)
    merged = json.loads((built / "search" / "search_index.json").read_text(encoding="utf-8"))
    merged = index_reader_words(tag_claimed_messages(merged, site.root), site.root)
    for language, index in split(merged, site).items():
        target = built / site.url_path("index", language) / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    for language in site.translations:
        for page in (built / site.url_path("index", language)).rglob("*.html"):
            html = page.read_text(encoding="utf-8")
            if '"base": "' in html:
                page.write_text(point_at_own_index(html), encoding="utf-8")
