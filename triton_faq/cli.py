"""The ``triton-faq`` command."""

from __future__ import annotations

import argparse
import sys

from pathlib import Path



class NotACheckout(RuntimeError):
    """The working directory is not inside a checkout of the handbook."""


def find_root(start: Path | None = None) -> Path:
    """The handbook checkout that holds the working directory (as git and mkdocs find theirs)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file() and (folder / "docs" / "en").is_dir() and (folder / "snippets").is_dir():
            return folder
    raise NotACheckout(f"{here} is not inside a checkout of the handbook (no mkdocs.yml with docs/en and "
                       "snippets/ above it); run this from your clone")


def _root(command: str, announce: bool = False) -> Path:
    try:
        root = find_root()
    except NotACheckout as error:
        raise SystemExit(f"triton-faq {command}: {error}") from None
    if announce:
        print(f"triton-faq {command}: repository {root}", file=sys.stderr)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triton-faq", description="Tools of the Triton pitfalls handbook.")
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="run every snippet's GPU evidence and write data/ (needs a CUDA GPU)")
    bench.add_argument("--only", metavar="ENTRY", help="one entry: an ID (TP001) or topic/question")
    explain = commands.add_parser("explain", help="find the entry for an error message, a traceback or an ID")
    explain.add_argument("text", nargs="*", help="the message or ID; without it, read standard input")
    explain.add_argument("--lang", choices=("en", "zh"), help="language of the answer (default: from the locale)")
    explain.add_argument("--json", action="store_true", help="the candidates as JSON, for editors and scripts")
    new = commands.add_parser("new", help="scaffold a new entry: both pages and the snippet")
    new.add_argument("name", help="topic/question in kebab-case")
    commands.add_parser("check", help="validate every entry; print every problem with file and line")
    commands.add_parser("backend", help="print the backend, GPU and versions that tests would use")
    commands.add_parser("parity", help="compare the English and Chinese pages")
    matrix = commands.add_parser("matrix", help="run the interpreter tests against every Triton release from 3.2 "
                                                "and record where each claim holds (data/version-matrix.json)")
    matrix.add_argument("--only", metavar="ENTRY", help="one entry: an ID (TP001) or topic/question; `checker`: the "
                                                        "checked interpreter's tests alone")
    matrix.add_argument("--versions", help="comma-separated Triton versions (default: newest patch of each "
                                           "minor release from 3.2 on PyPI)")
    catalogue = commands.add_parser("catalogue", help="rebuild the catalogue of Triton's messages from its released "
                                                      "wheels (data/messages/catalogue.json.gz)", add_help=False)
    catalogue.add_argument("catalogue_args", nargs=argparse.REMAINDER, help="see `triton-faq catalogue --help`")
    checked = commands.add_parser("checked", help="run a Python script with every kernel bounds- and race-checked "
                                                  "under the interpreter")
    checked.add_argument("--bounds-only", action="store_true", help="check bounds, not races")
    checked.add_argument("script", help="the script to run")
    checked.add_argument("script_args", nargs=argparse.REMAINDER, help="its arguments")
    lint = commands.add_parser("lint", help="check Triton kernels and their host code for the handbook's "
                                             "pitfalls, statically (no GPU, nothing imported)")
    from .lint import add_arguments as lint_arguments

    lint_arguments(lint)
    given = sys.argv[1:] if argv is None else list(argv)
    if given[:1] == ["catalogue"]:  # its own options, --help included
        from .catalogue_build import main as build_catalogue

        return build_catalogue(given[1:], _root("catalogue", announce=True))
    args = parser.parse_args(argv)

    if args.command == "bench":
        from .bench import run

        return run(_root("bench", announce=True), args.only)
    if args.command == "explain":
        return run_explain(args)
    if args.command == "lint":
        from .lint import run as run_lint

        return run_lint(args)
    if args.command == "new":
        from .scaffold import ScaffoldError, new

        root = _root("new")
        try:
            written = new(args.name, root)
        except ScaffoldError as error:
            print(f"triton-faq new: {error}", file=sys.stderr)
            return 1
        print(f"triton-faq new: repository {root}", file=sys.stderr)
        print("\n".join(f"wrote {path}" for path in written))
        print("next: fill in every TODO(new entry), then run `triton-faq check` and `make test`")
        return 0
    if args.command == "check":
        from .check import check

        problems = check(_root("check", announce=True))
        print("\n".join(problems) or "check: every entry is complete and consistent")
        return 1 if problems else 0
    if args.command == "backend":
        from .backend import describe

        print(describe())
        return 0
    if args.command == "matrix":
        from .matrix import run as run_matrix

        versions = [v.strip() for v in args.versions.split(",") if v.strip()] if args.versions else None
        return run_matrix(_root("matrix", announce=True), versions, args.only)
    if args.command == "checked":
        return run_checked(args)
    if args.command == "parity":
        from .parity import check

        problems = check(_root("parity") / "docs")
        print("\n".join(problems) or "parity: English and Chinese pages match")
        return 1 if problems else 0
    return 2


def run_checked(args) -> int:
    """``python -m triton_checked`` under another name: the script runs on the interpreter, checked."""
    from triton_checked.__main__ import main

    return main([*(["--bounds-only"] if args.bounds_only else []), args.script, *args.script_args],
                prog="triton-faq checked")


def run_explain(args) -> int:
    import json

    from .explain import ExplainError, as_data, candidates, decode, default_language, explain

    if args.text:
        data = " ".join(args.text).encode("utf-8", "surrogateescape")
    elif sys.stdin is None or sys.stdin.isatty():
        data = b""
    else:
        data = sys.stdin.buffer.read(MAX_READ)
    language = args.lang or default_language()
    try:
        text = decode(data)
        if args.json:
            root = _explain_root()
            print(json.dumps([as_data(m, root, language) for m in candidates(text, root)], ensure_ascii=False, indent=1))
        else:
            print(explain(text, language, _explain_root()))
    except ExplainError as error:
        print(f"triton-faq explain: {error}", file=sys.stderr)
        return 1
    return 0


def _explain_root() -> Path:
    """The checkout the command runs in, else the pages installed with the package."""
    from .entries import ROOT

    try:
        return find_root()
    except NotACheckout:
        return ROOT


MAX_READ = (1 << 20) + 1  # one byte past the limit, so a larger input is recognised without reading it all


def entry_point() -> int:
    """The installed command: a reader that stops reading (``| head``) ends it quietly."""
    try:
        return main()
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(entry_point())
