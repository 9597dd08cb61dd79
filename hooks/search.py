"""Search that loads only what a query needs: Pagefind's index behind Material's search box.

Material's search downloads one index of every page before the first result can show (1 MB at 63
entries, growing with each). Here, after the whole build, Pagefind (its extended release, which
segments Chinese) indexes the built pages into ``pagefind/``, split into fragments that a query
fetches on demand, one index per language (a page's ``<html lang>``). Material's search box, its
look and its keys stay: its worker is replaced by ``assets/javascripts/search-worker.js``
(overrides/), which answers Material's messages from Pagefind, and the index Material fetches on
every page becomes a stub that names the language.

What a page contributes to search:

* entry pages and the other pages of the handbook, their article only (``data-pagefind-body``);
  the generated notebook pages are left out (their entry page is the result);
* an entry's claimed error messages, symptoms and keywords, per language, in a block searched
  with extra weight but never shown (``data-pagefind-weight``), so a pasted message or the words a
  reader types find the entry;
* its description, as the text a result shows (``data-pagefind-meta``): the answer, not the
  prelude code.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from triton_faq import handbook, ui_text

BASE = re.compile(r'("base": ")([^"]*)(")')
ARTICLE = '<article class="md-content__inner md-typeset">'
DESCRIPTION = re.compile(r'<meta name="description" content="')
READER_WEIGHT = 8.0  # claimed messages, symptoms and keywords: as much as a title (Pagefind's h1 is 7)
NOT_INDEXED = ("notebooks/",)  # generated pages whose entry page is the result


def reader_block(view: handbook.EntryView) -> str:
    """The searched-but-hidden block of an entry page in one language."""
    phrases = [error.message for error in view.entry.errors] + view.symptoms + view.keywords
    items = "".join(f"<span>{html.escape(phrase)}</span> " for phrase in phrases)
    return f'<div hidden data-pagefind-weight="{READER_WEIGHT}">{items}</div>'


def stop_words(site: handbook.Site) -> list[str]:
    """Every language's words that find nothing, longest first (a longer one may contain a shorter)."""
    words = {word for language in site.languages
             for word in ui_text.text(language, "search.stop_words").split()}
    return sorted(words, key=lambda word: (-len(word), word))


def stub_index(language: str, site: handbook.Site) -> dict:
    """What Material's script fetches and hands its worker: the language and where its pages start."""
    return {"config": {"lang": [language], "prefix": site.url_path("index", language), "separator": " "},
            "docs": []}


def one_level_up(base: str) -> str:
    """The ``base`` of a page one folder nearer its root: '../../..' -> '../..', '..' -> '.'."""
    parts = [part for part in base.split("/") if part not in ("", ".")]
    if not parts or parts[-1] != "..":
        raise ValueError(f"unexpected Material base {base!r} on a translated page")
    return "/".join(parts[:-1]) or "."


def point_at_own_index(html_text: str) -> str:
    return BASE.sub(lambda m: m[1] + one_level_up(m[2]) + m[3], html_text, count=1)


def on_config(config):
    site = handbook.load_site(Path(config["config_file_path"]).parent)
    config["extra"]["search_stop_words"] = stop_words(site)  # for overrides/main.html
    return config


def on_post_page(output, page, config):
    """Mark what Pagefind indexes on this page, and how."""
    site, language, name = handbook.built(page, config)
    if name.startswith(NOT_INDEXED) or ARTICLE not in output:
        return output
    extra = ""
    entry = handbook.load(site.root).find(name) if page.meta.get("id") else None
    if entry is not None and language in entry.pages:
        extra = reader_block(entry.view(language))
    output = output.replace(ARTICLE, ARTICLE[:-1] + " data-pagefind-body>" + extra, 1)
    return DESCRIPTION.sub('<meta name="description" data-pagefind-meta="description[content]" content="', output,
                           count=1)


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language and merged the index
def on_post_build(config):
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.building:  # a nested per-language build; the final pass comes later
        return
    built = Path(config["site_dir"])
    site = handbook.load_site(Path(config["config_file_path"]).parent)
    for language in site.languages:
        target = built / site.url_path("index", language) / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(stub_index(language, site), separators=(",", ":")), encoding="utf-8")
    for language in site.translations:
        for page in (built / site.url_path("index", language)).rglob("*.html"):
            text = page.read_text(encoding="utf-8")
            if '"base": "' in text:
                page.write_text(point_at_own_index(text), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pagefind", "--site", str(built), "--output-subdir", "pagefind",
                           "--quiet"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise PluginError("Pagefind could not index the site: " + (done.stderr or done.stdout).strip()[-2000:])
