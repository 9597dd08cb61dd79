"""`mkdocs build --strict` passes, and fails on a broken link or a broken include."""

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PAGE = Path("docs/en/garbage-values/masked-load-without-other.md")


def build(root: Path, out: Path) -> subprocess.CompletedProcess:
    """Build strictly (warnings abort; --quiet would hide them from strict mode)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )


def test_the_site_builds_strictly(tmp_path):
    result = build(ROOT, tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    page = PAGE.relative_to("docs/en").with_suffix("")
    assert (tmp_path / "site" / "zh" / page / "index.html").is_file()
    english = (tmp_path / "site" / page / "index.html").read_text(encoding="utf-8")
    # the language switcher leads to the same page in the other language
    assert f'href="../../zh/{page}/" hreflang="zh"' in english


def test_a_broken_link_fails_the_build(site_copy):
    page = site_copy / PAGE
    page.write_text(page.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    result = build(site_copy, site_copy / "_site")
    assert result.returncode != 0
    assert "no-such-page.md" in result.stdout + result.stderr


def test_a_broken_include_fails_the_build(site_copy):
    page = site_copy / PAGE
    page.write_text(page.read_text().replace(":pitfall\"", ":no-such-section\"", 1))
    result = build(site_copy, site_copy / "_site")
    assert result.returncode != 0
    assert "no-such-section" in result.stdout + result.stderr
