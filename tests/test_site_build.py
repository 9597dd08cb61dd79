"""`mkdocs build --strict` passes, and fails on a broken link or a broken include; what the built site offers."""

import posixpath
import re

import nbformat

from conftest import ROOT, build
from triton_faq import download
from triton_faq.entries import load

ENTRIES = load(ROOT)

PAGE = "garbage-values/masked-load-without-other"


def test_the_site_builds_strictly(built_site):
    assert (built_site / "zh" / PAGE / "index.html").is_file()
    english = (built_site / PAGE / "index.html").read_text(encoding="utf-8")
    # the language switcher leads to the same page in the other language
    assert f'href="../../zh/{PAGE}/" hreflang="zh"' in english


def test_a_broken_link_fails_the_build(small_site):
    page = small_site / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    result = build(small_site, small_site / "_site")
    assert result.returncode != 0
    assert "no-such-page.md" in result.stdout + result.stderr


def test_a_broken_include_fails_the_build(small_site):
    page = small_site / "docs" / "en" / "index.md"
    page.write_text(page.read_text().replace(":one\"", ":no-such-section\"", 1))
    result = build(small_site, small_site / "_site")
    assert result.returncode != 0
    assert "no-such-section" in result.stdout + result.stderr


def test_the_site_offers_the_file_byte_for_byte_and_a_notebook_with_outputs(built_site):
    for entry in ENTRIES:
        relative = entry.snippet.relative_to("snippets").with_suffix("").as_posix()
        name = entry.snippet.stem
        assert (built_site / "downloads" / f"{relative}.py").read_bytes() == (ROOT / entry.snippet).read_bytes()
        for language, prefix in (("en", ""), ("zh", "zh/")):
            notebook_page = built_site / prefix / "notebooks" / relative
            ipynb = notebook_page / f"{name}.ipynb"
            book = nbformat.read(ipynb, as_version=4)
            nbformat.validate(book)
            code = [cell for cell in book.cells if cell.cell_type == "code"]
            assert [cell.source for cell in code] == download.cells((ROOT / entry.snippet).read_text(encoding="utf-8"))
            printed = "".join(o.get("text", "") for o in code[-1].outputs if o.get("name") == "stdout")
            assert printed.strip(), (entry.id, "main() shows no output in the notebook")
            assert not any(o.get("name") == "stderr" for cell in code for o in cell.outputs), entry.id
            assert f'href="{name}.ipynb" download=' in (notebook_page / "index.html").read_text(encoding="utf-8")
            page = (built_site / prefix / entry.name / "index.html").read_text(encoding="utf-8")
            depth = "../" * (entry.name.count("/") + 1)
            assert f'href="{depth}{"../" if prefix else ""}downloads/{relative}.py"' in page, (entry.id, language)
            assert f'href="{depth}notebooks/{relative}/"' in page, (entry.id, language)


def test_notebook_pages_link_one_shared_stylesheet_instead_of_inlining_it(built_site):
    css = built_site / "assets" / "notebook.css"
    assert css.is_file() and css.stat().st_size > 500_000  # mkdocs-jupyter's index.css, once
    pages = [*built_site.glob("notebooks/**/index.html"), *built_site.glob("zh/notebooks/**/index.html")]
    assert len(pages) == 2 * len(ENTRIES)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        styles = [len(style) for style in re.findall(r"<style\b[^>]*>(.*?)</style>", html, re.DOTALL)]
        assert max(styles, default=0) < 20_000, (page, styles)
        href = posixpath.relpath("assets/notebook.css", page.parent.relative_to(built_site).as_posix())
        assert f'<link rel="stylesheet" href="{href}">' in html, page
        assert (page.parent / href).resolve() == css.resolve()


