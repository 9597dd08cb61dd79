"""`mkdocs build --strict` passes, and fails on a broken link or a broken include."""

from conftest import build

PAGE = "garbage-values/masked-load-without-other"


def test_the_site_builds_strictly(built_site):
    assert (built_site / "zh" / PAGE / "index.html").is_file()
    english = (built_site / PAGE / "index.html").read_text(encoding="utf-8")
    # the language switcher leads to the same page in the other language
    assert f'href="../../zh/{PAGE}/" hreflang="zh"' in english


def test_the_small_site_builds(small_site):
    result = build(small_site, small_site / "_site")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_link_fails_the_build(small_site):
    page = small_site / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    result = build(small_site, small_site / "_site")
    assert result.returncode != 0
    assert "no-such-page.md" in result.stdout + result.stderr


def test_a_broken_include_fails_the_build(small_site):
    page = small_site / "docs" / "en" / "index.md"
    page.write_text(page.read_text().replace(":one\"", ":no-such-section\"", 1))
    result = build(small_site, small_site / "_site")
    assert result.returncode != 0
    assert "no-such-section" in result.stdout + result.stderr
