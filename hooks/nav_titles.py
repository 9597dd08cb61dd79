"""Name the sidebar's sections as the home page's list of entries names them.

The theme names a section after its folder (``garbage-values`` becomes "Garbage values"), and the
home page's list of entries (hooks/entry_list.py) names it by its index page's title
("Garbage values and NaN"): a reader saw two names for one thing. Each section whose index page is
a page of the handbook now takes that page's title, in the page's language; and the home page's
entry in the sidebar, and its window title, say "Home" (they repeated the site's name, shown just above
it and after it).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.nav import Section
from mkdocs.structure.pages import Page

from triton_faq import handbook, ui_text


def _retitle(items, book: handbook.Handbook) -> None:
    for item in items:
        if isinstance(item, Section):
            index = next((child for child in item.children if isinstance(child, Page) and child.is_index), None)
            if index is not None:
                try:
                    language, name = book.site.name_of(index.file.src_uri)
                except handbook.SiteError:
                    continue
                if name == "index":  # the whole site's section: its link is the home page
                    item.title = ui_text.text(language, "nav.home")
                elif book.page(name, language) is not None:
                    item.title = book.title(name, language)
            _retitle(item.children, book)


def on_nav(nav, config, files):
    _retitle(nav.items, handbook.load(Path(config["config_file_path"]).parent))
    return nav


def on_page_markdown(markdown, page, config, files):
    """The home page is "Home" in the sidebar and the window's title ("Home - <site name>", where it
    read "<site name> - <site name>"); its own heading still names the site."""
    where = handbook.built(page, config)
    if where.name == "index":
        page.meta["title"] = ui_text.text(where.language, "nav.home")
    return markdown
