"""``triton-faq lint``: a static checker whose rules are the handbook's entries.

Python files are read as source with :mod:`ast` (nothing is imported, no GPU, no Triton needed).
Each rule is named after the entry that explains its pitfall (``TP001`` is the entry TP001) and
exists only because that entry does. Each rule is a module of :mod:`triton_faq.lint.rules`, with the
code it must and must not report; all of them read one walk of the file (:mod:`.core`), which
follows a name to its assignment and knows which calls launch a kernel.

Rules that cannot decide statically say in their message what they assumed. The rules on by
default were measured on code they were not developed on (``data/lint/``); the others are opt-in
with ``--select``. Rules whose pitfall belongs to some Triton releases only apply when the target
release (``--triton-version``, ``TRITON_FAQ_TRITON_VERSION`` or ``[tool.triton-faq]
triton-version`` in pyproject.toml) has it; with no target, the newest release is assumed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Iterable, Iterator

from .. import handbook
from .core import read
from .model import Finding, Rule
from .rules import CASES, CHECKS, DEFAULT, RULES

__all__ = ["RULES", "DEFAULT", "CASES", "Finding", "Rule", "lint_source", "lint_paths", "choose", "sarif",
           "add_arguments", "run", "parse_version", "target_version"]

VERSION_VARIABLE = "TRITON_FAQ_TRITON_VERSION"


def tool_version() -> str:
    try:
        from importlib.metadata import version

        return version("triton-faq")
    except Exception:  # not installed (run from a checkout)
        return "0.1.0"


# ---------------------------------------------------------------- driver

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def noqa_lines(source: str) -> dict[int, set[str] | None]:
    """{line: codes silenced there, or None for a bare ``# noqa``}."""
    found: dict[int, set[str] | None] = {}
    if "noqa" not in source:
        return found
    for number, line in enumerate(source.splitlines(), 1):
        if "noqa" not in line:
            continue
        comment = _comment(line)
        match = NOQA.search(comment) if comment else None
        if match:
            codes = match["codes"]
            found[number] = None if not codes else {c.upper() for c in re.split(r"[\s,]+", codes) if c}
    return found


def _comment(line: str) -> str:
    """The comment that ends a line of code, if any (a '#' outside string quotes)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[index:]
    return ""


def parse_version(text: str) -> tuple[int, int]:
    """'3.6' or '3.6.0' -> (3, 6); ValueError with a clear message otherwise."""
    match = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)?\s*", str(text))
    if not match:
        raise ValueError(f"not a Triton release: {text!r} (write it as 3.6)")
    return int(match[1]), int(match[2])


def target_version(given: str | None, start: Path | None = None) -> tuple[int, int] | None:
    """The Triton release to lint for: ``given``, else $TRITON_FAQ_TRITON_VERSION, else ``triton-version``
    under ``[tool.triton-faq]`` of the nearest pyproject.toml above ``start``; None (the newest) if none."""
    if given:
        return parse_version(given)
    if os.environ.get(VERSION_VARIABLE):
        return parse_version(os.environ[VERSION_VARIABLE])
    folder = (start or Path.cwd()).resolve()
    for candidate in [folder, *folder.parents]:
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                import tomllib
            except ImportError:  # Python 3.10
                return None
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise ValueError(f"{pyproject}: not read: {error}") from None
            value = data.get("tool", {}).get("triton-faq", {}).get("triton-version")
            return parse_version(value) if value is not None else None
    return None


def lint_source(source: str, path: str = "<string>", select: Iterable[str] | None = None, *,
                triton_version: tuple[int, int] | None = None) -> list[Finding]:
    """The findings in one file's source (its host code and its kernels). ``select``: rule IDs (default:
    the rules on by default). ``triton_version``: the target release; rules whose pitfall it does not
    have are skipped."""
    chosen = [r for r in RULES if r in set(DEFAULT if select is None else select)
              and RULES[r].applies_to(triton_version)]
    facts = read(source, path, triton_version)
    silenced = noqa_lines(source)
    findings: list[Finding] = []
    for rule_id in chosen:
        seen: set[tuple[int, int]] = set()
        found = []
        for node, message in CHECKS[rule_id](facts):
            key = (node.lineno, node.col_offset)
            if key in seen:
                continue
            seen.add(key)
            codes = silenced.get(node.lineno, set())
            if node.lineno in silenced and (codes is None or rule_id in codes):
                continue
            found.append(Finding(path, node.lineno, node.col_offset + 1, rule_id, message))
        if RULES[rule_id].once_per_file and len(found) > 1:
            found.sort(key=lambda f: (f.line, f.col))
            first = found[0]
            found = [Finding(first.path, first.line, first.col, rule_id,
                             f"{first.message} ({len(found) - 1} more in this file)")]
        findings += found
    return sorted(findings, key=lambda f: (f.line, f.col, f.rule))


SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".nox", "build", "dist"}


def python_files(paths: Iterable[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for file in sorted(files):
                    if file.endswith(".py"):
                        yield Path(folder) / file
        else:
            yield path


def lint_paths(paths: Iterable[str], select: Iterable[str] | None = None,
               triton_version: tuple[int, int] | None = None) -> tuple[list[Finding], list[str]]:
    """Findings in every Python file under ``paths``, and the files that could not be read or parsed."""
    findings, errors = [], []
    for file in python_files(paths):
        try:
            source = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            errors.append(f"{file}: not read: {error}")
            continue
        if "triton" not in source and "tl." not in source and "time" not in source:
            continue  # nothing any rule looks at
        try:
            findings += lint_source(source, str(file), select, triton_version=triton_version)
        except SyntaxError as error:
            errors.append(f"{file}:{error.lineno or 0}:{error.offset or 0}: not linted: {error.msg}")
        except RecursionError:
            errors.append(f"{file}: not linted: nested too deeply")
        except Exception as error:  # a rule's own bug: the other files are still linted, and the file is named
            errors.append(f"{file}: not linted: the linter failed ({type(error).__name__}: {error}); please report it "
                          f"with this file")
    return findings, errors


def choose(select: str | None, ignore: str | None) -> list[str]:
    def split(text: str | None) -> list[str]:
        return [part.strip().upper() for part in (text or "").split(",") if part.strip()]

    chosen = list(DEFAULT)
    picked = split(select)
    if picked:
        chosen = [rule for rule in RULES if rule in picked or "ALL" in picked or any(
            rule.startswith(p) for p in picked if p != "ALL")]
    unknown = [p for p in picked + split(ignore) if p != "ALL" and not any(r.startswith(p) for r in RULES)]
    if unknown:
        raise ValueError(f"no such rule: {', '.join(unknown)} (rules: {', '.join(RULES)})")
    ignored = split(ignore)
    return [rule for rule in chosen if not any(rule.startswith(p) for p in ignored)]


def sarif(findings: list[Finding], rules: list[str]) -> dict:
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "triton-faq lint",
                "version": tool_version(),
                "informationUri": handbook.load_site(handbook.ROOT).url_of("lint"),
                "rules": [{"id": r, "name": RULES[r].page.rsplit("/", 1)[-1],
                           "shortDescription": {"text": RULES[r].summary},
                           "helpUri": RULES[r].url(),
                           "defaultConfiguration": {"level": "warning", "enabled": RULES[r].default}}
                          for r in rules],
            }},
            "results": [{
                "ruleId": f.rule,
                "ruleIndex": rules.index(f.rule),
                "level": "warning",
                "message": {"text": f"{f.message} ({f.url})"},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": Path(f.path).as_posix()},
                    "region": {"startLine": f.line, "startColumn": f.col}}}],
            } for f in findings],
        }],
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="Python files or folders to check")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format")
    parser.add_argument("--select", help="comma-separated rule IDs (or prefixes, or ALL) to run instead of the "
                                         "defaults, e.g. --select ALL or --select TP003,TP024")
    parser.add_argument("--ignore", help="comma-separated rule IDs to skip")
    parser.add_argument("--triton-version", metavar="X.Y",
                        help=f"the Triton release the code runs on (default: ${VERSION_VARIABLE}, else "
                             "[tool.triton-faq] triton-version in pyproject.toml, else the newest): rules whose "
                             "pitfall that release does not have are skipped")
    parser.add_argument("--exit-zero", action="store_true", help="exit with status 0 even when there are findings")
    parser.add_argument("--list", action="store_true", help="list the rules and exit")


def run(args: argparse.Namespace) -> int:
    if args.list:
        for rule in RULES.values():
            since = f" (Triton >= {rule.since[0]}.{rule.since[1]})" if rule.since else ""
            print(f"{rule.id}  {'on ' if rule.default else 'opt'}  {rule.summary}{since}  [{rule.url()}]")
        return 0
    try:
        rules = choose(args.select, args.ignore)
        version = target_version(getattr(args, "triton_version", None))
    except ValueError as error:
        print(f"triton-faq lint: {error}", file=sys.stderr)
        return 2
    if not args.paths:
        print("triton-faq lint: name at least one file or folder", file=sys.stderr)
        return 2
    findings, errors = lint_paths(args.paths, rules, version)
    for error in errors:
        print(f"triton-faq lint: {error}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps([dict(asdict(f), url=f.url) for f in findings], indent=1))
    elif args.format == "sarif":
        print(json.dumps(sarif(findings, rules), indent=1))
    else:
        for finding in findings:
            print(finding.text())
    return 1 if findings and not getattr(args, "exit_zero", False) else 0
