"""The ``triton-faq`` command: a table of subcommands, each a function of its parsed arguments."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

MAX_READ = (1 << 20) + 1  # one byte past explain's limit, so a larger input is recognised without reading it all


class NotACheckout(RuntimeError):
    """The working directory is not inside a checkout of the handbook."""


def find_root(start: Path | None = None) -> Path:
    """The handbook checkout that holds the working directory (as git and mkdocs find theirs)."""
    from .handbook import SiteError, load_site

    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file() and (folder / "snippets").is_dir():
            try:
                site = load_site(folder)
            except SiteError:
                continue
            if site.folder(site.default).is_dir():
                return folder
    raise NotACheckout(f"{here} is not inside a checkout of the handbook (no mkdocs.yml with its pages and "
                       "snippets/ above it); run this from your clone")


def _root(command: str, announce: bool = False) -> Path:
    try:
        root = find_root()
    except NotACheckout as error:
        raise SystemExit(f"triton-faq {command}: {error}") from None
    if announce:
        print(f"triton-faq {command}: repository {root}", file=sys.stderr)
    return root


def _languages() -> tuple[str, ...]:
    from .handbook import load_site

    return load_site(_handbook_root()).languages


# -- the commands -------------------------------------------------------------------------------

def bench_arguments(parser) -> None:
    parser.add_argument("--only", metavar="ENTRY", help="one entry: an ID (TP001) or topic/question")


def run_bench(args) -> int:
    from .bench import run

    return run(_root("bench", announce=True), args.only)


def explain_arguments(parser) -> None:
    parser.add_argument("text", nargs="*", help="the message or ID; without it, read standard input")
    parser.add_argument("--lang", choices=_languages(),
                        help="language of the answer (default: the text's own language if the site has it, else the locale's)")
    parser.add_argument("--json", action="store_true", help="the candidates as JSON, for editors and scripts")


def run_explain(args) -> int:
    import json

    from .explain import ExplainError, answer_language, as_data, candidates, decode, explain

    if args.text:
        data = " ".join(args.text).encode("utf-8", "surrogateescape")
    elif sys.stdin is None or sys.stdin.isatty():
        data = b""
    else:
        data = sys.stdin.buffer.read(MAX_READ)
    root = _handbook_root()
    try:
        text = decode(data)
        language = args.lang or answer_language(text, root=root)  # a Chinese text is answered in Chinese
        if args.json:
            print(json.dumps([as_data(m, root, language) for m in candidates(text, root)], ensure_ascii=False, indent=1))
        else:
            print(explain(text, language, root))
    except ExplainError as error:
        print(f"triton-faq explain: {error}", file=sys.stderr)
        return 1
    return 0


def _handbook_root() -> Path:
    """The checkout the command runs in, else the pages installed with the package."""
    from .handbook import ROOT

    try:
        return find_root()
    except NotACheckout:
        return ROOT


def new_arguments(parser) -> None:
    parser.add_argument("name", help="topic/question in kebab-case")


def run_new(args) -> int:
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


def run_check(args) -> int:
    from .validate import check

    problems = check(_root("check", announce=True))
    print("\n".join(problems) or "check: every entry is complete and consistent")
    return 1 if problems else 0


def run_record(args) -> int:
    from . import recorded

    path = recorded.record(_root("record", announce=True))
    print(f"wrote {path}")
    return 0


def run_backend(args) -> int:
    from .backend import describe

    print(describe())
    return 0


def run_parity(args) -> int:
    from .handbook import load_site
    from .parity import check

    problems = check(load_site(_root("parity")).docs_dir)
    print("\n".join(problems) or "parity: every translation matches its page")
    return 1 if problems else 0


def matrix_arguments(parser) -> None:
    parser.add_argument("--only", metavar="ENTRY", help="one entry: an ID (TP001) or topic/question; `checker`: the "
                                                        "checked interpreter's tests alone")
    parser.add_argument("--versions", help="comma-separated Triton versions (default: newest patch of each "
                                           "minor release from 3.2 on PyPI)")


def run_matrix(args) -> int:
    from .matrix import run

    versions = [v.strip() for v in args.versions.split(",") if v.strip()] if args.versions else None
    return run(_root("matrix", announce=True), versions, args.only)


def run_checked(options: list[str]) -> int:
    """``python -m triton_checked`` under another name, with all its options: the script runs on the
    interpreter, checked."""
    from triton_checked.__main__ import main

    return main(options, prog="triton-faq checked")


def run_catalogue(options: list[str]) -> int:
    from .catalogue_build import main

    return main(options, _root("catalogue", announce=True))


def doctor_arguments(parser) -> None:
    from .doctor import add_arguments

    add_arguments(parser)


def run_doctor(args) -> int:
    from .doctor import run

    return run(args)


def lint_arguments(parser) -> None:
    from .lint import add_arguments

    add_arguments(parser)


def run_lint(args) -> int:
    from .lint import run

    return run(args)


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Callable  # of the parsed arguments; of the list of options when the command parses its own
    arguments: Callable[[argparse.ArgumentParser], None] | None = None
    own_options: bool = False  # the command reads its options itself (its --help too)


COMMANDS = (
    Command("bench", "run every snippet's GPU evidence and write data/ (needs a CUDA GPU)", run_bench, bench_arguments),
    Command("explain", "find the entry for an error message, a traceback or an ID", run_explain, explain_arguments),
    Command("new", "scaffold a new entry: both pages and the snippet", run_new, new_arguments),
    Command("check", "validate every entry; print every problem with file and line", run_check),
    Command("record", "run the reader's files and checked reports the site shows, and record their outputs "
                      "(data/recorded-runs.json), so the site builds without torch", run_record),
    Command("backend", "print the backend, GPU and versions that tests would use", run_backend),
    Command("parity", "compare every translated page with its page in the default language", run_parity),
    Command("matrix", "run the interpreter tests against every Triton release from 3.2 and record where each "
                      "claim holds (data/version-matrix.json)", run_matrix, matrix_arguments),
    Command("catalogue", "rebuild the catalogue of Triton's messages from its released wheels "
                         "(data/messages/catalogue.json.gz); `triton-faq catalogue --help` for its options",
            run_catalogue, own_options=True),
    Command("checked", "run a Python script with every kernel bounds- and race-checked under the interpreter "
                       "(`triton-faq checked --help` for its options)", run_checked, own_options=True),
    Command("doctor", "check the installed torch, Triton, NumPy, GPU, driver, ptxas and cache directory, and name "
                      "the entry for each problem", run_doctor, doctor_arguments),
    Command("lint", "check Triton kernels and their host code for the handbook's pitfalls, statically (no GPU, "
                    "nothing imported)", run_lint, lint_arguments),
)


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    for command in COMMANDS:
        if command.own_options and given[:1] == [command.name]:
            return command.run(given[1:])
    parser = argparse.ArgumentParser(prog="triton-faq", description="Tools of the Triton pitfalls handbook.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, add_help=not command.own_options)
        if command.arguments is not None:
            command.arguments(sub)
        sub.set_defaults(run=command.run)
    args = parser.parse_args(argv)
    return args.run(args)


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
