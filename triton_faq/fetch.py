"""Packages fetched from PyPI once into a folder under ``.cache/``, whole or not at all.

The version matrix's Triton releases, the proofs' numpy 2.4 and CUDA 13's ``ptxas`` are each
fetched by ``pip`` into a new folder beside the target, finished there, and renamed into place:
a fetch that fails or is interrupted leaves nothing half-made, and two pytest workers fetching at
once both end with the same folder.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable


class FetchError(RuntimeError):
    """pip could not fetch the package (PyPI unreachable, no such version, a timeout); says why."""


def fetched_once(target: Path, pip_arguments: Callable[[Path], list[str]],
                 finish: Callable[[Path], None] | None = None, timeout: float = 300) -> Path:
    """``target``, made on the first call: ``python -m pip *pip_arguments(folder)`` fills a new folder,
    ``finish(folder)`` completes it, and the folder becomes ``target``."""
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    partial.chmod(0o755)  # mkdtemp's 0700 would hide it from tests whose jobs run as another user (TP038)
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *pip_arguments(partial)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise FetchError("pip timed out" if done is None else (done.stderr.strip().splitlines() or ["pip failed"])[-1])
    if finish is not None:
        finish(partial)
    try:
        partial.rename(target)
    except OSError:  # another process put it there first
        shutil.rmtree(partial, ignore_errors=True)
    return target
