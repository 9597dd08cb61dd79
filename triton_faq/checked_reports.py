"""Reports of ``triton_faq.checked()`` shown on pages, produced by running the entry's proof.

A page marker ``<!-- checked-report: FUNCTION -->`` names a function of the entry's proof that
runs its pitfall under ``checked()`` and returns the report text. The function runs in a fresh
interpreter process (the checks patch Triton's interpreter), from the repository root so the
paths in the report are the snippet's. Results are cached under ``.cache/checked-reports`` by
the hash of the snippet, the checker and the Triton version, so rebuilding costs nothing.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from .handbook import ROOT

CACHE = ROOT / ".cache" / "checked-reports"
RUNNER = Path(__file__).with_name("children") / "checked_report.py"


class ReportError(RuntimeError):
    """The snippet function did not produce a report."""


def _triton_version() -> str:
    from importlib.metadata import version

    return version("triton")


def report(snippet: str, function: str, root: Path = ROOT, uses: tuple[str, ...] = ()) -> str:
    """The report text ``function`` of ``snippet`` (a path relative to the root) returns.

    ``uses`` names files the function's file imports (an entry's proof imports its reader's file),
    so a change to them refreshes the cached report.
    """
    path = root / snippet
    if not path.is_file():
        raise ReportError(f"{snippet} does not exist")
    checker = b"".join(path.read_bytes() for path in sorted((root / "triton_checked").glob("*.py")))
    used = b"".join((root / name).read_bytes() for name in uses if (root / name).is_file())
    key = hashlib.sha256(path.read_bytes() + used + checker + function.encode() + _triton_version().encode()).hexdigest()[:24]
    cached = CACHE / f"{key}.txt"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    env = {**os.environ, "TRITON_FAQ_BACKEND": "interpreter", "PYTHONPATH": str(root)}
    env.pop("TRITON_FAQ_CHECKED", None)
    result = subprocess.run([sys.executable, str(RUNNER), snippet, function], cwd=root, env=env,
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ReportError(f"{snippet}:{function}() did not return a report: {last}")
    CACHE.mkdir(parents=True, exist_ok=True)
    temporary = cached.with_suffix(".tmp")
    temporary.write_text(result.stdout, encoding="utf-8")
    temporary.replace(cached)
    return result.stdout
