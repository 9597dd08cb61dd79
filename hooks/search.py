"""Search that downloads only what a query needs, behind Material's own search box.

Material's search downloads one index of every page's text before the first result can show (1 MB
at 63 entries, growing with each entry). After the whole build, this hook writes the handbook's own
index instead (``triton_faq/search_index.py``: BM25F scores precomputed at build time, split into
shards a query fetches by its terms), one per language under ``search/<language>/``, so each
language searches only its own pages. Material's search box, its look and its keys stay: its worker
is replaced by ``assets/javascripts/search-worker.js`` (overrides/main.html points Material at it),
and the ``search_index.json`` Material fetches on every page becomes a stub of a few bytes that
tells the worker where its language's index is. Material's own index is not built at all: every page
is marked excluded from it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

from triton_faq import handbook, retrieval, search_index

BASE = re.compile(r'("base": ")([^"]*)(")')
WORKER_FOLDER = "assets/javascripts/"  # where the worker is, relative to the site's root


def stop_words() -> list[str]:
    """Every language's words that find nothing (``retrieval.STOP``), longest first (a longer one may
    contain a shorter)."""
    return sorted(retrieval.STOP, key=lambda word: (-len(word), word))


def index_folder(language: str) -> str:
    """The language's index, relative to the site's root."""
    return f"search/{language}/"


def stub_index(language: str) -> dict:
    """What Material's script fetches and hands its worker: the language, and its index relative to the worker."""
    up = "../" * WORKER_FOLDER.count("/")
    return {"config": {"lang": [language], "index": up + index_folder(language), "separator": " "}, "docs": []}


def one_level_up(base: str) -> str:
    """The ``base`` of a page one folder nearer its root: '../../..' -> '../..', '..' -> '.'."""
    parts = [part for part in base.split("/") if part not in ("", ".")]
    if not parts or parts[-1] != "..":
        raise ValueError(f"unexpected Material base {base!r} on a translated page")
    return "/".join(parts[:-1]) or "."


def point_at_own_index(html_text: str) -> str:
    return BASE.sub(lambda m: m[1] + one_level_up(m[2]) + m[3], html_text, count=1)


def on_page_content(html, page, config, files):
    """Material's search plugin would parse every page into an index this hook replaces after the
    build: the page is marked excluded (``search.exclude``, which that plugin honours), so it is not
    parsed at all."""
    page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    return html


def on_config(config):
    config["extra"]["search_stop_words"] = stop_words()  # for overrides/main.html
    return config


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language and merged the index
def on_post_build(config):
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.building:  # a nested per-language build; the final pass comes later
        return
    built = Path(config["site_dir"])
    book = handbook.load(Path(config["config_file_path"]).parent)
    site = book.site
    for language in site.languages:
        search_index.write(book, language, built / index_folder(language), stop_words())
        stub = built / site.url_path("index", language) / "search" / "search_index.json"
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text(json.dumps(stub_index(language), separators=(",", ":")), encoding="utf-8")
    for language in site.translations:  # a translated page fetches its own language's stub
        for page in (built / site.url_path("index", language)).rglob("*.html"):
            text = page.read_text(encoding="utf-8")
            if '"base": "' in text:
                page.write_text(point_at_own_index(text), encoding="utf-8")
