"""Every reader's file runs on its own; the site offers it byte for byte and as a notebook with outputs."""

import json
import posixpath
import re
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
from triton_faq import backend, download
from triton_faq.entries import load

ENTRIES = load(ROOT)
IDS = [entry.id for entry in ENTRIES]


@pytest.fixture(scope="module")
def runs():
    """Every reader's file, run as a reader runs it: outside the repository, without triton_faq."""
    return download.run_alone(ROOT, [entry.snippet for entry in ENTRIES], backend.BACKEND)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_the_readers_file_imports_only_torch_triton_and_the_standard_library(entry):
    assert download.imports_outside_stdlib((ROOT / entry.snippet).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_the_readers_file_runs_on_its_own_and_prints_what_it_shows(entry, runs):
    outputs = runs[str(entry.snippet)]
    failed = [output["error"] for output in outputs if output["error"]]
    assert not failed, f"{entry.snippet}:\n{failed[0]}"
    assert len(outputs) == len(download.cells((ROOT / entry.snippet).read_text(encoding="utf-8")))
    assert outputs[-1]["stdout"].strip(), f"{entry.snippet}: main() printed nothing"


def test_a_reader_file_that_needs_the_handbook_fails_on_its_own(tmp_path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "leans.py").write_text("import triton_faq\n\ndef main():\n    print('ran')\n")
    outputs = download.run_alone(tmp_path, [Path("snippets/leans.py")], "interpreter")
    assert "ModuleNotFoundError" in outputs["snippets/leans.py"][0]["error"] \
        or "triton_faq" in outputs["snippets/leans.py"][0]["error"]


def test_notebook_cells_are_the_file_split_at_its_sections():
    source = (ROOT / "snippets/garbage_values/masked_load_without_other.py").read_text(encoding="utf-8")
    cells = download.cells(source)
    assert cells[-1] == "main()"
    assert cells[1].startswith("import os") and "DEVICE =" in cells[1]  # the prelude, a cell of its own
    assert not any("--8<--" in cell or "__main__" in cell for cell in cells)


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


