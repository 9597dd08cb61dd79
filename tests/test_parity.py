"""English and Chinese pages have the same structure; a missing translation fails."""

from pathlib import Path

import pytest

from conftest import ROOT
from triton_faq import parity

PAGE = Path("garbage-values/masked-load-without-other.md")


def test_english_and_chinese_pages_match():
    assert parity.check(ROOT / "docs") == []


def test_a_missing_translation_is_reported(site_copy):
    (site_copy / "docs" / "zh" / PAGE).unlink()
    problems = parity.check(site_copy / "docs")
    assert problems == [f"{site_copy / 'docs' / 'zh' / PAGE}: missing; translate {site_copy / 'docs' / 'en' / PAGE}"]


def test_a_changed_anchor_is_reported(site_copy):
    page = site_copy / "docs" / "zh" / PAGE
    page.write_text(page.read_text().replace("{ #why }", "{ #yuanyin }"))
    [problem] = parity.check(site_copy / "docs")
    assert "heading anchors" in problem and "yuanyin" in problem


def test_a_heading_without_anchor_is_reported(site_copy):
    page = site_copy / "docs" / "en" / PAGE
    page.write_text(page.read_text() + "\n## Another section\n")
    problems = parity.check(site_copy / "docs")
    assert any("heading 'Another section' needs an explicit anchor" in p for p in problems)


def test_includes_in_another_order_are_reported(site_copy):
    page = site_copy / "docs" / "zh" / PAGE
    text = page.read_text()
    page.write_text(text.replace(":pitfall\"", ":TMP\"").replace(":fix\"", ":pitfall\"").replace(":TMP\"", ":fix\""))
    [problem] = parity.check(site_copy / "docs")
    assert "includes" in problem


def test_different_code_is_reported(site_copy):
    page = site_copy / "docs" / "zh" / PAGE
    page.write_text(page.read_text().replace("torch.arange(1.0, 401.0,", "torch.arange(1.0, 401.0 ,"))
    [problem] = parity.check(site_copy / "docs")
    assert "code fences differ" in problem


def test_different_non_prose_front_matter_is_reported(site_copy):
    page = site_copy / "docs" / "zh" / PAGE
    page.write_text(page.read_text().replace("id: TP001", "id: TP999"))
    [problem] = parity.check(site_copy / "docs")
    assert "front matter" in problem and "TP999" in problem


def test_a_missing_gpu_data_marker_is_reported(site_copy):
    page = site_copy / "docs" / "zh" / PAGE
    page.write_text(page.read_text().replace("<!-- gpu-data: masked-lanes -->", ""))
    [problem] = parity.check(site_copy / "docs")
    assert "generated-content markers [] differ" in problem and "gpu-data: masked-lanes" in problem


@pytest.mark.parametrize("page, marker", [
    ("debugging/checked-interpreter.md", "<!-- version-matrix: checker -->"),
    ("lint.md", "<!-- lint-rules -->"),
])
def test_every_kind_of_generated_content_marker_is_compared(site_copy, page, marker):
    translated = site_copy / "docs" / "zh" / page
    assert marker in translated.read_text(encoding="utf-8")
    translated.write_text(translated.read_text(encoding="utf-8").replace(marker, ""), encoding="utf-8")
    [problem] = parity.check(site_copy / "docs")
    assert "generated-content markers" in problem and marker[5:-4].strip() in problem
