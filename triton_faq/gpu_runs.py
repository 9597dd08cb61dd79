"""Record a whole test run on a GPU as data (data/test-runs.json), keyed by GPU, for the site."""

from __future__ import annotations

import datetime
import platform
from pathlib import Path

from .bench import _driver_version, read, write_atomically

PATH = Path("data", "test-runs.json")
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def per_file(stats: dict) -> dict[str, dict[str, int]]:
    """Outcomes counted per test file (a proof, a page): what each entry page says of its own tests."""
    files: dict[str, dict[str, int]] = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in stats.get(outcome, []):
            if getattr(report, "when", "call") not in ("call", "setup") or not hasattr(report, "nodeid"):
                continue
            path = report.nodeid.split("::", 1)[0]
            counts = files.setdefault(path, {"passed": 0, "failed": 0, "skipped": 0})
            counts["failed" if outcome == "error" else outcome] += 1
    return dict(sorted(files.items()))


SAME_MACHINE = ("gpu", "driver", "cuda", "torch", "triton", "python")


def combined(earlier: dict, later: dict) -> dict:
    """One record from two passes over the suite on one machine (the timing claims run in a serial pass
    after a parallel pass over the rest): counts and per-file counts added, failures joined."""
    files = {path: dict(counts) for path, counts in earlier["files"].items()}
    for path, counts in later["files"].items():
        into = files.setdefault(path, {"passed": 0, "failed": 0, "skipped": 0})
        for outcome, n in counts.items():
            into[outcome] = into.get(outcome, 0) + n
    return {
        "provenance": {**later["provenance"],
                       "command": f'{earlier["provenance"]["command"]} && {later["provenance"]["command"]}'},
        "counts": {outcome: earlier["counts"].get(outcome, 0) + later["counts"].get(outcome, 0)
                   for outcome in OUTCOMES},
        "failures": sorted(set(earlier["failures"]) | set(later["failures"])),
        "files": dict(sorted(files.items())),
        "exit_status": earlier["exit_status"] or later["exit_status"],
    }


def record(root: Path, stats: dict, exit_status: int, command: str, add: bool = False) -> str:
    """Write the run's counts under the GPU's name; return a line saying what was written.

    ``add``: this run is a second pass (``--add-to-gpu-run``): its counts join the record of the first
    pass on the same machine, and nothing is written if there is none."""
    import torch
    import triton

    from .backend import BACKEND

    if BACKEND != "cuda":
        return "--record-gpu-run: not a CUDA run; nothing recorded"
    counts = {outcome: len([r for r in stats.get(outcome, []) if getattr(r, "when", "call") in ("call", "setup")])
              for outcome in OUTCOMES}
    data = read(root / PATH)
    data["generated_by"] = "pytest --record-gpu-run; do not edit by hand"
    gpu = torch.cuda.get_device_name(0)
    run = {
        "provenance": {
            "gpu": gpu, "driver": _driver_version(), "cuda": torch.version.cuda, "torch": torch.__version__,
            "triton": triton.__version__, "python": platform.python_version(), "command": command,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "counts": counts,
        "failures": sorted({r.nodeid for outcome in ("failed", "error") for r in stats.get(outcome, [])
                            if hasattr(r, "nodeid")}),
        "files": per_file(stats),
        "exit_status": int(exit_status),
    }
    if add:
        earlier = data["results"].get(gpu)
        if earlier is None or any(earlier["provenance"].get(key) != run["provenance"][key] for key in SAME_MACHINE):
            return (f"--add-to-gpu-run: no earlier pass on this {gpu} with the same driver, CUDA, torch, Triton "
                    f"and Python in {PATH}; nothing recorded (run the first pass with --record-gpu-run)")
        run = combined(earlier, run)
    data["results"][gpu] = run
    write_atomically(root / PATH, data)
    return f"--record-gpu-run: wrote {PATH} for {gpu}: {run['counts']}"
