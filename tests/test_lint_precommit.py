"""The pre-commit hook of .pre-commit-hooks.yaml, run by the real `pre-commit` tool on a repository that
uses it, from a local copy of this repository (no network needed when the wheels it installs are in
.cache/wheels: `pip download -d .cache/wheels setuptools wheel pyyaml`)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def row_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n){other}
    tl.store(out_ptr, tl.max(x, axis=0))
'''


def _pre_commit() -> list[str] | None:
    found = shutil.which("pre-commit")
    if found:
        return [found]
    for candidate in (Path(sys.executable).parent / "pre-commit", ROOT / ".cache" / "pc-venv" / "bin" / "pre-commit"):
        if candidate.exists():
            return [str(candidate)]
    return None


def _git(folder: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.mark.slow
def test_the_hook_runs_under_pre_commit_and_fails_only_on_findings(tmp_path):
    pre_commit = _pre_commit()
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    hooks = tmp_path / "hooks-repo"
    hooks.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, hooks / name)
    shutil.copytree(ROOT / "triton_faq", hooks / "triton_faq", ignore=shutil.ignore_patterns("__pycache__"))
    _git(hooks, "init", "-q")
    _git(hooks, "add", "-A")
    _git(hooks, "commit", "-q", "-m", "hooks")
    rev = _git(hooks, "rev-parse", "HEAD")

    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks.as_posix()}\n    rev: {rev}\n    hooks:\n      - id: triton-faq-lint\n")
    (project / "kernel.py").write_text(KERNEL.format(other=""))
    _git(project, "init", "-q")
    _git(project, "add", "-A")

    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PYTHONPATH="")
    wheels = ROOT / ".cache" / "wheels"
    if wheels.is_dir():  # offline: pre-commit's pip takes setuptools and pyyaml from there
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))

    def run():
        return subprocess.run([*pre_commit, "run", "--all-files"], cwd=project, capture_output=True, text=True,
                              env=env, timeout=300)

    found = run()
    assert found.returncode == 1, found.stdout + found.stderr
    assert "kernel.py:9:" in found.stdout and "TP001" in found.stdout, found.stdout

    (project / "kernel.py").write_text(KERNEL.format(other=", other=-float('inf')"))
    _git(project, "add", "-A")
    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
