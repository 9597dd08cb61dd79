"""How well `triton-faq explain` and the site's search find the entry that answers real reports.

    python tooling/retrieval_scores.py                    # explain only, both sets, a summary
    python tooling/retrieval_scores.py --site DIR         # also the built site in DIR, in chromium
    python tooling/retrieval_scores.py --out FILE.json    # the numbers and every report's result

Four sets:

- development: tests/data/real_messages.yaml (pasted messages) and tests/search_questions.json
  (everyday questions), written alongside the entries;
- tuning: tests/data/tuning_reports/reports.yaml, real reports collected and judged by its RULE.md
  before they were scored, and tuned on openly;
- frozen: tests/data/frozen_reports/reports.yaml, collected and judged by its RULE.md before any
  ranking change and never tuned on;
- heldout: tests/data/heldout_reports/reports.yaml, collected by its RULE.md blind to the ranking,
  judged afterwards against the entries of a named commit, and never tuned on.

For each report answered by an entry: top-1 and top-3 (the answering entry, or one listed under
``also``, first / among the first three), overall, per kind (message, symptom, install) and per
language. For every report, answered or not: a confident wrong answer is `explain` printing one
entry alone that does not answer it. The site's search is asked in the report's language, as
typing the text into the search box does (line breaks become spaces); its top three pages are
mapped to their entries.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from triton_faq import handbook, ui_text  # noqa: E402
from triton_faq.explain import ExplainError, candidates, explain  # noqa: E402
from triton_faq.retrieval import language_of  # noqa: E402

SITE = handbook.load_site(ROOT)
CONFIDENT = re.compile(r"^(TP\d{3}) · ")
# the header of the list of a generic message's other causes (absent from releases without the list)
CAUSES = [ui_text.STRINGS[language].get("explain.causes", "\0") for language in SITE.languages]


def development() -> list[dict]:
    items = []
    for item in yaml.safe_load((ROOT / "tests/data/real_messages.yaml").read_text(encoding="utf-8")):
        items.append({"set": "dev-messages", "text": item["message"], "lang": language_of(item["message"], ROOT),
                      "kind": "message", "answers": [item["entry"]] if item["entry"] else [], "url": item["url"]})
    by_page = {entry.name + "/": entry.id for entry in handbook.load(ROOT).entries}
    questions = json.loads((ROOT / "tests/search_questions.json").read_text(encoding="utf-8"))
    for language in SITE.languages:
        for query, pages in questions[language]:
            answers = [by_page[page] for page in pages if page in by_page]
            items.append({"set": "dev-questions", "text": query, "lang": language, "kind": "question",
                          "answers": answers, "url": None})
    return items


def reports(name: str) -> list[dict]:
    """A set of real reports (tests/data/<name>_reports/reports.yaml) as items."""
    items = []
    for item in yaml.safe_load((ROOT / f"tests/data/{name}_reports/reports.yaml").read_text(encoding="utf-8")):
        answers = [] if item["entry"] == "none" else [item["entry"], *item.get("also", [])]
        items.append({"set": name, "text": item["text"], "lang": item["lang"], "kind": item["kind"],
                      "answers": answers, "url": item["url"]})
    return items


def run_explain(item: dict) -> dict:
    try:
        ranked = [match.entry.id for match in candidates(item["text"], ROOT)][:3]
    except ExplainError:
        ranked = []
    try:
        printed = explain(item["text"], item["lang"], ROOT)
    except ExplainError:
        printed = ""
    # one entry printed alone: an entry first, and no list of the other causes of its message
    single = CONFIDENT.match(printed) if not any(header in printed for header in CAUSES) else None
    return {"top3": ranked, "confident": single.group(1) if single else None}


def run_site(items: list[dict], site_dir: Path) -> list[list[str]]:
    """Each item's top-3 entries from the built site's search, in its language, in chromium."""
    import importlib.util
    import socket
    import subprocess

    spec = importlib.util.spec_from_file_location("suite_fixtures", ROOT / "tests" / "conftest.py")
    fixtures = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT))
    spec.loader.exec_module(fixtures)
    from playwright.sync_api import sync_playwright

    by_page = {entry.name + "/": entry.id for entry in handbook.load(ROOT).entries}
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(site_dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    site = f"http://127.0.0.1:{port}/"
    results: list[list[str]] = [[] for _ in items]
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=fixtures.CHROMIUM, args=fixtures.ARGS)
            for language in SITE.languages:
                page = browser.new_page()
                page.add_init_script(fixtures.KEEP_WORKERS)
                page.goto(site + SITE.url_path("index", language))
                page.click("label.md-search__icon, .md-search__input")
                indices = [i for i, item in enumerate(items) if item["lang"] == language]
                queries = [" ".join(items[i]["text"].split()) for i in indices]
                prefix = site + SITE.url_path("index", language)
                for i, hits in zip(indices, fixtures.search_through_a_worker(page, queries)):
                    found = []
                    for hit in hits:
                        entry = by_page.get(hit[len(prefix):]) if hit.startswith(prefix) else None
                        if entry and entry not in found:
                            found.append(entry)
                    results[i] = found[:3]
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    return results


def rates(items: list[dict], field: str) -> dict:
    """top-1 / top-3 over answered items, overall and per kind and language; confident wrong over all."""
    groups = defaultdict(list)
    for item in items:
        if item["answers"]:
            for key in ("all", f"kind:{item['kind']}", f"lang:{item['lang']}"):
                groups[key].append(item)
    out = {}
    for key, group in sorted(groups.items()):
        top1 = sum(bool(item[field]["top3"][:1]) and item[field]["top3"][0] in item["answers"] for item in group)
        top3 = sum(bool(set(item[field]["top3"][:3]) & set(item["answers"])) for item in group)
        out[key] = {"n": len(group), "top1": top1, "top3": top3,
                    "top1_rate": round(top1 / len(group), 3), "top3_rate": round(top3 / len(group), 3)}
    if field == "explain":
        wrong = [item for item in items if item[field]["confident"] and item[field]["confident"] not in item["answers"]]
        out["confident"] = sum(bool(item[field]["confident"]) for item in items)
        out["confident_wrong"] = len(wrong)
        out["confident_wrong_items"] = [(item["url"] or item["text"][:60], item[field]["confident"]) for item in wrong]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (mkdocs build -d DIR) to measure its search too")
    parser.add_argument("--out", type=Path, help="write the numbers and every report's result here (JSON)")
    parser.add_argument("--only", choices=("development", "tuning", "frozen", "heldout"), action="append",
                        help="measure this set only (may be given more than once)")
    args = parser.parse_args(argv)
    sets = {name: development() if name == "development" else reports(name)
            for name in ("development", "tuning", "frozen", "heldout") if not args.only or name in args.only}
    for items in sets.values():
        for item in items:
            item["explain"] = run_explain(item)
    if args.site:
        for items in sets.values():
            for item, found in zip(items, run_site(items, args.site)):
                item["site"] = {"top3": found}
    summary = {name: {"explain": rates(items, "explain"), **({"site": rates(items, "site")} if args.site else {})}
               for name, items in sets.items()}
    for name, tools in summary.items():
        for tool, numbers in tools.items():
            line = ", ".join(f"{key} {v['top1']}/{v['n']} top-1, {v['top3']}/{v['n']} top-3"
                             for key, v in numbers.items() if isinstance(v, dict))
            extra = (f"; confident {numbers['confident']}, confident and wrong {numbers['confident_wrong']}"
                     if "confident" in numbers else "")
            print(f"{name} / {tool}: {line}{extra}")
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "items": sets}, ensure_ascii=False, indent=1) + "\n",
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
