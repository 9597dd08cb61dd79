"""``triton-faq bench``: run every snippet's GPU evidence and store it under data/ with provenance.

Data files are keyed by GPU name, so results of several GPU models live side by side. Each
write is atomic (a temporary file renamed over the old one): a failed or interrupted run
leaves the previous data intact.
"""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import handbook
from .code_hash import data_hash
from .evidence import ATTRIBUTE

NO_GPU = "triton-faq bench: needs a CUDA GPU; PyTorch sees none. Nothing was run and data/ is unchanged."


def provenance(entry, root: Path, command: str) -> dict:
    import torch
    import triton

    return {
        "gpu": torch.cuda.get_device_name(0),
        "driver": _driver_version(),
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "snippet": str(entry.snippet),
        "evidence": str(entry.evidence),
        "code_sha256": data_hash(root, entry),
    }


def _driver_version() -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30, check=True,
        )
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def evidence_functions(path: Path) -> dict:
    """Import an evidence file as a module and return its ``@gpu_evidence`` functions by name."""
    if not path.is_file():
        return {}
    handbook.importable(path.parents[2])  # evidence/<topic>/<question>.py: the repository
    spec = importlib.util.spec_from_file_location(f"triton_faq_snippet_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = {}
    for value in vars(module).values():
        name = getattr(value, ATTRIBUTE, None)
        if name is not None:
            found[name] = value
    return found


def write_atomically(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=1, ensure_ascii=False, sort_keys=True)
            stream.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read(path: Path) -> dict:
    if not path.exists():
        return {"generated_by": "triton-faq bench; do not edit by hand", "results": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def run(root: Path, only: str | None = None, out=None, err=None) -> int:
    import torch

    out, err = out or sys.stdout, err or sys.stderr
    if not torch.cuda.is_available():
        print(NO_GPU, file=err)
        return 2
    if only is not None:
        entry = handbook.load(root).find(only)
        if entry is None:
            print(f"triton-faq bench: no entry called {only!r} (use an ID like TP001 or topic/question)", file=err)
            return 1
        selected = [entry]
    else:
        selected = handbook.load(root).entries
    command = "triton-faq bench" + (f" --only {only}" if only else "")
    failures = 0
    started = time.perf_counter()
    for number, entry in enumerate(selected, 1):
        prefix = f"[{number}/{len(selected)}] {entry.id} {entry.name}"
        functions = evidence_functions(root / entry.evidence)
        if not functions:
            print(f"{prefix}: no GPU evidence", file=out, flush=True)
            continue
        results, entry_started = {}, time.perf_counter()
        try:
            for name, function in sorted(functions.items()):
                print(f"{prefix}: {name} ...", file=out, flush=True)
                results[name] = function()
        except Exception as error:  # report, keep the old data, go on with the next entry
            failures += 1
            print(f"{prefix}: FAILED ({type(error).__name__}: {error}); {entry.data} left as it was", file=err, flush=True)
            continue
        data = read(root / entry.data)
        data["results"][torch.cuda.get_device_name(0)] = {
            "provenance": provenance(entry, root, command),
            "evidence": results,
            "seconds": round(time.perf_counter() - entry_started, 1),
        }
        write_atomically(root / entry.data, data)
        print(f"{prefix}: wrote {entry.data} ({time.perf_counter() - entry_started:.1f} s)", file=out, flush=True)
    print(f"bench: {len(selected)} entries in {time.perf_counter() - started:.0f} s, {failures} failed", file=out)
    return 1 if failures else 0


def stale(root: Path) -> list[str]:
    """One sentence per data file whose snippet changed after the data was generated."""
    problems = []
    for entry in handbook.load(root).entries:
        path = root / entry.data
        if not path.exists():
            continue
        current = data_hash(root, entry)
        for gpu, result in sorted(read(path)["results"].items()):
            recorded = result["provenance"]
            if recorded.get("code_sha256") != current:
                problems.append(
                    f"{entry.data} is stale for {entry.id}: the code of {entry.snippet} or {entry.evidence} "
                    f"changed after it was measured "
                    f"on {gpu} ({recorded['date'][:10]}); regenerate on a CUDA machine with "
                    f"`make bench ONLY={entry.id}`"
                )
    return problems
