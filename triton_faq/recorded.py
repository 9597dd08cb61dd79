"""What the site shows from runs, recorded in the repository, so building the site needs no torch.

Two things on the site come from running code: the outputs in each entry's notebook (the reader's
file run on Triton's interpreter, :func:`download.run_alone`) and the checked interpreter's reports
(``<!-- checked-report: FUNCTION -->``, :func:`checked_reports.report`). ``triton-faq record`` runs
them and writes ``data/recorded-runs.json``, each result with the hash of the bytes it came from
(the reader's file; the proof, what it imports and the checked interpreter's sources). The site build
reads a result from there while its hash is current, and only runs the code when it is not (which
needs torch and triton); ``make test`` fails while any recorded result is stale, naming the command.
So ``make serve`` needs the docs stack only (requirements-docs.txt).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from . import handbook

RECORDED = Path("data") / "recorded-runs.json"
COMMAND = "triton-faq record"
HEADER = {"generated_by": f"{COMMAND}; do not edit by hand"}


def _hash(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def reader_hash(root: Path, snippet: str) -> str:
    return _hash((root / snippet).read_bytes())


def report_hash(root: Path, proof: str, function: str, uses: tuple[str, ...] = ()) -> str:
    checker = [(path.name.encode(), path.read_bytes()) for path in sorted((root / "triton_checked").glob("*.py"))]
    used = [(root / name).read_bytes() for name in uses if (root / name).is_file()]
    return _hash((root / proof).read_bytes(), *used, *(b for pair in checker for b in pair), function.encode())


def load(root: Path) -> dict:
    path = root / RECORDED
    if not path.is_file():
        return {**HEADER, "reader_runs": {}, "checked_reports": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def reader_outputs(root: Path, snippet: str) -> list[dict] | None:
    """The recorded outputs of the reader's file ``snippet``, or None if none or stale."""
    found = load(root)["reader_runs"].get(snippet)
    return found["outputs"] if found and found["hash"] == reader_hash(root, snippet) else None


def checked_report(root: Path, proof: str, function: str, uses: tuple[str, ...] = ()) -> str | None:
    """The recorded report of ``proof``'s ``function``, or None if none or stale."""
    found = load(root)["checked_reports"].get(f"{proof}:{function}")
    return found["report"] if found and found["hash"] == report_hash(root, proof, function, uses) else None


def wanted_reports(root: Path) -> list[tuple[str, str, tuple[str, ...]]]:
    """(proof, function, the files it imports) for every checked-report marker of every page."""
    from .handbook.schema import marker

    book, wanted = handbook.load(root), []
    pattern = marker("checked-report")
    for entry in book.entries:
        for view in entry.views():
            for match in pattern.finditer(view.path.read_text(encoding="utf-8")):
                item = (entry.proof.as_posix(), match["argument"], (entry.snippet.as_posix(),))
                if item not in wanted:
                    wanted.append(item)
    return wanted


def stale(root: Path) -> list[str]:
    """Every recorded result that is missing or no longer matches the code it came from."""
    problems = []
    for entry in handbook.load(root).entries:
        if reader_outputs(root, entry.snippet.as_posix()) is None:
            problems.append(f"{entry.snippet}: its recorded outputs are missing or stale")
    for proof, function, uses in wanted_reports(root):
        if checked_report(root, proof, function, uses) is None:
            problems.append(f"{proof}:{function}: its recorded checked report is missing or stale")
    return problems


def record(root: Path) -> Path:
    """Run everything the site shows from runs and write it to data/recorded-runs.json (needs torch)."""
    from . import checked_reports, download

    entries = handbook.load(root).entries
    runs = download.run_alone(root, [entry.snippet for entry in entries], "interpreter")
    data = {**HEADER, "reader_runs": {}, "checked_reports": {}}
    for entry in entries:
        snippet = entry.snippet.as_posix()
        data["reader_runs"][snippet] = {"hash": reader_hash(root, snippet), "outputs": runs[str(entry.snippet)]}
    for proof, function, uses in wanted_reports(root):
        data["checked_reports"][f"{proof}:{function}"] = {
            "hash": report_hash(root, proof, function, uses),
            "report": checked_reports.report(proof, function, root, uses)}
    path = root / RECORDED
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)
    return path
