"""The lint's measured precision, read from the judgement files of ``data/lint/`` (each finding of the
default rules on a corpus, judged by hand: true, harmless or false). The rules page renders this;
nothing here is typed by hand."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "lint"
VERDICTS = ("true", "harmless", "false")
STAGES = (("test", "before"), ("test", "after"), ("dev", "before"), ("dev", "after"))


def judgements(corpus: str, stage: str, data: Path = DATA) -> list[dict[str, str]]:
    """The rows of ``judged-<corpus>-<stage>.tsv``: file, line, col, rule, verdict, reason."""
    path = data / f"judged-{corpus}-{stage}.tsv"
    rows = []
    with path.open(encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    for row in csv.DictReader(lines, delimiter="\t"):
        if row["verdict"] not in VERDICTS:
            raise ValueError(f"{path}: {row['file']}:{row['line']}: verdict {row['verdict']!r} is not one of "
                             f"{', '.join(VERDICTS)}")
        rows.append(row)
    return rows


def per_rule(corpus: str, stage: str, data: Path = DATA) -> dict[str, Counter]:
    """{rule: Counter(verdict -> findings)} on one corpus at one stage."""
    found: dict[str, Counter] = {}
    for row in judgements(corpus, stage, data):
        found.setdefault(row["rule"], Counter())[row["verdict"]] += 1
    return dict(sorted(found.items()))


def precision(counts: Counter) -> float | None:
    """The share of findings that are true or true but harmless; None when there are none."""
    total = sum(counts.values())
    return None if total == 0 else (counts["true"] + counts["harmless"]) / total


def table() -> dict[str, dict[tuple[str, str], Counter]]:
    """{rule: {(corpus, stage): Counter}} over every judgement file, rules in order."""
    rules: dict[str, dict[tuple[str, str], Counter]] = {}
    for corpus, stage in STAGES:
        for rule, counts in per_rule(corpus, stage).items():
            rules.setdefault(rule, {})[(corpus, stage)] = counts
    return dict(sorted(rules.items()))
