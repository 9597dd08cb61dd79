"""`mkdocs build --strict` passes, and fails on a broken link or a broken include; what the built site offers."""

import hashlib
import html
import json
import re

import nbformat

from conftest import ROOT, build
from triton_faq import download
from triton_faq.handbook import load as load_handbook

ENTRIES = load_handbook(ROOT).entries

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
            ipynb = built_site / prefix / "notebooks" / f"{relative}.ipynb"
            book = nbformat.read(ipynb, as_version=4)
            nbformat.validate(book)
            code = [cell for cell in book.cells if cell.cell_type == "code"]
            assert [cell.source for cell in code] == download.cells((ROOT / entry.snippet).read_text(encoding="utf-8"))
            printed = "".join(o.get("text", "") for o in code[-1].outputs if o.get("name") == "stdout")
            assert printed.strip(), (entry.id, "main() shows no output in the notebook")
            assert not any(o.get("name") == "stderr" for cell in code for o in cell.outputs), entry.id
            shown = (built_site / prefix / "notebooks" / relative / "index.html").read_text(encoding="utf-8")
            assert f'href="../{name}.ipynb"' in shown and f'download="{name}.ipynb"' in shown, (entry.id, language)
            assert html.escape(printed.strip().splitlines()[-1], quote=False) in shown, (entry.id, language)
            page = (built_site / prefix / entry.name / "index.html").read_text(encoding="utf-8")
            depth = "../" * (entry.name.count("/") + 1)
            assert f'href="{depth}{"../" if prefix else ""}downloads/{relative}.py"' in page, (entry.id, language)
            assert f'href="{depth}notebooks/{relative}/"' in page, (entry.id, language)


def test_mkdocs_jupyter_shows_every_cell_and_its_output_and_the_page_stays_out_of_search(built_site):
    entry = next(entry for entry in ENTRIES if entry.name == PAGE)
    relative = entry.snippet.relative_to("snippets").with_suffix("").as_posix()
    book = nbformat.read(built_site / "notebooks" / f"{relative}.ipynb", as_version=4)
    shown = (built_site / "notebooks" / relative / "index.html").read_text(encoding="utf-8")
    code = [cell for cell in book.cells if cell.cell_type == "code"]
    outputs = [o for cell in code for o in cell.outputs]
    assert 'class="jp-Notebook' in shown  # rendered by mkdocs-jupyter
    assert outputs and shown.count('class="jp-OutputArea-child') == len(outputs)
    assert shown.count('class="jp-CodeMirrorEditor') == len(code)  # each cell, then what it printed
    assert '<span class="kn">import</span>' in shown  # Python, highlighted as on an entry page
    assert 'href="../../../garbage-values/masked-load-without-other/"' in shown  # back to the entry
    for language in ("en", "zh"):  # the search index's documents (hooks/search.py): [location, title, text]
        docs = [doc for part in sorted((built_site / "search" / language).glob("d*.json"))
                for doc in json.loads(part.read_text(encoding="utf-8"))]
        assert docs and not any("notebooks/" in location for location, _, _ in docs), language


def test_a_notebook_page_links_jupyters_stylesheets_written_once_for_all(built_site):
    """mkdocs-jupyter inlines the same Jupyter stylesheets (590 KB) into every notebook page; the pages
    link them instead, one file each, named by its hash (hooks/downloads.py)."""
    pages = sorted(built_site.glob("**/notebooks/*/*/index.html"))
    assert len(pages) == 2 * len(ENTRIES)
    shared = set()
    for page in pages:
        shown = page.read_text(encoding="utf-8")
        assert '<style type="text/css">' not in shown, page
        assert page.stat().st_size < 300_000, page  # it was 700 KB with the stylesheets inline
        hrefs = re.findall(r'<link rel="stylesheet" href="([^"]*assets/notebooks/([0-9a-f]{16})\.css)">', shown)
        assert hrefs, page
        for href, digest in hrefs:
            css = (page.parent / href).resolve()
            assert css.parent == built_site.resolve() / "assets" / "notebooks", (page, href)
            assert hashlib.sha256(css.read_bytes()).hexdigest()[:16] == digest, (page, href)
        shared.add(tuple(href.rsplit("/", 1)[1] for href, _ in hrefs))
    assert len(shared) == 1, shared  # every page links the same files, in the same order
    rules = "".join((built_site / "assets" / "notebooks" / name).read_text(encoding="utf-8") for name in shared.pop())
    assert ".jupyter-wrapper" in rules and ".jp-OutputArea" in rules  # Jupyter's own rules, not a page's


def test_the_shared_build_starts_on_a_whole_suite_run_only():
    """`make test` (`pytest -n 2 --dist loadfile`) starts it; naming a file, a worker, a GPU run or
    `--collect-only` does not."""
    import types

    import pytest

    from conftest import builds_in_background

    def config(source, worker=False, gpu=False, collect_only=False):
        options = {"--record-gpu-run": gpu, "--add-to-gpu-run": gpu, "collectonly": collect_only}
        made = types.SimpleNamespace(args_source=source, getoption=lambda name, default=None: options[name])
        if worker:
            made.workerinput = {}
        return made

    assert builds_in_background(config(pytest.Config.ArgsSource.TESTPATHS))
    assert not builds_in_background(config(pytest.Config.ArgsSource.ARGS))
    assert not builds_in_background(config(pytest.Config.ArgsSource.TESTPATHS, worker=True))
    assert not builds_in_background(config(pytest.Config.ArgsSource.TESTPATHS, gpu=True))
    assert not builds_in_background(config(pytest.Config.ArgsSource.TESTPATHS, collect_only=True))
