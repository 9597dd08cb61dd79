"""explain's ranking (triton_faq/retrieval.py) and its confidence, on the tokeniser and on real reports.

The frozen report set (tests/data/frozen_reports/, collected and judged by its RULE.md before the
ranking was written, never tuned on) and the held-out set (tests/data/heldout_reports/, collected
blind to the ranking and judged before it was scored, never tuned on) are held to the rates they
reached when first measured, and no confident single answer may be wrong on them, on the tuning
set or on the development set.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from triton_faq.handbook.page import load_yaml  # libyaml: the sets load at collection, in every worker
from triton_faq import handbook, retrieval
from triton_faq import ui_text as interface
from triton_faq.explain import ExplainError, answer, explain, generic_messages

FROZEN = load_yaml((Path(__file__).parent / "data" / "frozen_reports" / "reports.yaml").read_text(encoding="utf-8"))
DEVELOPMENT = load_yaml((Path(__file__).parent / "data" / "real_messages.yaml").read_text(encoding="utf-8"))
TUNING = load_yaml((Path(__file__).parent / "data" / "tuning_reports" / "reports.yaml").read_text(encoding="utf-8"))
HELDOUT = load_yaml((Path(__file__).parent / "data" / "heldout_reports" / "reports.yaml").read_text(encoding="utf-8"))
SETS = {"frozen": FROZEN, "tuning": TUNING, "heldout": HELDOUT}
# A floor: the frozen set's rates on the ranking and entries as last measured. They were 19/24 top-3
# overall and 6/10 symptom-only (scores/after-new-entries.json, after-title-weight.json); adding TP087
# (FP fusion, an entry chosen from Triton 3.9's warnings, its words written from its page) moved one
# symptom-only report out of the top 3: 18/24 and 5/10. The set is never tuned on, so the entry was not
# reworded to win the report back. The overall target, 80%, is not met; this floor only keeps a
# change from losing more ground. Adding TP091 (a module named triton that is not Triton, chosen from Triton's
# issue tracker) moved one more report out: triton-viz#30, judged TP060, is now answered by TP091 alone
# (tests/data/frozen_reports/LATER.yaml says why): 17/24. Adding TP092 (two stores to one address in one
# program, chosen from Triton's issue tracker: triton#10743, #1615) moved one more symptom-only report out
# (triton#1088, judged TP004/TP003: TP092 now third): 16/24 and 4/10 (scores/after-tp092.json).
FROZEN_TOP3 = 16 / 24
FROZEN_SYMPTOM_TOP3 = 4 / 10
# The held-out set's rates when first measured (scores/first.json): 26/31 top-3, 7/9 symptom-only.
HELDOUT_TOP3 = 26 / 31
HELDOUT_SYMPTOM_TOP3 = 7 / 9


def test_code_tokens_are_split_and_kept_whole():
    found = retrieval.terms("tl.float32 and OutOfResources in num_warps")
    assert {"tl", "float32", "tl.float32", "out", "resourc", "outofresources", "num", "warp", "num_warps"} <= set(found)
    assert "and" not in found and "in" not in found  # the site search's stop words


def test_inflections_meet():
    assert retrieval.terms("the kernel writes") == retrieval.terms("kernels writing")


def test_noise_is_removed_before_scoring():
    noisy = ('[rank0]:   File "/usr/lib/python3.12/site-packages/triton/runtime/jit.py", line 757, in run\n'
             "NVIDIA H100 80GB running Qwen2.5-72B-Instruct at 0x7f3a2b, 131072 tokens: the values are garbage")
    assert retrieval.terms(noisy) == retrieval.terms("running at tokens: the values are garbage")


def test_a_reports_title_weighs_more_than_its_body():
    built = retrieval.index(ROOT)
    weights = retrieval.query_weights("shared memory\nthe kernel is slow", built)
    assert weights["shar"] == weights["memory"] == retrieval.TITLE_WEIGHT > 1
    assert weights["slow"] == 1.0
    assert set(retrieval.query_weights("shared memory", built).values()) == {1.0}  # one line: no title
    assert set(retrieval.query_weights("Traceback (most recent call last):\nshared memory", built).values()) == {1.0}


def test_the_stop_words_are_the_site_searchs():
    for language in ("en", "zh"):
        assert set(interface.text(language, "search.stop_words").split()) <= retrieval.STOP


def test_chinese_is_segmented_and_meets_chinese_pages():
    assert {"共享", "内存", "共享内存"} & set(retrieval.terms("共享内存不够"))
    assert "TP027" in [entry_id for entry_id, _ in retrieval.rank("共享内存不够用", ROOT)[:3]]


def test_a_chinese_text_is_answered_in_chinese_unless_asked_otherwise():
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    run = lambda *args: subprocess.run([sys.executable, "-m", "triton_faq", "explain", *args], capture_output=True,
                                       cwd=ROOT, env=env, timeout=120, text=True)
    assert "简短回答：" in run("kernel 每次换个尺寸就重新编译").stdout
    assert "Short answer:" in run("--lang", "en", "kernel 每次换个尺寸就重新编译").stdout


def test_every_generic_message_names_entries_that_exist_in_both_languages():
    ids = {entry.id for entry in handbook.load(ROOT).entries}
    for group in generic_messages():
        assert set(group["entries"]) <= ids, group["name"]
        for line in [*group["entries"].values(), group["otherwise"]]:
            assert set(line) == {"en", "zh"} and all(line.values()), group["name"]


def test_every_entry_that_names_a_generic_message_is_listed_among_its_causes():
    """A message an entry claims or names in its title or symptoms, when it is generic, is one of the
    causes in the list explain prints for it (the first group whose pattern matches, as explain picks):
    TP065 and TP071 were left out of their lists once."""
    groups = generic_messages()
    for entry in handbook.load(ROOT).entries:
        texts = [error.message for error in entry.errors]
        texts += [line for view in entry.views() for line in (view.title, *view.symptoms)]
        for text in texts:
            group = next((g for g in groups if g["compiled"].search(text)), None)
            assert group is None or entry.id in group["entries"], (group["name"], entry.id, text)


def test_a_message_an_entry_names_is_not_said_to_have_no_entry():
    """A message of Triton's catalogue that an entry names in its title is mapped to that entry
    (``messages.named_messages``) and answered through it, even where its proof cannot claim it
    (TP065: the driver it needs is older than the GPU machine's)."""
    out = explain("RuntimeError: Triton Error [CUDA]: device kernel image is invalid", "en", ROOT)
    assert interface.text("en", "explain.known") not in out
    assert out.index("TP065 · ") < out.index("TP037 · ")


@pytest.mark.parametrize("text, listed", [
    ("NameError('acc is not defined')", {"TP041", "TP046", "TP033"}),
    ("NameError: name 'jit' is not defined", {"TP041", "TP046", "TP033"}),
    ("RuntimeError: Cannot call @triton.jit'd outside of the scope of a kernel", {"TP040", "TP021"}),
    ("RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered", {"TP023", "TP004", "TP003", "TP024"}),
    ("RuntimeError: Triton Error [CUDA]: device kernel image is invalid", {"TP037", "TP062", "TP023", "TP065"}),
    ("RuntimeError: 2 active drivers ([<class 'a.CudaDriver'>, <class 'b.CudaDriver'>]).", {"TP012"}),
    ("torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the package is not "
     "installed or it is too old.", {"TP064", "TP060"}),
])
def test_a_generic_message_lists_every_entry_that_explains_it_never_one_alone(text, listed):
    found = answer(text, ROOT)
    assert found.kind != "single" and found.group is not None
    out = explain(text, "en", ROOT)
    assert interface.text("en", "explain.causes") in out
    assert all(f"  {entry_id} · " in out for entry_id in listed), out[-800:]


def test_one_fingerprint_and_nothing_else_is_one_answer():
    found = answer("ValueError: arange's range must be a power of 2", ROOT)
    assert found.kind == "single" and found.matches[0].entry.id == "TP009"


def test_a_fingerprint_with_a_text_that_points_elsewhere_is_not_one_answer():
    text = ("ValueError: arange's range must be a power of 2\n"
            "and separately: tl.dot on float32 inputs is less accurate than torch.matmul, TF32 input_precision ieee")
    found = answer(text, ROOT)
    assert found.kind == "several" and [m.entry.id for m in found.matches][:2] == ["TP009", "TP035"]


def test_a_text_that_matches_nothing_names_no_entry():
    with pytest.raises(ExplainError, match="no entry matches this text"):
        answer("the weather in the mountains is lovely today", ROOT)


def _covered_top3(report):
    try:
        got = [match.entry.id for match in answer(report["text"], ROOT).matches[:3]]
    except ExplainError:
        got = []
    return bool(set(got) & {report["entry"], *report.get("also", [])})


@pytest.mark.parametrize("name, judged, floor, symptom_floor", [
    ("frozen", (24, 10), FROZEN_TOP3, FROZEN_SYMPTOM_TOP3),
    ("heldout", (31, 9), HELDOUT_TOP3, HELDOUT_SYMPTOM_TOP3),
])
def test_a_measuring_set_keeps_its_measured_rates(name, judged, floor, symptom_floor):
    covered = [report for report in SETS[name] if report["entry"] != "none"]
    symptoms = [report for report in covered if report["kind"] == "symptom"]
    assert len(SETS[name]) >= 60 and (len(covered), len(symptoms)) == judged
    hits = {id(report): _covered_top3(report) for report in covered}
    rate = sum(hits.values()) / len(covered)
    symptom_rate = sum(hits[id(report)] for report in symptoms) / len(symptoms)
    assert rate >= floor and symptom_rate >= symptom_floor, (rate, symptom_rate)


@pytest.mark.parametrize("name", ["frozen", "tuning", "heldout"])
def test_a_report_set_is_judged_to_entries_that_exist_with_its_kind_and_language(name):
    reports = SETS[name]
    ids = {entry.id for entry in handbook.load(ROOT).entries} | {"none"}
    urls = [report["url"] for report in reports]
    assert len(urls) == len(set(urls))
    for report in reports:
        assert {"query", "url", "lang", "kind", "entry", "note", "text"} <= set(report), report["url"]
        assert report["kind"] in ("message", "symptom", "install") and report["lang"] in ("en", "zh"), report["url"]
        assert report["entry"] in ids and set(report.get("also", [])) <= ids, report["url"]
    if name == "tuning":  # no thread of the frozen set is tuned on
        assert not set(urls) & {report["url"] for report in FROZEN}
    if name == "heldout":  # a thread of no other set
        others = {report["url"] for report in FROZEN + TUNING} | {report["url"] for report in DEVELOPMENT}
        assert not set(urls) & others


def confident_disagreements(reports: list[tuple[str, str, set[str]]]) -> dict[str, str]:
    """For (key, text, answering entries): the key and the entry of each single answer that is not among them."""
    found_wrong = {}
    for key, text, answers in reports:
        try:
            found = answer(text, ROOT)
        except ExplainError:
            continue
        if found.kind == "single" and found.matches[0].entry.id not in answers:
            found_wrong[key] = found.matches[0].entry.id
    return found_wrong


@pytest.mark.parametrize("name", ["tuning", "heldout", "development"])  # the frozen set: the test after this one
def test_no_confident_single_answer_is_wrong(name):
    if name in SETS:
        reports = [(r["text"][:100], r["text"], {r["entry"], *r.get("also", [])} - {"none"}) for r in SETS[name]]
    else:
        reports = [(r["message"][:100], r["message"], {r["entry"]} - {None}) for r in DEVELOPMENT]
    assert not confident_disagreements(reports)


def test_the_frozen_sets_confident_disagreements_are_the_listed_ones():
    """On the frozen set, a confident answer that disagrees with a judgement is a failure, unless it names an
    entry added after the set was judged and is listed, with why, in frozen_reports/LATER.yaml."""
    later = {item["url"]: item for item in
             load_yaml((Path(__file__).parent / "data" / "frozen_reports" / "LATER.yaml").read_text(encoding="utf-8"))}
    reports = [(r["url"], r["text"], {r["entry"], *r.get("also", [])} - {"none"}) for r in SETS["frozen"]]
    assert confident_disagreements(reports) == {url: item["answered_by"] for url, item in later.items()}
    judged = {report["url"]: report["entry"] for report in SETS["frozen"]}
    assert all(judged[url] == item["judged"] for url, item in later.items())


@pytest.mark.parametrize("name, scores", [("frozen", "after.json"), ("frozen", "after-new-entries.json"),
                                          ("heldout", "first.json"), ("heldout", "after-new-entries.json")])
def test_the_scores_file_matches_its_set(name, scores):
    """The scores file the floor comes from was measured on this set: same reports, same judgements."""
    path = Path(__file__).parent / "data" / f"{name}_reports" / "scores" / scores
    measured = [(item["url"], sorted(item["answers"])) for item in json.loads(path.read_text(encoding="utf-8"))["items"][name]]
    judged = [(r["url"], sorted([] if r["entry"] == "none" else [r["entry"], *r.get("also", [])])) for r in SETS[name]]
    assert measured == judged
