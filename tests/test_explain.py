"""`triton-faq explain`: pasted messages, tracebacks and IDs lead to their entry; bad input gets one line."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from triton_faq import claimed_errors as errors
from triton_faq.explain import default_language, explain

CLAIMED, _ = errors.load(ROOT)
NOISE = "\n".join(f'  File "/site-packages/lib/module_{i}.py", line {i}, in call_{i}' for i in range(200))


def cli(*args, stdin=b""):
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    return subprocess.run([sys.executable, "-m", "triton_faq", "explain", *args], input=stdin,
                          capture_output=True, cwd=ROOT, env=env, timeout=120)


def test_an_id_prints_the_entry_with_its_short_answer_fix_and_link():
    out = explain("TP001", "en")
    assert out.startswith("TP001 · tl.max returns 0")
    assert "Short answer:" in out and "def row_max_fixed(" in out
    assert "https://triton-faq.github.io/triton-faq/garbage-values/masked-load-without-other/" in out


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_short_answer_is_the_pages_prose_without_its_folded_prelude(language):
    """The answer ends before the first code, section or admonition (the folded prelude that follows
    the answer on every page once leaked into every answer, with its snippet include)."""
    from triton_faq import handbook

    for entry in handbook.load(ROOT).entries:
        answer = entry.view(language).answer
        assert answer and not any(mark in answer for mark in ("--8<--", "???", "!!!", "```")), (entry.id, answer[-200:])
    out = explain("TP001", language)
    assert "--8<--" not in out and "???" not in out


def test_chinese_on_request():
    out = explain("tp001", "zh")
    assert "简短回答：" in out and "https://triton-faq.github.io/triton-faq/zh/garbage-values/masked-load-without-other/" in out


@pytest.mark.parametrize("language, text, expected", [
    ("en", "tl.max gives 0 on rows that are all negative", "TP001"),
    ("en", "my kernel works in the interpreter but crashes with an illegal memory access on the GPU", "TP004 TP023"),
    ("en", "results differ from run to run when several programs add to the same element", "TP005"),
    ("en", "the kernel recompiles on every call with a new size", "TP029"),
    ("en", "where did tl.math.tanh go", "TP021"),
    ("zh", "全是负数的行 tl.max 结果是 0", "TP001"),
    ("zh", "多个 program 同时写同一个位置，结果每次都不一样", "TP005"),
    ("zh", "kernel 每次换个尺寸就重新编译", "TP029"),
    ("zh", "双曲正切 tanh 在哪里", "TP021"),
    ("zh", "共享内存不够 out of resource", "TP027"),
])
def test_a_described_symptom_finds_its_entry_in_the_top_three(language, text, expected):
    from triton_faq.explain import candidates

    found = [m.entry.id for m in candidates(text, ROOT)][:3]
    assert set(expected.split()) & set(found), (text, found)  # any entry that answers it


def test_json_gives_each_candidate_with_its_url_and_fix():
    result = cli("--json", "--lang", "en", "TP001")
    assert result.returncode == 0, result.stderr
    import json

    [found] = json.loads(result.stdout)
    assert found["id"] == "TP001" and found["url"].endswith("/garbage-values/masked-load-without-other/")
    assert "def row_max_fixed(" in found["fix"] and found["answer"].startswith("Give the masked")


@pytest.mark.parametrize("error", CLAIMED, ids=lambda e: e.name)
def test_a_long_traceback_ending_in_a_claimed_message_finds_its_entry(error):
    traceback = f"Traceback (most recent call last):\n{NOISE}\nSomeError: {error.message}\n"
    out = explain(traceback, "en")
    sharing = {e.entry.id for e in CLAIMED if e.fingerprint.search(error.message)}
    if len(sharing) == 1:
        assert out.startswith(f"{error.entry.id} ·")  # one entry claims it: shown alone
    else:  # several entries match: the most specific fingerprint wins, or each is offered, up to three
        assert out.startswith(f"{error.entry.id} ·") or (
            out.startswith("Several entries answer this message:") and (f"{error.entry.id} ·" in out or len(sharing) > 3))


def test_fuzzy_matching_offers_up_to_three_candidates():
    out = explain("my tl.max is zero after a masked load", "en")
    assert out.startswith("Not sure; the closest entries:")
    assert out.count(" · ") <= 3 and "TP001 ·" in out


@pytest.mark.parametrize("args, stdin, message", [
    ((), b"", "nothing to explain"),
    ((), b"\x00\x01\x02binary", "the input is binary"),
    ((), b"x" * (10 << 20), "the input is larger than 1 MiB"),
    (("TP999",), b"", "no entry TP999"),
    (("zzzz qqqq",), b"", "no entry matches this text"),
], ids=["empty", "binary", "10-MiB", "unknown-id", "no-match"])
def test_bad_input_gets_one_clear_line_and_exit_1(args, stdin, message):
    result = cli(*args, stdin=stdin)
    assert result.returncode == 1
    stderr = result.stderr.decode()
    assert stderr.count("\n") == 1 and stderr.startswith(f"triton-faq explain: {message}")
    assert "Traceback" not in stderr and result.stdout == b""


def test_stdin_is_read_when_no_text_is_given():
    result = cli(stdin=b"TP001\n")
    assert result.returncode == 0 and result.stdout.decode().startswith("TP001 ·")


@pytest.mark.parametrize("environ, language", [
    ({}, "en"), ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),
])
def test_the_default_language_follows_the_locale(environ, language):
    assert default_language(environ) == language


def test_the_site_url_in_the_code_is_the_one_mkdocs_publishes_at():
    from triton_faq.handbook import load_site

    SITE_URL = load_site(ROOT).url

    lines = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    assert f"site_url: {SITE_URL}" in lines
