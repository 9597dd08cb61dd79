"""The corpora that measure ``triton-faq lint``: extract them, lint them, score the judged findings.

    python tooling/lint_corpus.py extract [--git DIR]   # files of data/lint/corpus.json -> .cache/lint-corpus/
    python tooling/lint_corpus.py findings test         # the default rules' findings on a corpus, as TSV rows
    python tooling/lint_corpus.py score                 # precision per rule from the judgement files

``extract`` reads each repository at its pinned commit from ``DIR/<owner>+<name>`` (a clone or a bare
git directory) when there is one, otherwise clones it from GitHub into ``.cache/lint-corpus-git/``.
Judgement files (``data/lint/judged-<corpus>-<stage>.tsv``) hold one finding a line: file, line,
column, rule, verdict (``true``, ``harmless`` for true but harmless, ``false``) and the reason.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "data" / "lint" / "corpus.json"
CACHE = ROOT / ".cache" / "lint-corpus"
VERDICTS = ("true", "harmless", "false")


def corpus_dir(corpus: str) -> Path:
    return CACHE / corpus


def _git_dir(repo: str, given: Path | None) -> Path:
    name = repo.replace("/", "+")
    for candidate in ([given / name, given / name / "repo"] if given else []):
        if (candidate / ".git").exists() or (candidate / "HEAD").exists():
            return candidate
    clone = ROOT / ".cache" / "lint-corpus-git" / name
    if not clone.exists():
        subprocess.run(["git", "clone", "--quiet", "--filter=blob:none", "--no-checkout",
                        f"https://github.com/{repo}", str(clone)], check=True)
    return clone


def extract(given: Path | None) -> None:
    listing = json.loads(LIST.read_text(encoding="utf-8"))
    for corpus in ("test", "dev"):
        for item in listing[corpus]:
            into = corpus_dir(corpus) / item["repo"].replace("/", "+")
            if item["commit"] is None:  # this repository's own files, as they are now
                continue
            git = _git_dir(item["repo"], given)
            for path in item["paths"]:
                text = subprocess.run(["git", "-C", str(git), "show", f"{item['commit']}:{path}"], check=True,
                                      capture_output=True).stdout
                target = into / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text)
            print(f"{corpus}: {item['repo']}@{item['commit'][:12]}: {len(item['paths'])} files")


def paths_of(corpus: str) -> list[str]:
    listing = json.loads(LIST.read_text(encoding="utf-8"))
    found = []
    for item in listing[corpus]:
        if item["commit"] is None:
            found += [str(ROOT / p) for p in item["paths"]]
        else:
            found.append(str(corpus_dir(corpus) / item["repo"].replace("/", "+")))
    return found


def relative(path: str) -> str:
    resolved = Path(path).resolve()
    for base in (CACHE.resolve(), ROOT):
        try:
            rel = resolved.relative_to(base)
        except ValueError:
            continue
        parts = rel.parts
        return "/".join(parts[1:]) if base != ROOT else "triton-faq+triton-faq/" + "/".join(parts)
    return path


def findings(corpus: str, select=None) -> list[tuple[str, int, int, str, str]]:
    sys.path.insert(0, str(ROOT))
    from triton_faq import lint

    found, _ = lint.lint_paths(paths_of(corpus), select)
    return [(relative(f.path), f.line, f.col, f.rule, f.message) for f in found]


def read_judgements(path: Path) -> dict[tuple[str, int, int, str], tuple[str, str]]:
    judged = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if not row or row[0].startswith("#") or row[0] == "file":
                continue
            file, line, col, rule, verdict, reason = row[:6]
            if verdict not in VERDICTS:
                raise ValueError(f"{path}: {file}:{line}: verdict {verdict!r} is not one of {VERDICTS}")
            judged[(file, int(line), int(col), rule)] = (verdict, reason)
    return judged


def precision(judged: dict, keys) -> dict[str, Counter]:
    per_rule: dict[str, Counter] = defaultdict(Counter)
    for key in keys:
        per_rule[key[3]][judged[key][0]] += 1
    return dict(sorted(per_rule.items()))


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    if argv[0] == "extract":
        extract(Path(argv[2]) if len(argv) > 2 and argv[1] == "--git" else None)
    elif argv[0] == "findings":
        writer = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
        for row in findings(argv[1]):
            writer.writerow(row)
    elif argv[0] == "score":
        sys.path.insert(0, str(ROOT))
        from triton_faq.lint import measured

        stages = measured.STAGES
        print("rule   " + "  ".join(f"{c}-{s:<6}" for c, s in stages) + "   (true+harmless/all; true)")
        for rule, by_stage in measured.table().items():
            cells = []
            for stage in stages:
                counts = by_stage.get(stage)
                cells.append("-" if not counts else
                             f"{counts['true'] + counts['harmless']}/{sum(counts.values())};{counts['true']}")
            print(f"{rule}  " + "  ".join(f"{c:<11}" for c in cells))
    else:
        print(f"unknown command {argv[0]!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
