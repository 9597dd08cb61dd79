import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import build

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built strictly once per test run and shared by every test (and pytest-xdist worker)."""
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # one folder for all workers
    out, result = shared / "built-site", shared / "built-site.json"
    with FileLock(str(shared / "built-site.lock")):
        if not result.is_file():
            done = build(ROOT, out)
            result.write_text(json.dumps({"returncode": done.returncode, "output": done.stdout + done.stderr}))
    outcome = json.loads(result.read_text())
    assert outcome["returncode"] == 0, outcome["output"]
    return out


@pytest.fixture
def site_copy(tmp_path: Path) -> Path:
    """A throwaway copy of everything the site build and the checks read, to break on purpose."""
    for name in ("docs", "snippets", "hooks", "data", "overrides", "evidence", "tests/entries"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    return tmp_path


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    """A site with this one's configuration and hooks but a single page per language: fast to build."""
    for name in ("hooks", "overrides", "data"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "example.py").write_text("# --8<-- [start:one]\nx = 1\n# --8<-- [end:one]\n")
    for language in ("en", "zh"):
        (tmp_path / "docs" / language).mkdir(parents=True)
        (tmp_path / "docs" / language / "index.md").write_text(
            "# Home\n\n```python\n--8<-- \"snippets/example.py:one\"\n```\n", encoding="utf-8")
    return tmp_path
