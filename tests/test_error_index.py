"""The error index gate: every message an entry claims is produced by that entry's own code."""

import importlib.util

import pytest

from conftest import ROOT
import re
from pathlib import Path

from triton_faq import backend, handbook
from triton_faq import claimed_errors as errors

CLAIMED, PROBLEMS = errors.load(ROOT)


def test_claimed_errors_are_well_formed():
    assert PROBLEMS == []


def marks(error):
    return {"cuda": [pytest.mark.gpu], "interpreter": [pytest.mark.interpreter]}.get(error.backend, [])


@pytest.mark.parametrize("error", [pytest.param(e, marks=marks(e), id=e.name) for e in CLAIMED])
def test_the_entry_produces_the_message_it_claims(error):
    text = errors.reproduce(ROOT, error)
    assert error.message in text, f"{error.name}: '{error.message}' not in what {error.reproduce}() produced:\n{text}"
    assert error.fingerprint.search(text), f"{error.name}: fingerprint /{error.fingerprint.pattern}/ does not match"


def test_a_claim_the_pitfall_does_not_produce_fails(tmp_path):
    proof = tmp_path / "tests" / "entries" / "topic" / "test_question.py"
    proof.parent.mkdir(parents=True)
    proof.write_text("def reproduce():\n    raise ValueError('a different message')\n")
    entry = handbook.Entry("TP999", "topic/question", Path("snippets/topic/question.py"), handbook.load_site(ROOT), {})
    claimed = errors.ClaimedError(entry, "arange's range must be a power of 2",
                                  re.compile("arange's range"), "compile", "any", "reproduce")
    text = errors.reproduce(tmp_path, claimed)
    assert "a different message" in text and claimed.message not in text


def test_badly_written_claims_are_reported():
    problems = errors.error_problems("docs/en/x/y.md: errors[0]", {"message": "boom 12", "fingerprint": "bang",
                                                                   "where": "later", "backend": "any", "reproduce": "f"})
    assert "docs/en/x/y.md: errors[0]: where 'later' is not one of compile, launch, interpreter, runtime, install" in problems
    assert "docs/en/x/y.md: errors[0]: fingerprint does not match its own message" in problems


def load_hook(name):
    """A site hook, for the tests of what it renders (they need mkdocs; the GPU machine has none)."""
    pytest.importorskip("mkdocs", reason="the site's hooks need mkdocs")
    spec = importlib.util.spec_from_file_location(f"{name}_hook", ROOT / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_error_page_lists_every_claimed_message_with_a_link(language):
    page = load_hook("error_index").render(ROOT, language)
    for error in CLAIMED:
        assert error.message.replace("|", "\\|") in page
        assert f"({error.entry.page.relative_to('docs/en').as_posix()})" in page


def test_the_backend_in_this_run_is_known():
    assert backend.BACKEND in ("cuda", "interpreter")




def test_an_entry_lists_the_messages_it_answers_in_its_symptom_section():
    page = "---\n---\n# Title\n\nAnswer\n\n## 症状 { #symptom }\n\nWhat you see\n\n## 原因 { #why }\n\nBody\n"
    out = load_hook("claimed_errors").insert(page, [{"message": "boom: 42", "where": "compile"}], "zh")
    listed = out.index('- <a id="error-1"></a>`boom: 42`（编译时）')
    assert out.index("Answer") < out.index("What you see") < listed < out.index("## 原因")
    assert "###" not in out  # not headings above the answer


def test_a_message_claimed_by_two_entries_is_one_row_with_also_shown_in():
    """Within one group (where the message appears): one row per message. The same text can appear in
    two groups (the interpreter's and the compiler's) for two causes, one row in each."""
    hook = load_hook("error_index")
    groups = hook.render(ROOT, "en").split("\n## ")
    for error in CLAIMED:
        cell = hook.inline_code(error.message.replace("|", "\\|"))
        group = next(g for g in groups if g.split("\n", 1)[0].endswith(f"{{ #{error.where} }}"))
        rows = [line for line in group.splitlines() if line.startswith(f"| {cell} | ")]
        assert len(rows) == 1, (cell, error.where, rows)
