"""``python -m triton_checked [--bounds-only] [--allow-base | --allow-base-for NAMES] [--pointers-into live] script.py [args...]``: run a script with every kernel checked.

The script runs unchanged, as ``__main__``, on Triton's interpreter (TRITON_INTERPRET=1 is set
before Triton is imported). A report is printed as one block, without a traceback, with the line
that launched the kernel; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from pathlib import Path


def main(argv: list[str] | None = None, prog: str = "python -m triton_checked") -> int:
    parser = argparse.ArgumentParser(prog=prog, description="run a Python script with every Triton kernel "
                                     "bounds- and race-checked on the interpreter")
    parser.add_argument("--bounds-only", action="store_true", help="check bounds, not races")
    parser.add_argument("--allow-base", action="store_true",
                        help="accept any address inside a tensor's whole allocation, not only its view's elements")
    parser.add_argument("--allow-base-for", metavar="NAMES",
                        help="the same for these arguments only (comma-separated names, e.g. x_ptr,w_ptr)")
    parser.add_argument("--pointers-into", choices=["live"],
                        help="addresses a kernel loads from memory (a tensor of data_ptr() values): check them "
                        "against every CPU tensor alive at the launch (its whole allocation)")
    parser.add_argument("--record-mib", type=int, metavar="MIB",
                        help="the race record's budget per launch (default 1024); past it, bounds only")
    parser.add_argument("script", help="the script to run")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, help="its arguments")
    args = parser.parse_args(argv)
    name = prog.split()[-1] if prog.startswith("python -m") else prog
    if not Path(args.script).is_file():
        print(f"{name}: no such script: {args.script}", file=sys.stderr)
        return 1
    if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
        print(f"{name}: triton was imported before the interpreter could be chosen", file=sys.stderr)
        return 1
    os.environ["TRITON_INTERPRET"] = "1"
    from .checker import DataRace, OutOfBounds, enable, launched_from

    allow_base = True if args.allow_base else (
        {name.strip() for name in args.allow_base_for.split(",") if name.strip()} if args.allow_base_for else False)
    enable(allow_base=allow_base, races=not args.bounds_only, pointers_into=args.pointers_into,
           record_mib=args.record_mib)
    sys.argv = [args.script, *args.script_args]
    sys.path.insert(0, str(Path(args.script).resolve().parent))
    try:
        runpy.run_path(args.script, run_name="__main__")
    except (OutOfBounds, DataRace) as report:
        print(f"{name}: {type(report).__name__}: {report}\n  launched from {launched_from(report)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
