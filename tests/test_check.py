"""`triton-faq check` and `triton-faq new`: every problem listed; a scaffold is never taken as done."""

import subprocess
import sys

import pytest

from conftest import ROOT
from triton_faq.check import check
from triton_faq.scaffold import ScaffoldError, new, next_id

PAGE = "docs/{}/garbage-values/masked-load-without-other.md"


def test_every_entry_passes_check():
    assert check(ROOT) == []


def test_a_scaffolded_entry_fails_check_with_what_is_missing(site_copy):
    written = new("new-topic/my-question", site_copy)
    assert [str(p) for p in written] == [
        "docs/en/new-topic/index.md", "docs/en/new-topic/my-question.md",
        "docs/zh/new-topic/index.md", "docs/zh/new-topic/my-question.md", "snippets/new_topic/my_question.py"]
    problems = check(site_copy)
    for path in written:
        assert any(p.startswith(f"{path}:") and "unfinished (TODO(new entry))" in p for p in problems), path
    assert f"id: {next_id(ROOT)}" in (site_copy / written[1]).read_text()


def test_the_scaffolded_tests_fail_until_written(site_copy):
    new("new-topic/my-question", site_copy)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "snippets/new_topic/my_question.py"], cwd=site_copy, capture_output=True, text=True)
    assert result.returncode == 1 and "2 failed" in result.stdout


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
    assert f"{PAGE.format('en')}:1: unknown front matter key 'severity' (allowed: id, title, description, snippet, errors)" in problems


def test_the_command_exits_1_with_one_line_on_a_bad_name():
    result = subprocess.run([sys.executable, "-m", "triton_faq", "new", "Bad Name"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
