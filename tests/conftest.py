import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def site_copy(tmp_path: Path) -> Path:
    """A throwaway copy of everything the site build reads, to break on purpose."""
    for name in ("docs", "snippets", "hooks", "data", "overrides"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    return tmp_path
