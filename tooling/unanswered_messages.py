"""Triton's messages that real users paste and no entry explains, most-reported first: the next entries.

    python tooling/unanswered_messages.py            # the development and tuning sets
    python tooling/unanswered_messages.py --top 20

Each real report (tests/data/real_messages.yaml, tests/data/tuning_reports/reports.yaml) is given to
explain; a message of Triton's catalogue that explain reports as having no entry (``Answer.known``:
what raises it, where, in which releases) counts once per thread that pastes it. The frozen set is left out: it measures, it does
not choose what to write.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triton_faq import explain  # noqa: E402


def reports() -> list[tuple[str, str]]:
    """(thread, text) of every real report the ranking may be chosen on."""
    found = [(item["url"], item["message"])
             for item in yaml.safe_load((ROOT / "tests/data/real_messages.yaml").read_text(encoding="utf-8"))]
    found += [(item["url"], item["text"]) for item in
              yaml.safe_load((ROOT / "tests/data/tuning_reports/reports.yaml").read_text(encoding="utf-8"))]
    return found


def unanswered(items: list[tuple[str, str]]) -> list[tuple[str, dict, set[str]]]:
    """(message, its description, the threads that paste it), most threads first: the messages explain
    itself reports as Triton's with no entry (``Answer.known``), left out where the text also matches an
    entry's fingerprint or a message several causes print (explain answers those through the entries)."""
    threads: dict[str, set[str]] = defaultdict(set)
    described: dict[str, dict] = {}
    for url, text in items:
        try:
            found = explain.answer(text, ROOT)
        except explain.ExplainError:
            found = None
        known = explain.known_unanswered(text, ROOT) if found is None else found.known
        if known is None or (found is not None and found.group is not None):
            continue
        threads[known["template"]].add(url)
        described.setdefault(known["template"], known)
    return sorted(((key, described[key], urls) for key, urls in threads.items()),
                  key=lambda row: (-len(row[2]), row[0]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="how many messages to list (default 10)")
    args = parser.parse_args(argv)
    items = reports()
    rows = unanswered(items)
    print(f"{len(items)} real reports; {len(rows)} messages of Triton's catalogue pasted with no entry")
    for key, known, urls in rows[: args.top]:
        where = f"{known['file']}:{known['line']}" if known.get("file") else known.get("kind", "")
        print(f"{len(urls):3d}  {' '.join(key.split())[:100]}  ({where}; {known['release_span']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
