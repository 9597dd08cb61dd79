"""Every Python fence is run or checked; one the suite would skip silently fails instead."""

from pathlib import Path

import pytest
from sybil import Document

from conftest import ROOT
from triton_faq.fences import FenceCheckError, PageFenceParser

FENCE = "```"


def regions(text: str, tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(text)
    document = Document(text, str(page))
    for region in PageFenceParser(ROOT)(document):
        document.add(region)
    return list(document)


def evaluate(text, tmp_path):
    [example] = regions(text, tmp_path)
    example.evaluate()
    return example.namespace


@pytest.mark.parametrize("info", ["py", "python3", 'python title="kernel.py"', "pycon", "{.python}"])
def test_a_python_fence_spelt_otherwise_fails(info, tmp_path):
    with pytest.raises(FenceCheckError, match="would not be run"):
        evaluate(f"{FENCE}{info}\nx = 1\n{FENCE}\n", tmp_path)


def test_a_python_fence_runs(tmp_path):
    with pytest.raises(ZeroDivisionError):
        evaluate(f"{FENCE}python\n1 / 0\n{FENCE}\n", tmp_path)


def test_other_languages_are_not_collected(tmp_path):
    assert regions(f"{FENCE}bash\nexit 1\n{FENCE}\n", tmp_path) == []


def test_a_skip_needs_a_reason(tmp_path):
    with pytest.raises(FenceCheckError, match="needs a written reason"):
        evaluate(f"<!-- skip-fence: -->\n{FENCE}python\n1 / 0\n{FENCE}\n", tmp_path)


def test_a_skip_with_a_reason_is_reported_as_skipped(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="needs 80 GB"):
        evaluate(f"<!-- skip-fence: needs 80 GB of GPU memory -->\n{FENCE}python\n1 / 0\n{FENCE}\n", tmp_path)


def test_an_include_of_a_missing_section_fails(tmp_path):
    text = f'{FENCE}python\n--8<-- "snippets/garbage_values/masked_load_without_other.py:nope"\n{FENCE}\n'
    with pytest.raises(FenceCheckError, match="has no section 'nope'"):
        evaluate(text, tmp_path)


def test_an_include_of_a_missing_file_fails(tmp_path):
    with pytest.raises(FenceCheckError, match="does not exist"):
        evaluate(f'{FENCE}python\n--8<-- "snippets/nope.py:fix"\n{FENCE}\n', tmp_path)


def test_an_include_line_is_never_executed_as_python(tmp_path):
    text = f'{FENCE}python\n--8<-- "snippets/garbage_values/masked_load_without_other.py:fix"\n{FENCE}\n'
    assert evaluate(text, tmp_path) is not None  # checked, not exec'd (it is not valid Python)


def test_include_lines_mixed_with_code_fail(tmp_path):
    text = f'{FENCE}python\n--8<-- "snippets/garbage_values/masked_load_without_other.py:fix"\nx = 1\n{FENCE}\n'
    with pytest.raises(FenceCheckError, match="mixes"):
        evaluate(text, tmp_path)
