"""Every Python fence is run or checked; one the suite would skip silently fails instead."""

import unittest
from pathlib import Path

import pytest
from sybil import Document

from conftest import ROOT
from triton_faq.fences import FenceCheckError, PageFenceParser, names_only_the_other_backend_defines

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


def test_a_page_runs_as_a_script_would_so_its_kernels_can_call_its_jit_helpers(tmp_path, monkeypatch):
    """Compiled (for sm_90, no GPU needed), a kernel calling a helper whose __module__ is None fails in Triton."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))  # compiled here, not found in a cache
    text = f"""{FENCE}python
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

def plus_one(x):
    return x + 1

def kernel(x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(x_ptr + offs, plus_one(tl.load(x_ptr + offs)))

plus_one, kernel = triton.runtime.jit.JITFunction(plus_one), triton.runtime.jit.JITFunction(kernel)  # compiled, also under TRITON_INTERPRET

compiled = triton.compile(triton.compiler.ASTSource(kernel, {{"x_ptr": "*fp32", "N": "constexpr"}}, {{"N": 16}}),
                          target=GPUTarget("cuda", 90, 32))
{FENCE}
"""
    namespace = evaluate(text, tmp_path)
    assert namespace["__name__"] == "__main__" and "ptx" in namespace["compiled"].asm


def test_other_languages_are_not_collected(tmp_path):
    assert regions(f"{FENCE}bash\nexit 1\n{FENCE}\n", tmp_path) == []


def test_a_skip_with_a_reason_is_reported_as_skipped(tmp_path):
    text = f'<!-- skip: next if(True, reason="needs 80 GB of GPU memory") -->\n\n{FENCE}python\n1 / 0\n{FENCE}\n'
    with pytest.raises(unittest.SkipTest, match="needs 80 GB"):
        run_all(text, tmp_path)


def test_an_include_of_a_missing_section_fails(tmp_path):
    text = f'{FENCE}python\n--8<-- "snippets/garbage_values/masked_load_without_other.py:nope"\n{FENCE}\n'
    with pytest.raises(FenceCheckError, match="has no section 'nope'"):
        evaluate(text, tmp_path)


def test_an_include_of_a_missing_file_fails(tmp_path):
    with pytest.raises(FenceCheckError, match="does not exist"):
        evaluate(f'{FENCE}python\n--8<-- "snippets/nope.py:fix"\n{FENCE}\n', tmp_path)


INCLUDE = '--8<-- "snippets/garbage_values/masked_load_without_other.py:{}"'


def run_all(text, tmp_path, page="page.md"):
    """Every example of a page, in order, in its one namespace; the namespace at the end."""
    path = tmp_path / page
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    document = Document(text, str(path))
    for region in PageFenceParser(ROOT)(document):
        document.add(region)
    for example in document:
        example.evaluate()
    return document.namespace


def test_an_include_runs_the_section_under_its_own_file_and_lines(tmp_path):
    import inspect

    text = f"{FENCE}python\n{INCLUDE.format('prelude')}\n\n{INCLUDE.format('launch')}\n{FENCE}\n"
    namespace = run_all(text, tmp_path)
    assert namespace["DEVICE"] in ("cpu", "cuda")
    source = inspect.getsource(namespace["row_max"])
    assert source.startswith("def row_max(kernel, x):")
    assert namespace["row_max"].__code__.co_filename.endswith("snippets/garbage_values/masked_load_without_other.py")


def test_a_session_is_a_doctest_whose_output_must_match(tmp_path):
    good = f"{FENCE}python\n>>> 1 + 1\n2\n{FENCE}\n"
    run_all(good, tmp_path)
    bad = f"{FENCE}python\n>>> 1 + 1\n3\n{FENCE}\n"
    with pytest.raises(Exception, match="Expected:\\s+3\\s+Got:\\s+2"):
        run_all(bad, tmp_path)


def test_a_page_starts_with_an_empty_namespace(tmp_path):
    with pytest.raises(Exception, match="name 'DEVICE' is not defined"):
        run_all(f"{FENCE}python\n>>> DEVICE\n'cpu'\n{FENCE}\n", tmp_path)


def test_the_skip_directive_skips_backend_specific_output(tmp_path):
    text = (f"{FENCE}python\n{INCLUDE.format('prelude')}\n{FENCE}\n\n"
            '<!-- skip: next if(DEVICE in ("cpu", "cuda"), reason="for the other backend") -->\n\n'
            f"{FENCE}python\n>>> 1 + 1\n3\n{FENCE}\n")
    with pytest.raises(unittest.SkipTest, match="for the other backend"):  # the wrong output is never compared
        run_all(text, tmp_path)


def test_chinese_pages_are_not_run_again(tmp_path):
    text = f"{FENCE}python\n1 / 0\n{FENCE}\n"
    path = tmp_path / "docs" / "zh" / "page.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    assert list(PageFenceParser(ROOT)(Document(text, str(path)))) == []


def test_include_lines_mixed_with_code_fail(tmp_path):
    text = f'{FENCE}python\n--8<-- "snippets/garbage_values/masked_load_without_other.py:fix"\nx = 1\n{FENCE}\n'
    with pytest.raises(FenceCheckError, match="mixes"):
        evaluate(text, tmp_path)


def test_the_skip_directive_skips_a_whole_session(tmp_path):
    text = (f"{FENCE}python\n{INCLUDE.format('prelude')}\n{FENCE}\n\n"
            '<!-- skip: next if(True, reason="for the other backend") -->\n\n'
            f"{FENCE}python\n>>> 1 + 1\n3\n>>> 2 + 2\n5\n{FENCE}\n\n"
            f"{FENCE}python\n>>> 3 + 3\n6\n{FENCE}\n")
    path = tmp_path / "page.md"
    path.write_text(text)
    document = Document(text, str(path))
    for region in PageFenceParser(ROOT)(document):
        document.add(region)
    outcomes = []
    for example in document:
        try:
            example.evaluate()
            outcomes.append("ran")
        except unittest.SkipTest:
            outcomes.append("skipped")
    assert outcomes == ["ran", "ran", "skipped", "ran"]  # prelude, skip directive, the whole session, the next


def test_what_a_session_defines_stays_for_the_next_fence(tmp_path):
    namespace = run_all(f"{FENCE}python\n>>> values = [1, 2]\n{FENCE}\n\n{FENCE}python\n>>> len(values)\n2\n{FENCE}\n",
                        tmp_path)
    assert namespace["values"] == [1, 2]


def test_a_function_an_earlier_fence_defined_still_finds_the_builtins_after_a_plain_fence(tmp_path):
    # as in a script: a plain fence between a function's definition and its call takes nothing away
    # (torch.full_like reads its caller's globals' __builtins__: KeyError if a fence deleted it)
    text = (f"{FENCE}python\nimport torch\n\ndef nans():\n    return torch.full_like(torch.zeros(2), float('nan'))\n"
            f"{FENCE}\n\n{FENCE}python\nx = 1\n{FENCE}\n\n"
            f"{FENCE}python\n>>> nans().isnan().tolist()\n[True, True]\n{FENCE}\n")
    namespace = run_all(text, tmp_path)
    assert "__builtins__" in namespace


PAGES = sorted((ROOT / "docs" / "en").rglob("*.md"))


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_no_page_uses_on_one_backend_a_name_only_the_other_backend_defines(device):
    """The GPU run of the pages needs a GPU; this finds, without one, a name a skipped fence alone defines."""
    found = [f"{page.relative_to(ROOT)}:{line}: {name}" for page in PAGES
             for line, name in names_only_the_other_backend_defines(ROOT, page.read_text(encoding="utf-8"), device)]
    assert not found, found


def test_a_name_defined_only_in_a_fence_skipped_on_the_gpu_is_reported():
    text = (f"{FENCE}python\ndef kernel(x_ptr):\n    x = 0  # a local x defines no page-level x\n{FENCE}\n\n"
            f'<!-- skip: next if(DEVICE == "cuda", reason="the interpreter\'s output") -->\n\n'
            f"{FENCE}python\n>>> x = 1\n>>> x\n1\n{FENCE}\n\n{FENCE}python\n>>> x + 1\n2\n{FENCE}\n")
    assert names_only_the_other_backend_defines(ROOT, text, "cuda") == [(14, "x")]  # the line of the fence that uses it
    assert names_only_the_other_backend_defines(ROOT, text, "cpu") == []
