"""`triton-faq check` and `triton-faq new`: every problem listed; a scaffold is never taken as done."""

import subprocess
import sys

import pytest

from conftest import ROOT
from triton_faq.validate import check
from triton_faq.scaffold import ScaffoldError, new, next_id

PAGE = "docs/{}/garbage-values/masked-load-without-other.md"


def test_every_entry_passes_check():
    assert check(ROOT) == []


def test_a_scaffolded_entry_fails_check_with_what_is_missing(site_copy):
    written = new("new-topic/my-question", site_copy)
    assert [str(p) for p in written] == [
        "docs/en/new-topic/index.md", "docs/en/new-topic/my-question.md",
        "docs/zh/new-topic/index.md", "docs/zh/new-topic/my-question.md", "snippets/new_topic/my_question.py",
        "tests/entries/new_topic/test_my_question.py"]
    problems = check(site_copy)
    for path in written:
        assert any(p.startswith(f"{path}:") and "unfinished (TODO(new entry))" in p for p in problems), path
    assert f"id: {next_id(ROOT)}" in (site_copy / written[1]).read_text()


def test_the_scaffolded_tests_fail_until_written(site_copy):
    new("new-topic/my-question", site_copy)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/entries/new_topic/test_my_question.py"], cwd=site_copy, capture_output=True, text=True)
    assert result.returncode == 1 and "2 failed" in result.stdout, result.stdout + result.stderr


def test_the_scaffolded_page_has_the_v2_shape_once_filled_in(site_copy):
    new("new-topic/my-question", site_copy)
    problems = [p for p in check(site_copy) if "new-topic/my-question" in p or "new_topic" in p]
    assert problems and all("unfinished (TODO(new entry))" in p for p in problems), problems


def test_new_writes_into_the_checkout_it_is_run_in(site_copy):
    (site_copy / "snippets" / "x").mkdir()
    result = subprocess.run([sys.executable, "-m", "triton_faq", "new", "new-topic/from-elsewhere"],
                            cwd=site_copy / "snippets" / "x", capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert f"repository {site_copy}" in result.stderr
    assert (site_copy / "docs/en/new-topic/from-elsewhere.md").is_file()
    assert not (ROOT / "docs/en/new-topic").exists()


def test_commands_outside_a_checkout_say_so_in_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "triton_faq", "check"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode != 0 and "is not inside a checkout of the handbook" in result.stderr
    assert "Traceback" not in result.stderr


def test_new_refuses_to_overwrite_and_bad_names(site_copy):
    with pytest.raises(ScaffoldError, match="already exists; nothing was written"):
        new("garbage-values/masked-load-without-other", site_copy)
    for name in ("NoTopic", "a/b/c", "Topic/Question", "topic/question.md", "../x/y"):
        with pytest.raises(ScaffoldError, match="is not topic/question in kebab-case"):
            new(name, site_copy)


def test_check_reports_every_problem_with_file_and_line(site_copy):
    zh = site_copy / PAGE.format("zh")
    zh.write_text(zh.read_text().replace("掩码", "遮罩", 1))
    en = site_copy / PAGE.format("en")
    en.write_text(en.read_text().replace("id: TP001", "id: TP002\nseverity: high"))
    problems = check(site_copy)
    assert any(p.startswith(PAGE.format("zh") + ":") and "write '掩码', not '遮罩'" in p for p in problems)
    assert any("id TP002 is already used by" in p for p in problems)
    assert f"{PAGE.format('en')}:1: unknown front matter key 'severity' (allowed: id, title, description, snippet, errors, symptoms, keywords)" in problems


def test_check_holds_pages_to_the_answer_first_shape(site_copy):
    en = site_copy / PAGE.format("en")
    text = en.read_text()
    start = text.index("\n```python\n") + 1  # the fix, under the fold with the file's first lines
    answer_fence = text[start:text.index("```\n", start + 4) + 4]
    text = text.replace(answer_fence, "", 1).replace("## Why { #why }", "## Why { #why }\n\n" + answer_fence, 1)
    text = text.replace('??? quote "Holds: ', '??? quote "Mostly right: ', 1)
    text = text.replace("## How we know { #how-we-know }", "## Proof { #proof }", 1)
    en.write_text(text + '\n```python\n--8<-- "tests/entries/garbage_values/test_masked_load_without_other.py"\n```\n')
    problems = [p for p in check(site_copy) if p.startswith(PAGE.format("en"))]
    assert any("the fix code (a fence including the 'fix' section) must come right after the answer" in p for p in problems)
    assert any("a claim's title starts with its verdict" in p and "Mostly right" in p for p in problems)
    assert any("no '## ... { #how-we-know }' section" in p for p in problems)
    assert any("test code outside a fold" in p for p in problems)


def test_check_keeps_the_fix_alone_and_in_the_first_screen(site_copy):
    en, zh = site_copy / PAGE.format("en"), site_copy / PAGE.format("zh")
    text = en.read_text()
    fix = '```python\n--8<-- "snippets/garbage_values/masked_load_without_other.py:fix"\n```\n'
    en.write_text(text.replace(fix, fix.replace(':fix"', ':prelude"\n\n--8<-- "snippets/garbage_values/'
                                                       'masked_load_without_other.py:fix"'), 1))
    long_answer = "A long answer that goes on and on about the reduction and its identity. " * 30
    zh.write_text(zh.read_text().replace("\n??? info", f"\n{long_answer}\n\n??? info", 1))
    problems = check(site_copy)
    assert any(p.startswith(PAGE.format("en")) and "shows the fix alone: include only the 'fix' section" in p
               for p in problems)
    assert any(p.startswith(PAGE.format("zh")) and "below the first screen" in p for p in problems)


def test_check_rejects_an_unfilled_scaffold_placeholder(site_copy):
    en = site_copy / PAGE.format("en")
    en.write_text(en.read_text().replace("## Symptom { #symptom }", "The proof lives in `{proof}`.\n\n## Symptom { #symptom }", 1))
    problems = check(site_copy)
    assert any(p.startswith(PAGE.format("en")) and "unfilled scaffold placeholder '{proof}'" in p for p in problems)


def test_a_new_entry_names_its_proof(site_copy):
    written = new("new-topic/my-question", site_copy)
    for page in written[:4]:
        assert "{" + "proof}" not in (site_copy / page).read_text()
    assert not [p for p in check(site_copy) if "unfilled scaffold placeholder" in p]


def test_check_holds_the_readers_file_to_torch_and_triton(site_copy):
    snippet = site_copy / "snippets/garbage_values/masked_load_without_other.py"
    snippet.write_text(snippet.read_text().replace("import triton\n", "import triton\nimport triton_faq\n", 1)
                       + "\ndef test_inside():\n    assert True\n")
    problems = check(site_copy)
    assert any("the reader's file imports triton_faq" in p for p in problems)
    assert any("tests belong in tests/entries/garbage_values/test_masked_load_without_other.py" in p for p in problems)


def test_check_refuses_a_bare_depends_verdict(site_copy):
    zh = site_copy / PAGE.format("zh")
    zh.write_text(zh.read_text().replace('??? quote "成立：“mask 位默认填 0”"', '??? quote "取决于：“mask 位默认填 0”"', 1))
    assert any("'取决于' says on what" in p for p in check(site_copy))


def test_the_command_exits_1_with_one_line_on_a_bad_name():
    result = subprocess.run([sys.executable, "-m", "triton_faq", "new", "Bad Name"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_check_wants_the_english_beside_a_terms_first_use(site_copy):
    zh = site_copy / PAGE.format("zh")
    zh.write_text(zh.read_text().replace("给带掩码（mask）的", "给带掩码的", 1))
    problems = check(site_copy)
    assert any(p.startswith(PAGE.format("zh")) and "first use of '掩码' gives the English: '掩码（mask）'" in p
               for p in problems)
