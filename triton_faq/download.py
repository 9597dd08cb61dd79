"""The reader's file as a download, as a notebook, and run on its own.

* The download is the reader's file (``snippets/<topic>/<question>.py``), byte for byte.
* The notebook is that file split at its ``# --8<-- [start:name]`` sections, with ``main()`` as the
  last cell, and the outputs of a real run of those cells.
* :func:`run_alone` runs reader's files the way a reader does: each in a process of its own
  (forked from a runner that has torch and triton loaded, on the interpreter), in a folder outside
  the repository, with ``triton_faq`` unimportable, its cells in order.
  (Not several files in one process: the interpreter patches ``triton.language`` in place, which
  breaks the compiler for a later file.) Results are cached under ``.cache/reader-runs`` by the
  file's bytes, the backend and the torch and Triton versions.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SECTION = re.compile(r"^[ \t]*# --8<-- \[(?P<kind>start|end):(?P<name>[A-Za-z0-9_-]+)\][ \t]*$")
ALLOWED_IMPORTS = {"torch", "triton", "numpy"}  # plus the standard library


def imports_outside_stdlib(source: str) -> list[str]:
    """Top-level names the file imports that are neither the standard library nor torch/triton."""
    return list(_imports_outside_stdlib(source))


@functools.lru_cache(maxsize=512)  # every check of every entry asks again for the same files
def _imports_outside_stdlib(source: str) -> tuple[str, ...]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return tuple(sorted(n for n in names if n not in sys.stdlib_module_names and n not in ALLOWED_IMPORTS))


def _without_main_guard(source: str) -> str:
    """The file without its ``if __name__ == "__main__":`` block (the notebook calls main() itself)."""
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"):
            del lines[node.lineno - 1: node.end_lineno]
            break
    return "\n".join(lines)


def cells(source: str) -> list[str]:
    """The file's code split before each ``# --8<-- [start:name]``, markers removed, then ``main()``."""
    chunks: list[list[str]] = [[]]
    for line in _without_main_guard(source).splitlines():
        marker = SECTION.match(line)
        if marker and marker["kind"] == "start":
            chunks.append([])
        if not marker:
            chunks[-1].append(line)
    code = [text for text in ("\n".join(chunk).strip("\n") for chunk in chunks) if text.strip()]
    return code + ["main()"]


# Runs in a fresh Python outside the repository. argv[1]: a JSON list of [name, [cell, ...], folder];
# argv[2]: the repository (taken off sys.path). Each file runs in a child process of its own, forked
# from this one in its folder; on the interpreter the parent imports torch and triton first, so each
# child starts with them loaded (a child imports them again as a no-op). On CUDA nothing is loaded
# before the fork: a forked child cannot use a CUDA context its parent made. Prints one JSON line:
# {name: [{"stdout": ..., "error": ...}, ...]}.
RUNNER = Path(__file__).with_name("children") / "run_reader_file.py"


def _versions() -> str:
    from importlib.metadata import version

    return f"torch {version('torch')}, triton {version('triton')}"


def _key(source: str, backend: str) -> str:
    return hashlib.sha256(f"{source}\0{backend}\0{_versions()}\0{RUNNER.read_text(encoding='utf-8')}".encode()).hexdigest()[:32]


def run_alone(root: Path, snippets: list[Path], backend: str, workers: int | None = None) -> dict[str, list[dict]]:
    """Each file's cells run on their own (see the module docstring); ``{path: [cell outputs]}``.

    ``backend`` is ``interpreter`` or ``cuda``; the runs are cached, and a lock keeps two test
    processes (pytest-xdist workers, a site build) from running the same files at once.
    """
    from filelock import FileLock

    cache = root / ".cache" / "reader-runs"
    cache.mkdir(parents=True, exist_ok=True)
    sources = {str(path): (root / path).read_text(encoding="utf-8") for path in snippets}
    with FileLock(str(cache / ".lock")):
        missing = [name for name, source in sources.items() if not (cache / f"{_key(source, backend)}.json").is_file()]
        if missing:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_FAQ", "PYTEST", "PYTHONPATH"))}
            if backend == "interpreter":
                env["TRITON_INTERPRET"] = "1"
            else:
                env.pop("TRITON_INTERPRET", None)
            with tempfile.TemporaryDirectory(prefix="triton-faq-reader-") as outside:
                count = max(1, min(workers or min(8, os.cpu_count() or 2), len(missing)))

                def run_batch(number):
                    jobs = []
                    for index, name in enumerate(missing[number::count]):
                        folder = Path(outside, f"{number}-{index}")
                        folder.mkdir()
                        jobs.append([name, cells(sources[name]), str(folder)])
                    job = Path(outside, f"batch-{number}.json")
                    job.write_text(json.dumps(jobs), encoding="utf-8")
                    done = subprocess.run([sys.executable, str(RUNNER), str(job), str(root)], cwd=outside, env=env,
                                          capture_output=True, text=True, timeout=1800)
                    if done.returncode != 0:
                        raise RuntimeError(f"the reader's files could not be run on their own:\n{done.stderr[-3000:]}")
                    return json.loads(done.stdout.strip().splitlines()[-1])

                with ThreadPoolExecutor(max_workers=count) as pool:
                    for result in pool.map(run_batch, range(count)):
                        for name, outputs in result.items():
                            target = cache / f"{_key(sources[name], backend)}.json"
                            temporary = target.with_suffix(".tmp")
                            temporary.write_text(json.dumps(outputs), encoding="utf-8")
                            temporary.replace(target)
        return {name: json.loads((cache / f"{_key(source, backend)}.json").read_text(encoding="utf-8"))
                for name, source in sources.items()}


def _cell(kind: str, source: str, outputs: dict | None = None) -> dict:
    cell = {"cell_type": kind, "id": "", "metadata": {}, "source": source.splitlines(True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
        if outputs is not None:
            if outputs["stdout"]:
                cell["outputs"].append({"output_type": "stream", "name": "stdout", "text": outputs["stdout"]})
            if outputs["error"]:
                cell["outputs"].append({"output_type": "stream", "name": "stderr", "text": outputs["error"]})
    return cell


def notebook(source: str, heading: str, outputs: list[dict] | None = None) -> dict:
    """An nbformat 4 notebook of the reader's file under a Markdown cell ``heading``, with outputs."""
    code = cells(source)
    outputs = list(outputs or [])
    notebook_cells = [_cell("markdown", heading)]
    for number, text in enumerate(code):
        notebook_cells.append(_cell("code", text, outputs[number] if number < len(outputs) else None))
    for number, cell in enumerate(notebook_cells):
        cell["id"] = f"cell-{number}"
        if cell["cell_type"] == "code" and cell["outputs"]:
            cell["execution_count"] = number
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "cells": notebook_cells,
    }
