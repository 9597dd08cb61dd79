"""Recall and precision of `triton-faq lint` on kernels written for it: tests/data/lint_recall_buggy.py
(one pitfall each, the expected rule on the line, `# expect: TPnnn`) and lint_recall_correct.py (near
misses, all correct). Each rule also carries its own buggy and correct cases (``BAD`` / ``GOOD`` in its
module under triton_faq/lint/rules/)."""

import re
from collections import Counter
from pathlib import Path

import pytest

from triton_faq import lint

DATA = Path(__file__).parent / "data"
BUGGY = (DATA / "lint_recall_buggy.py").read_text(encoding="utf-8")
CORRECT = (DATA / "lint_recall_correct.py").read_text(encoding="utf-8")
HEURISTIC = {"TP024"}  # fires on every int32 offset product: only its expected lines are checked


def expected() -> Counter:
    found = Counter()
    for number, line in enumerate(BUGGY.splitlines(), 1):
        match = re.search(r"# expect: ((?:TP\d{3} ?)+)", line)
        if match:
            found.update((number, rule) for rule in match[1].split())
    return found


EXPECTED = expected()
FOUND = Counter((f.line, f.rule) for f in lint.lint_source(BUGGY, "lint_recall_buggy.py", list(lint.RULES)))


def test_the_recall_file_is_big_enough():
    kernels = len(re.findall(r"^# \d+\. ", BUGGY, re.MULTILINE))
    assert kernels >= 20 and len(re.findall(r"^# \d+\. ", CORRECT, re.MULTILINE)) >= 10
    assert set(lint.RULES) - {rule for _, rule in EXPECTED} == set(), "a rule with no buggy case"


@pytest.mark.parametrize("rule", sorted(lint.RULES))
def test_each_rule_finds_its_pitfalls_in_the_buggy_file(rule):
    want = Counter({key: n for key, n in EXPECTED.items() if key[1] == rule})
    got = Counter({key: n for key, n in FOUND.items() if key[1] == rule})
    assert want, f"{rule}: no buggy case"
    missed = want - got
    assert not missed, f"{rule} missed lines {sorted(line for line, _ in missed)}"
    if rule not in HEURISTIC:
        assert got == want, f"{rule} also reported lines {sorted(line for line, _ in got - want)}"


@pytest.mark.parametrize("rule", sorted(set(lint.RULES) - HEURISTIC))
def test_no_rule_reports_the_correct_file(rule):
    found = lint.lint_source(CORRECT, "lint_recall_correct.py", [rule])
    assert found == [], [f.text() for f in found]


@pytest.mark.parametrize("rule", sorted(lint.RULES))
def test_each_rule_module_flags_its_bad_cases_and_not_its_good_ones(rule):
    bad, good = lint.CASES[rule]
    assert bad and good
    prelude = "import time\nimport torch\nimport triton\nimport triton.language as tl\n"
    for case in bad:
        assert lint.lint_source(prelude + case, "bad.py", [rule]), f"{rule}: nothing found in\n{case}"
    for case in good:
        found = lint.lint_source(prelude + case, "good.py", [rule])
        assert found == [], [f.text() for f in found]
