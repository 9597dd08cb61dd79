"""Every reader's file runs on its own, on the backend of this run (the site's copies: test_site_build.py)."""

from pathlib import Path

import pytest

from conftest import ROOT
from triton_faq import backend, download
from triton_faq.handbook import load as load_handbook

ENTRIES = load_handbook(ROOT).entries
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
