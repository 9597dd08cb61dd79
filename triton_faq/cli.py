"""The ``triton-faq`` command."""

from __future__ import annotations

import argparse
import sys

from .entries import ROOT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triton-faq", description="Tools of the Triton pitfalls handbook.")
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="run every snippet's GPU evidence and write data/ (needs a CUDA GPU)")
    bench.add_argument("--only", metavar="ENTRY", help="one entry: an ID (TP001) or topic/question")
    commands.add_parser("backend", help="print the backend, GPU and versions that tests would use")
    commands.add_parser("parity", help="compare the English and Chinese pages")
    args = parser.parse_args(argv)

    if args.command == "bench":
        from .bench import run

        return run(ROOT, args.only)
    if args.command == "backend":
        from .backend import describe

        print(describe())
        return 0
    if args.command == "parity":
        from .parity import check

        problems = check(ROOT / "docs")
        print("\n".join(problems) or "parity: English and Chinese pages match")
        return 1 if problems else 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
