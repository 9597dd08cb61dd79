"""The sidebar names each section as the home page's list of entries does, and the home page "Home"
(hooks/nav_titles.py)."""

import re
from pathlib import Path

from triton_faq import handbook, ui_text


def test_the_sidebar_names_sections_as_the_home_page_does(built_site: Path):
    book = handbook.load()
    for language in book.site.languages:
        home = (built_site / book.site.url_path("index", language) / "index.html").read_text(encoding="utf-8")
        sidebar = re.search(r'<nav class="md-nav md-nav--primary".*?</nav>\s*</div>\s*</div>\s*</div>', home, re.S)
        assert sidebar, language
        labels = [" ".join(label.split()) for label in re.findall(r'<span class="md-ellipsis">(.*?)</span>',
                                                                   sidebar.group(0), re.S)]
        for topic in book.site.topics():
            title = book.title(f"{topic}/index", language)
            assert title in labels, (language, title)
        assert ui_text.text(language, "nav.home") in labels
