"""The Triton version matrix: every snippet's interpreter tests against each Triton release.

``triton-faq matrix`` (``make matrix``) installs each Triton release from 3.2 to the newest on
PyPI into its own folder under ``.cache/matrix`` (no other package changes: the folder is put
first on ``PYTHONPATH``), runs the snippets' tests and the checked interpreter's tests on
Triton's interpreter, and records per test on which versions it passed in
``data/version-matrix.json``, with provenance. Pages render it ("holds on 3.2–3.9"). A test that
checks the snippet hashes fails when a snippet changed since its row was recorded.

Nothing is written unless every version ran; a failed run leaves the previous data intact.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from . import handbook, ui_text
from .bench import write_atomically
from .code_hash import proof_hash
from .handbook import ROOT
from .fetch import FetchError, fetched_once

DATA = Path("data") / "version-matrix.json"
CACHE = Path(".cache") / "matrix"
CHECKER_FILES = (Path("triton_checked") / "checker.py", Path("triton_checked") / "views.py",
                 Path("triton_checked") / "races.py", Path("triton_checked") / "tests" / "test_checked.py")
OLDEST = (3, 2)
COMMAND = "triton-faq matrix"


class MatrixError(RuntimeError):
    """The matrix cannot run; the message says why and what to do."""


def _key(version: str) -> tuple:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def releases_on_pypi(timeout: float = 30) -> list[str]:
    """The newest patch of every Triton minor release from 3.2 that has a wheel for this Python."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    try:
        with urllib.request.urlopen("https://pypi.org/pypi/triton/json", timeout=timeout) as response:
            releases = json.load(response)["releases"]
    except (OSError, ValueError, KeyError) as error:
        raise MatrixError(f"cannot list Triton releases on PyPI ({error}); "
                          f"name them instead: {COMMAND} --versions 3.2.0,3.3.1,...") from None
    newest: dict[tuple, str] = {}
    for version, files in releases.items():
        if not re.fullmatch(r"\d+\.\d+\.\d+", version) or _key(version)[:2] < OLDEST:
            continue
        if not any(tag in f["filename"] and "x86_64" in f["filename"] for f in files):
            continue
        minor = _key(version)[:2]
        if minor not in newest or _key(version) > _key(newest[minor]):
            newest[minor] = version
    return [newest[minor] for minor in sorted(newest)]


def install(root: Path, version: str) -> Path:
    """Triton ``version`` alone in .cache/matrix/triton-<version> (installed once, atomically)."""
    try:
        return fetched_once(root / CACHE / f"triton-{version}", lambda folder: [
            "install", "--quiet", "--no-deps", "--target", str(folder), f"triton=={version}"], timeout=1800)
    except FetchError as error:
        raise MatrixError(f"cannot install triton=={version}: {error}") from None


def run_tests(root: Path, version: str, target: Path, paths: list[str]) -> dict:
    """Run ``paths`` on the interpreter with Triton from ``target``; the plugin's report."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(root)]),
               "TRITON_FAQ_BACKEND": "interpreter", "PYTHONDONTWRITEBYTECODE": "1",
               "TRITON_FAQ_SLOW": "1"}  # every claim on every release, the slow ones too
        env.pop("TRITON_FAQ_CHECKED", None)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "triton_faq.matrix_plugin",
                   "--continue-on-collection-errors", f"--matrix-report={report}", "-m", "not gpu", *paths]
        result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        if not report.is_file():
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-5:])
            raise MatrixError(f"the tests did not run with triton {version}:\n{tail}")
        data = json.loads(report.read_text())
    if data["triton"] != version:
        raise MatrixError(f"asked for triton {version} but the tests imported triton {data['triton']}")
    return data


def _claim(nodeid: str) -> tuple[str, str]:
    """(file, test function) of a pytest node id; parameters are folded into the function."""
    path, _, name = nodeid.partition("::")
    return path, name.split("[", 1)[0]


def _fold(outcomes: dict[str, str]) -> dict[str, dict[str, str]]:
    """Per file, per test function: failed if any parameter failed, passed if any passed, else skipped."""
    folded: dict[str, dict[str, str]] = {}
    for nodeid, outcome in outcomes.items():
        path, name = _claim(nodeid)
        current = folded.setdefault(path, {}).get(name)
        rank = {"failed": 2, "passed": 1, "skipped": 0}
        if current is None or rank[outcome] > rank[current]:
            folded[path][name] = outcome
    return folded


def run(root: Path = ROOT, versions: list[str] | None = None, only: str | None = None) -> int:
    started = time.monotonic()
    entries = handbook.load(root).entries
    checker_only = only == "checker"  # the checked interpreter's tests alone
    if checker_only:
        entries = []
    elif only:
        entry = handbook.load(root).find(only)
        if entry is None:
            print(f"triton-faq matrix: no entry {only!r}", file=sys.stderr)
            return 1
        entries = [entry]
    try:
        versions = versions or releases_on_pypi()
        if not versions:
            raise MatrixError("no Triton release from 3.2 on has a wheel for this Python")
        paths = [entry.proof.as_posix() for entry in entries]
        if not only or checker_only:
            paths.append(CHECKER_FILES[-1].as_posix())
        results, walls, collect_errors = {}, {}, {}
        for version in versions:
            print(f"triton {version}: installing", flush=True)
            target = install(root, version)
            print(f"triton {version}: running {len(paths)} test files on the interpreter", flush=True)
            began = time.monotonic()
            report = run_tests(root, version, target, paths)
            walls[version] = round(time.monotonic() - began, 1)
            results[version] = _fold(report["outcomes"])
            collect_errors[version] = report["collect_errors"]
            counts = {k: sum(1 for o in report["outcomes"].values() if o == k) for k in ("passed", "failed", "skipped")}
            print(f"triton {version}: {counts['passed']} passed, {counts['failed']} failed, "
                  f"{counts['skipped']} skipped, {len(report['collect_errors'])} files did not import "
                  f"({walls[version]} s)", flush=True)
    except MatrixError as error:
        print(f"triton-faq matrix: {error}\nnothing was written", file=sys.stderr)
        return 1
    path = root / DATA
    data = json.loads(path.read_text()) if path.is_file() else {"entries": {}}
    if only is None or data.get("versions") != versions:
        if only is not None:
            print(f"triton-faq matrix: the recorded versions differ from {versions}; run all entries",
                  file=sys.stderr)
            return 1
        data = {"entries": {}}
    for entry in entries:
        key = entry.proof.as_posix()
        tests = sorted({name for version in versions for name in results[version].get(key, {})})
        data["entries"][entry.id] = {
            "snippet": entry.snippet.as_posix(),
            "proof": key,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            "code_hash": proof_hash(root, entry),
            "import_errors": {v: collect_errors[v][key] for v in versions if key in collect_errors[v]},
            "tests": {name: {v: results[v].get(key, {}).get(name, "not collected") for v in versions}
                      for name in tests},
        }
    if not only or checker_only:
        key = CHECKER_FILES[-1].as_posix()
        data["checker"] = {
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            "code_hash": checker_hash(root),
            "tests": {name: {v: results[v].get(key, {}).get(name, "not collected") for v in versions}
                      for name in sorted({n for v in versions for n in results[v].get(key, {})})},
        }
    data["versions"] = versions
    data["generated_by"] = f"{COMMAND}; do not edit by hand"
    data["provenance"] = {
        "command": COMMAND + (f" --only {only}" if only else ""),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "backend": "interpreter (TRITON_INTERPRET=1, CPU tensors)",
        "python": platform.python_version(),
        "torch": _torch_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "wall_seconds": walls,
        "total_wall_seconds": round(time.monotonic() - started, 1),
    }
    write_atomically(path, data)
    print(f"wrote {DATA} ({len(entries)} entries x {len(versions)} versions) "
          f"in {data['provenance']['total_wall_seconds']} s")
    return 0


def checker_hash(root: Path) -> str:
    import hashlib

    return hashlib.sha256(b"".join((root / path).read_bytes() for path in CHECKER_FILES)).hexdigest()


def _torch_version() -> str:
    from importlib.metadata import version

    return version("torch")


def read(root: Path = ROOT) -> dict | None:
    path = root / DATA
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def stale(root: Path = ROOT) -> list[str]:
    """One line per entry whose snippet changed since the matrix recorded it.

    An entry the matrix has not run yet is not stale: its page says so and names the command.
    """
    data = read(root)
    problems = []
    recorded = (data or {}).get("entries", {})
    for entry in handbook.load(root).entries:
        row = recorded.get(entry.id)
        if row is None:
            continue  # a new entry: its page says it has not been run on other versions yet
        if row["code_hash"] != proof_hash(root, entry):
            problems.append(f"{entry.id} ({entry.snippet}) changed since {DATA} was recorded: "
                            f"run `{COMMAND} --only {entry.id}`")
    if data is not None and data.get("checker", {}).get("code_hash") != checker_hash(root):
        problems.append(f"the checked interpreter changed since {DATA} was recorded: run `{COMMAND}`")
    return problems


# -- what a claim's row says -----------------------------------------------------------------------

def _span(versions: list[str]) -> str:
    short = [".".join(v.split(".")[:2]) for v in versions]
    return short[0] if len(short) == 1 else f"{short[0]}–{short[-1]}"


def spans(versions: list[str], chosen: set[str]) -> str:
    """The releases of ``versions`` whose minor release (3.2) is in ``chosen``, as ranges: "3.2–3.3", "3.2, 3.5"."""
    picked = [".".join(v.split(".")[:2]) in chosen for v in versions]
    return ", ".join(_span(run) for ok, run in _runs(versions, picked) if ok)


def _runs(versions: list[str], held: list[bool]) -> list[tuple[bool, list[str]]]:
    runs: list[tuple[bool, list[str]]] = []
    for version, ok in zip(versions, held):
        if runs and runs[-1][0] == ok:
            runs[-1][1].append(version)
        else:
            runs.append((ok, [version]))
    return runs


def verdict(row: dict[str, str], versions: list[str], language: str) -> tuple[str, bool]:
    """(the sentence for one test's row, whether it differs between versions)."""
    def text(key, **values):
        return ui_text.text(language, f"matrix.verdict.{key}", **values)

    ran = [v for v in versions if row.get(v) in ("passed", "failed", "not collected")]
    if not ran:
        return text("skipped"), False
    held = [row.get(v) == "passed" for v in ran]
    if all(held):
        return text("all", span=_span(ran)), False
    if not any(held):
        return text("none", span=_span(ran)), False
    runs = _runs(ran, held)
    if len(runs) == 2 and runs[1][0]:
        return text("since", first=_span(runs[1][1][:1]), span=_span(runs[1][1])), True
    if len(runs) == 2 and runs[0][0]:
        return text("until", next=_span(runs[1][1][:1]), span=_span(runs[0][1])), True
    held_versions = ", ".join(_span(r[1]) for r in runs if r[0])
    other = ", ".join(_span(r[1]) for r in runs if not r[0])
    return text("mixed", held=held_versions, other=other), True
