"""The committed message catalogue (data/messages/catalogue.json.gz) and ``messages.match``.

Every message an entry claims and every real message of tests/data/real_messages.yaml matches a
template of Triton's (or Inductor's) own messages, or is listed in
tests/data/not_triton_messages.yaml with the reason it does not (NumPy's, torch's, Python's own
wording, an older Triton's); the list holds nothing that matches. The entry mapping stored with the
catalogue is the one the entries give today.
"""

import gzip
import json
import time

import pytest

from conftest import ROOT
from triton_faq.handbook.page import load_yaml  # libyaml
from triton_faq import catalogue_build, messages
from triton_faq import handbook

NOT_TRITON = ROOT / "tests" / "data" / "not_triton_messages.yaml"


@pytest.fixture(scope="module")
def catalogue():
    return messages.load(ROOT)


def not_triton():
    items = load_yaml(NOT_TRITON.read_text(encoding="utf-8"))
    for item in items:
        assert set(item) == {"message", "reason"}, item
        assert item["reason"].strip(), item
    return {item["message"]: item["reason"] for item in items}


def test_the_catalogue_covers_the_version_matrix(catalogue):
    matrix = json.loads((ROOT / "data" / "version-matrix.json").read_text())["versions"]
    assert catalogue.releases == matrix
    assert [w["version"] for w in catalogue.data["wheels"]] == matrix
    assert all(len(w["sha256"]) == 64 and w["wheel"].startswith(f"triton-{w['version']}-") for w in catalogue.data["wheels"])
    kinds = catalogue.data["counts"]["per_kind"]
    assert set(kinds) == {"python", "compiler", "driver", "ptxas", "inductor"}, kinds
    assert all(count > 0 for count in kinds.values())
    for release in matrix:
        assert catalogue.data["counts"]["per_release"][release] > 0, release


def test_every_claimed_and_real_message_matches_a_template_or_is_listed(catalogue):
    listed = not_triton()
    unexplained = []
    for entry, message, source in messages.entry_messages(ROOT):
        if not catalogue.match(message) and message not in listed:
            unexplained.append(f"{entry} ({source}): {message!r}")
    for item in load_yaml((ROOT / "tests" / "data" / "real_messages.yaml").read_text(encoding="utf-8")):
        if item["entry"] is None and not catalogue.match(item["message"]) and item["message"] not in listed:
            unexplained.append(f"none ({item['url']}): {item['message']!r}")
    assert not unexplained, ("messages that match no template of Triton's and are not in "
                             f"{NOT_TRITON.relative_to(ROOT)}:\n" + "\n".join(unexplained))


def test_the_not_triton_list_holds_no_message_that_matches(catalogue):
    matching = [f"{m!r} matches {catalogue.match(m)[0].template.text!r}" for m in not_triton() if catalogue.match(m)]
    assert not matching, "listed as not Triton's, yet matching a template:\n" + "\n".join(matching)


def test_the_stored_entry_mapping_is_current(catalogue):
    mapped = messages.entries_for(catalogue, ROOT)
    stored = {t: set(e) for t, e in zip(catalogue.columns["id"], catalogue.columns["entries"]) if e}
    assert stored == {t: e for t, e in mapped.items() if e}, (
        "the entries' messages changed since the catalogue was mapped: run `triton-faq catalogue --map-only`")
    ids = {entry.id for entry in handbook.load(ROOT).entries}
    assert set().union(*stored.values()) <= ids


def test_a_short_phrase_inside_a_claimed_message_is_not_mapped_to_the_entry(catalogue):
    """TP083 claims Python's `unsupported operand type(s) for ** or pow(): 'tensor' and 'int'`; the
    compiler's own `unsupported operand type` is another message, and TP065's `Triton Error [CUDA]:
    device kernel image is invalid` does not make every `Triton Error [CUDA]: {...}` TP065's."""
    mapped = messages.entries_for(catalogue, ROOT)
    texts = dict(zip(catalogue.columns["id"], catalogue.columns["text"]))
    by_text = {}
    for template, entries in mapped.items():
        by_text.setdefault(texts[template], set()).update(entries)
    assert "TP083" not in by_text.get("unsupported operand type", set())
    assert "TP065" not in by_text.get("Triton Error [CUDA]: {cuGetErrorString}", set())
    assert "TP039" in by_text["Pipeline failed while executing"]  # a prefix of four words of its own still maps


def test_matching_finds_messages_in_the_forms_users_paste(catalogue):
    def texts(text):
        return [hit.template.text for hit in catalogue.match(text)]

    # a whole traceback: the template inside it, its placeholder standing for the value
    traceback = ("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    kernel[grid](x)\n"
                 "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, "
                 "Hardware limit: 65536. Reducing block sizes or `num_stages` may help.\n")
    assert texts(traceback)[0].startswith("out of resource: {")
    # an issue title that cuts the message short
    assert any(t.startswith("Cannot access global variable {") for t in
               texts("NameError: Cannot access global variable BLOCK_M from within @jit'ed function. Triton"))
    # the driver's form of a CUDA error: the specific template, not only the generic one
    assert texts("RuntimeError: Triton Error [CUDA]: misaligned address")[0] == "Triton Error [CUDA]: misaligned address"
    # ptxas through Triton
    assert "Value '{%s}' is not defined for option '{%s}'" in texts("ptxas fatal   : Value 'sm_120a' is not defined "
                                                                   "for option 'gpu-name'")
    # a generic template matches a whole line only
    assert "{name} is not defined" in texts("NameError('mean is not defined')")
    assert "{name} is not defined" not in texts("the value is not defined here, says the manual")
    # text that is no message of Triton's
    assert texts("my kernel is slow on an A100") == []


def test_describe_says_what_raises_a_message_and_where(catalogue):
    hit = catalogue.match("ValueError: arange's range must be a power of 2")[0]
    said = messages.describe(hit)
    assert said["kind"] == "python" and said["file"] == "triton/language/semantic.py"
    assert said["source_url"].startswith("https://github.com/triton-lang/triton/blob/v3.9.0/python/triton/language/")
    assert said["release_span"] == "3.2–3.9"
    assert "TP009" in said["entries"]
    assert said["report"].startswith("search https://github.com/triton-lang/triton/issues?q=")


def test_loading_and_matching_are_fast():
    raw = (ROOT / messages.DATA).read_bytes()
    loads, calls = [], []
    traceback = "\n".join(f"  File \"/site-packages/pkg/module_{i}.py\", line {i}, in function_{i}\n    call_{i}(x, y)"
                          for i in range(150)) + "\nRuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"
    for _ in range(3):
        start = time.perf_counter()
        index = messages.Catalogue(json.loads(gzip.decompress(raw)))
        loads.append(time.perf_counter() - start)
        start = time.perf_counter()
        assert index.match(traceback)
        calls.append(time.perf_counter() - start)
    assert min(loads) < 0.5, f"loading took {min(loads):.3f} s"
    assert min(calls) < 0.05, f"one match took {min(calls) * 1000:.1f} ms"


def test_the_committed_data_is_whole():
    data = catalogue_build.read(ROOT)
    columns = data["templates"]
    assert len({len(values) for values in columns.values()}) == 1
    assert len(set(columns["id"])) == len(columns["id"])
    assert data["generated_by"].startswith("triton-faq catalogue")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_explain_answers_a_known_message_without_an_entry_with_its_source_and_releases(language):
    """A message Triton prints that no entry answers: explain says what raises it, where, in which
    releases and how to report it (and never one confident entry)."""
    from triton_faq import ui_text
    from triton_faq.explain import answer, explain

    text = "RuntimeError: Triton Error [CUDA]: context is destroyed"
    found = answer(text, ROOT)
    assert found.kind != "single" and found.known is not None and found.known["entries"] == []
    printed = explain(text, language, ROOT)
    assert printed.startswith(ui_text.text(language, "explain.known"))
    assert "driver.c:" in printed and "3.2–3.9" in printed and "https://github.com/triton-lang/triton/issues" in printed


def test_the_ranking_of_unanswered_messages_counts_threads_of_messages_without_an_entry():
    """tooling/unanswered_messages.py: a message no entry explains counts once per thread that pastes it;
    a message an entry explains, and a generic one, do not count."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("unanswered", ROOT / "tooling" / "unanswered_messages.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    unknown = "ValueError: numel (2097152) exceeds triton maximum tensor numel (1048576)"  # no entry explains it
    rows = tool.unanswered([("thread-1", unknown), ("thread-1", unknown), ("thread-2", unknown),
                            ("thread-3", "ValueError: arange's range must be a power of 2"),
                            ("thread-4", "NameError: name 'x' is not defined")])
    assert [(key.split()[:4], len(urls)) for key, _, urls in rows] == [(["numel", "({numel})", "exceeds", "triton"], 2)]
    assert rows[0][1]["release_span"]
