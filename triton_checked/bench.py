"""``python -m triton_checked.bench``: the checks' overhead over Triton's plain interpreter.

Four kernels, and a gather from tables of 2.1 M, 67 M and 100 M elements, each launched on the interpreter with and without ``checked()`` (alternating, after
one warm-up launch of each), ``--repeat`` times; the ratio of the medians of the process's CPU time is printed per kernel.
``--json PATH`` writes the result with what produced it (machine, versions, command, date).

    python -m triton_checked.bench                    # prints a table
    python -m triton_checked.bench --json bench.json  # and writes it
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: the checks run on the interpreter

import torch  # noqa: E402

import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def row_sum_loop(x_ptr, out_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):  # a loop with a runtime bound
        c = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + c, mask=c < cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc))


@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def gather_rows(table_ptr, idx_ptr, out_ptr, D: tl.constexpr):
    pid = tl.program_id(0)
    row = tl.load(idx_ptr + pid)
    cols = tl.arange(0, D)
    tl.store(out_ptr + pid * D + cols, tl.load(table_ptr + row * D + cols))


def _cases(only=None):
    """name -> (what it is, a function that launches it once)."""
    n = 1024 * 128
    x, y, out = torch.randn(n), torch.randn(n), torch.empty(n)
    rows, cols = 64, 1000
    m = torch.randn(rows, cols)
    sums = torch.empty(rows)
    a, b = torch.randn(128, 128), torch.randn(128, 128)
    c = torch.empty(128, 128)
    table = torch.randn(4096, 32)
    idx = torch.randint(0, 4096, (2048,))
    gathered = torch.empty(2048, 32)
    cases = {
        "elementwise": ("2x + y, 1,024 programs of 128", lambda: scale_add[(1024,)](x, y, out, n, BLOCK=128)),
        "reduction": ("row sums, 64 programs, a runtime loop of 8 blocks of 128",
                      lambda: row_sum_loop[(rows,)](m, sums, cols, m.stride(0), BLOCK=128)),
        "matmul": ("128 x 128 x 128, 16 programs of 32 x 32 tiles, K in steps of 32",
                   lambda: matmul_tile[(4, 4)](a, b, c, 128, 128, 128, *a.stride(), *b.stride(), *c.stride(),
                                               BM=32, BN=32, BK=32)),
        "gather": ("2,048 rows of 32 gathered by index, 2,048 programs",
                   lambda: gather_rows[(2048,)](table, idx, gathered, D=32)),
    }
    for name, table_rows, what in LARGE:  # 64 rows of 64 gathered from a large table: what a launch touches is small
        if only and name not in only:
            continue
        big = torch.randn(table_rows, 64)
        picks = torch.randint(0, table_rows, (64,))
        out64 = torch.empty(64, 64)
        cases[name] = (what, lambda big=big, picks=picks, out64=out64: gather_rows[(64,)](big, picks, out64, D=64))
    return cases


LARGE = [("gather-2M", 32_768, "64 rows of 64 gathered from a 2.1 M-element table, 64 programs"),
         ("gather-67M", 1_048_576, "64 rows of 64 gathered from a 67 M-element table, 64 programs"),
         ("gather-100M", 1_562_500, "64 rows of 64 gathered from a 100 M-element table, 64 programs")]


def _time(launch) -> float:
    """CPU seconds of this process (not wall time: on a shared machine, other work does not count)."""
    began = time.process_time()
    launch()
    return time.process_time() - began


def measure(repeat: int = 5, checker=None, only: list[str] | None = None) -> dict:
    """Per kernel: the median seconds plain and checked, and their ratio."""
    if checker is None:
        from triton_checked.checker import checked
    else:
        checked = checker.checked
    results = {}
    for name, (what, launch) in _cases(only).items():
        if only and name not in only:
            continue
        launch()
        with checked():
            launch()
        plain, under = [], []
        for _ in range(repeat):
            plain.append(_time(launch))
            with checked():
                under.append(_time(launch))
        p, u = statistics.median(plain), statistics.median(under)
        results[name] = {"what": what, "plain_s": round(p, 4), "checked_s": round(u, 4), "ratio": round(u / p, 2)}
    return results


def _load_checker(path: str):
    """A checker module from a file (to compare another version of the checks)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("checker_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m triton_checked.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="launches of each kernel, each way (median)")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--only", help="comma-separated kernels: elementwise,reduction,matmul,gather,"
                        + ",".join(name for name, _, _ in LARGE))
    parser.add_argument("--checker", help="a file with another checked() to measure instead")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    checker = _load_checker(args.checker) if args.checker else None
    began = time.monotonic()
    results = measure(args.repeat, checker, args.only.split(",") if args.only else None)
    print(f"{'kernel':12} {'plain s':>9} {'checked s':>10} {'ratio':>6}")
    for name, row in results.items():
        print(f"{name:12} {row['plain_s']:9.3f} {row['checked_s']:10.3f} {row['ratio']:6.2f}   {row['what']}")
    if args.json:
        from importlib.metadata import version

        data = {
            "generated_by": "python -m triton_checked.bench; do not edit by hand",
            "kernels": results,
            "provenance": {
                "command": "python -m triton_checked.bench " + " ".join(argv if argv is not None else sys.argv[1:]),
                "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
                "repeat": args.repeat,
                "python": platform.python_version(),
                "torch": version("torch"),
                "triton": triton.__version__,
                "numpy": version("numpy"),
                "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
                "load_average": [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None,
                "wall_seconds": round(time.monotonic() - began, 1),
            },
        }
        tmp = args.json + ".tmp"
        with open(tmp, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=1, ensure_ascii=False)
            stream.write("\n")
        os.replace(tmp, args.json)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
