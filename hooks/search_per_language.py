"""Give each language its own search index, so each language's search finds its own pages.

mkdocs-static-i18n merges every language into one index at ``search/search_index.json``, built
with one word separator, and every page loads it. After the whole build this hook writes the
Chinese entries to ``zh/search/search_index.json`` (Chinese text segmented by jieba, split on
the zero-width spaces it inserts and on Chinese punctuation) and keeps only the English ones in
the root index; Chinese pages are pointed at their own index through Material's ``base``.

The error messages an entry claims (``errors:`` in its front matter) become the search tags of
its page, and each a search result of its own titled by the message (leading to its line in the
Symptom section, ``#error-N``), so a pasted message finds the entry that answers it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

from triton_faq import errors, interface

BASE = re.compile(r'("base": ")([^"]*)(")')
MESSAGE_WEIGHT = 300.0  # between text (1) and title (1000): a claimed message weighs more than body text


def tag_claimed_messages(index: dict, root: Path) -> dict:
    """Put each entry's claimed error messages in the ``tags`` of its page-level search document.

    The messages are the entry's ``errors:`` (identical in both languages, parity-checked).
    """
    claimed, _ = errors.load(root)
    by_location: dict[str, list[str]] = {}
    for error in claimed:
        page = error.entry.page.relative_to("docs/en").with_suffix("").as_posix() + "/"
        for location in (page, f"zh/{page}"):
            by_location.setdefault(location, []).append(error.message)
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


def split(index: dict, other: str = "zh") -> dict[str, dict]:
    """{language: index} from one merged index whose other-language locations start with ``other/``."""
    prefix = f"{other}/"
    default = [doc for doc in index["docs"] if not doc["location"].startswith(prefix)]
    translated = [dict(doc, location=doc["location"][len(prefix):]) for doc in index["docs"]
                  if doc["location"].startswith(prefix)]
    config = {key: value for key, value in index["config"].items() if key not in ("lang", "separator")}
    separator = {language: interface.text(language, "search_per_language.separator") for language in ("en", other)}
    return {
        "en": {"config": {**config, "lang": ["en"], "separator": separator["en"]}, "docs": default},
        other: {"config": {**config, "lang": [other], "separator": separator[other]}, "docs": translated},
    }


def one_level_up(base: str) -> str:
    """The ``base`` of a page one folder nearer its root: '../../..' -> '../..', '..' -> '.'."""
    parts = [part for part in base.split("/") if part not in ("", ".")]
    if not parts or parts[-1] != "..":
        raise ValueError(f"unexpected Material base {base!r} on a translated page")
    return "/".join(parts[:-1]) or "."


def point_at_own_index(html: str) -> str:
    return BASE.sub(lambda m: m[1] + one_level_up(m[2]) + m[3], html, count=1)


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language and merged the index
def on_post_build(config):
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.building:  # a nested per-language build; the final pass comes later
        return
    site = Path(config["site_dir"])
    merged = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    merged = tag_claimed_messages(merged, Path(config["config_file_path"]).parent)
    for language, index in split(merged).items():
        target = site / ("" if language == "en" else language) / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    for page in (site / "zh").rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        if '"base": "' in html:
            page.write_text(point_at_own_index(html), encoding="utf-8")
