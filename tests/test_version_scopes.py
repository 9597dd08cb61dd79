"""`triton-faq check`'s version scopes (triton_faq/version_scopes.py), read from the version matrix.

tests/data/version_scopes/ keeps six pages as they were before the rule (commit c8301fb of main),
in both languages, with their matrix rows of that day: each stated a claim that changes across
Triton releases without the releases, and the check must fail every one of them.
"""

import json
from pathlib import Path

import pytest

from triton_faq import handbook, version_scopes
from triton_faq.matrix import read

ROOT = Path(__file__).resolve().parents[1]
BEFORE = ROOT / "tests" / "data" / "version_scopes"
ROWS = json.loads((BEFORE / "matrix_rows.json").read_text(encoding="utf-8"))
SIX = sorted(ROWS["entries"])


def problems_before(entry_id):
    entry = handbook.load(ROOT).find(entry_id)
    texts = {language: (BEFORE / f"{entry_id}.{language}.md.txt").read_text(encoding="utf-8")
             for language in ("en", "zh")}
    return version_scopes.entry_problems(entry, ROWS["entries"][entry_id], ROWS["versions"], ROOT, texts)


def test_the_six_pages_are_the_ones_the_issue_names():
    assert SIX == ["TP007", "TP025", "TP039", "TP044", "TP046", "TP050"]


@pytest.mark.parametrize("entry_id", SIX)
def test_the_check_fails_each_page_as_it_was(entry_id):
    problems = problems_before(entry_id)
    for language in ("en", "zh"):
        ours = [p for p in problems if p.startswith(f"docs/{language}/")]
        assert any("the sentence that cites it names the releases" in p for p in ours), ours
        assert any("explain it in one line" in p for p in ours), ours


def test_what_the_check_said_about_tp025_before():
    problems = problems_before("TP025")
    assert any("`test_launcher_message_names_the_position_of_the_argument` fails on some Triton releases "
               "(3.2 passed, 3.3 passed, 3.4 passed, 3.5 passed, 3.6 passed, 3.7 failed, 3.8 failed, 3.9 failed)"
               in p for p in problems), problems


@pytest.mark.parametrize("entry_id", SIX)
def test_the_six_pages_pass_now(entry_id):
    data = read(ROOT)
    entry = handbook.load(ROOT).find(entry_id)
    assert version_scopes.entry_problems(entry, data["entries"][entry_id], data["versions"], ROOT) == []


def test_check_reports_no_version_scope_problem_on_any_page():
    assert version_scopes.check(ROOT) == []


def test_a_sentence_with_a_release_next_to_the_change_passes_and_one_without_fails():
    runs = [("3.5", True), ("3.6", True), ("3.7", False)]
    ran, failing = {"test_x": runs}, {"test_x"}
    note = "<!-- version-note: test_x: 3.7 changed the message -->\n"
    for sentence, ok in [("The launcher names it up to 3.6 (`test_x`).", True),
                         ("From Triton 3.7 on it does not (`test_x`).", True),
                         ("On Triton 3.5 and later (`test_x`).", False),
                         ("The launcher names it (`test_x`).", False)]:
        problems = version_scopes.page_problems(Path("x.md"), Path("x.md"), ran, failing, sentence + "\n\n" + note)
        assert (problems == []) is ok, (sentence, problems)


def test_a_failing_row_without_a_note_fails_and_a_note_for_a_passing_row_fails():
    ran = {"test_x": [("3.6", True), ("3.7", False)], "test_y": [("3.6", True), ("3.7", True)]}
    problems = version_scopes.page_problems(Path("x.md"), Path("x.md"), ran, {"test_x"},
                                            "<!-- version-note: test_y: nothing -->\n")
    assert len(problems) == 2
    assert "`test_x` fails on some Triton releases (3.6 passed, 3.7 failed)" in problems[0]
    assert "version-note for `test_y`, which fails on no release" in problems[1]


def test_the_version_table_shows_the_notes():
    import sys
    sys.path.insert(0, str(ROOT))
    from hooks.version_matrix import render

    data = read(ROOT)
    text = (ROOT / handbook.load(ROOT).find("TP025").page).read_text(encoding="utf-8")
    section = render(data, "TP025", "en", version_scopes.notes(text))
    note = version_scopes.notes(text)["test_launcher_message_names_the_position_of_the_argument"]
    assert f"| `test_launcher_message_names_the_position_of_the_argument` | " in section
    assert f" | {note} |" in section


def test_a_file_that_does_not_import_is_explained_once_for_all_its_rows():
    """Rows that fail only where the entry's code does not import need the file's note, not one each."""
    ran = {"test_x": [("3.2", False), ("3.3", True)], "test_y": [("3.2", False), ("3.3", False)]}
    failing = {"test_x", "test_y"}
    page = "<!-- version-note: test_y: 3.3 changed the message -->\n"
    without = version_scopes.page_problems(Path("x.md"), Path("x.md"), ran, failing, page, {"3.2"})
    assert len(without) == 1 and "does not import on Triton 3.2" in without[0], without
    noted = page + "<!-- version-note: import: without a GPU, 3.2 asks for a driver -->\n"
    assert version_scopes.page_problems(Path("x.md"), Path("x.md"), ran, failing, noted, {"3.2"}) == []
    # test_y also fails on 3.3, where the file imports: its own line is still needed
    alone = "<!-- version-note: import: without a GPU, 3.2 asks for a driver -->\n"
    problems = version_scopes.page_problems(Path("x.md"), Path("x.md"), ran, failing, alone, {"3.2"})
    assert len(problems) == 1 and "`test_y` fails on some Triton releases" in problems[0], problems
    # a file note where the file imports everywhere is reported
    problems = version_scopes.page_problems(Path("x.md"), Path("x.md"), {}, set(), alone, set())
    assert len(problems) == 1 and "imports on every release" in problems[0], problems


def test_the_version_table_shows_the_files_note_under_it_and_points_its_rows_there():
    import sys
    sys.path.insert(0, str(ROOT))
    from hooks.version_matrix import render

    data = read(ROOT)
    entry = handbook.load(ROOT).find("TP028")
    for language, pointer in (("en", "the code does not import on 3.2 (below the table)"),
                              ("zh", "在 3.2 上代码无法导入（见表下）")):
        text = (ROOT / handbook.load_site(ROOT).page_file(entry.name, language)).read_text(encoding="utf-8")
        notes = version_scopes.notes(text)
        section = render(data, "TP028", language, notes)
        assert notes["import"] and f"{notes['import']}" in section.split("???")[0]
        assert f"| `test_fix_reset_to_zero_gives_the_sum` | " in section and f" | {pointer} |" in section
