"""Search in a real browser: each language finds its own pages, pasted errors find their entry.

Serves the site the suite built once (built_site) on localhost and drives Debian's chromium with
Playwright (no browser is downloaded; the fixtures are in tests/conftest.py). `.ci/run` installs
chromium; without it the test fails in CI and is skipped, with the command to install it, elsewhere.
Everyday questions (search_questions.json): at least 90% of each language's find an answering entry
in the top three.
"""

import json

import pytest

from conftest import ROOT

# (language, query, the page expected among the first three results)
QUERIES = [
    ("en", "masked load without other max returns 0", "garbage-values/masked-load-without-other/"),
    ("en", "an illegal memory access was encountered", "out-of-bounds/what-an-overrun-does/"),
    ("en", "arange's range must be a power of 2", "performance/block-size-power-of-two/"),
    ("en", "module 'triton.language.math' has no attribute 'tanh'", "math-functions/where-is-tanh/"),
    ("en", "device-side assert triggered", "debugging/device-assert/"),
    ("en", "TRITON_PRINT_AUTOTUNING", "autotuning/print-autotuning/"),
    ("en", "online softmax", "reductions/online-softmax-state/"),
    ("en", "atomic_add race", "garbage-values/store-race-between-programs/"),
    ("en", "Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)", "launching/cpu-tensor-passed-to-kernel/"),
    ("en", "out of resource: shared memory, Required: 294912, Hardware limit: 232448",
     "compilation/out-of-resource-shared-memory/"),
    ("en", "NameError: Cannot access global variable BLOCK from within @jit'ed function",
     "compilation/global-variable-in-jit/"),
    ("en", "Conflicting meta-parameters: BLOCK_SIZE", "autotuning/in-place-kernel-autotuning/"),
    ("en", "Conflicting meta-parameters", "autotuning/in-place-kernel-autotuning/"),
    ("en", "Assertion `int32 overflow detected for operation mul` failed", "out-of-bounds/int32-offset-overflow/"),
    ("en", "CUDA error: an illegal memory access was encountered which line", "debugging/finding-an-illegal-memory-access/"),
    ("zh", "共享内存", "autotuning/registers-and-spills/"),
    ("zh", "寄存器溢出", "autotuning/registers-and-spills/"),
    ("zh", "步长", "out-of-bounds/forgot-row-stride/"),
    ("zh", "报错信息", "error-messages/"),
    ("zh", "掩码 other", "garbage-values/masked-load-without-other/"),
    ("zh", "计时器", "timing/timer-lambda-trap/"),
    ("zh", "块指针", "compilation/block-pointers-and-tensor-descriptors/"),
    ("zh", "非连续", "garbage-values/non-contiguous-input/"),
    ("zh", "arange's range must be a power of 2", "performance/block-size-power-of-two/"),
]


def answering(query: str) -> list[str]:
    """Pages of the entries that claim an error message contained in ``query``: each one answers it."""
    from triton_faq import claimed_errors as errors

    claimed, _ = errors.load(ROOT)
    pages = [error.entry.page.relative_to("docs/en").with_suffix("").as_posix() + "/" for error in claimed
             if error.message in query or query in error.message]
    return sorted(set(pages))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_query_finds_its_entry_in_the_top_three(search_page, search_many, site, language):
    """Each query of QUERIES puts its page (or an entry claiming a message it contains) in the top
    three, and only pages of its own language come back."""
    prefix = site + ("zh/" if language == "zh" else "")
    queries = [(query, expected) for lang, query, expected in QUERIES if lang == language]
    problems = []
    for (query, expected), hits in zip(queries, search_many(search_page(language), [q for q, _ in queries])):
        answers = [expected] + [page for page in answering(query) if page != expected]
        if not any(prefix + page in hits[:3] for page in answers):
            problems.append(f"{query!r}: top three were {[hit[len(site):] for hit in hits[:3]]}")
        if language == "en" and any(hit.startswith(site + "zh/") for hit in hits):
            problems.append(f"{query!r}: English search returned Chinese pages")
        if language == "zh" and not all(hit.startswith(site + "zh/") for hit in hits):
            problems.append(f"{query!r}: Chinese search returned English pages")
    assert not problems, "\n".join(problems)


def test_the_language_switcher_keeps_the_page(site, browser):
    page = browser.new_page()
    page.goto(site + "out-of-bounds/forgot-row-stride/")
    page.hover(".md-header__option .md-select")
    page.click("a[hreflang='zh']")
    page.wait_for_load_state()
    assert page.url == site + "zh/out-of-bounds/forgot-row-stride/"
    page.close()


def claimed_messages() -> dict[str, str]:
    """{message: the page of the first entry claiming it} for every message an entry claims."""
    from triton_faq import claimed_errors as errors

    claimed, _ = errors.load(ROOT)
    pages: dict[str, str] = {}
    for error in claimed:
        pages.setdefault(error.message, error.entry.page.relative_to("docs/en").with_suffix("").as_posix() + "/")
    return pages


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_claimed_message_finds_its_entry(search_page, search_many, site, language):
    """Each message an entry claims (front matter `errors:`), pasted whole into either language's
    search box, puts that entry (or another entry claiming the same message) in the top three."""
    prefix = site + ("zh/" if language == "zh" else "")
    messages = sorted(claimed_messages().items())
    misses = []
    for (message, expected), hits in zip(messages, search_many(search_page(language), [m for m, _ in messages])):
        answers = [expected] + [other for other in answering(message) if other != expected]
        if not any(prefix + answer in hits[:3] for answer in answers):
            misses.append(f"{message!r} -> {expected}: top three were {[h[len(site):] for h in hits[:3]]}")
    assert not misses, f"{len(misses)} claimed messages miss their entry:\n" + "\n".join(misses)


SAMPLE = {"en": [query for language, query, _ in QUERIES if language == "en"][:3] + ["why is my kernel slow"],
          "zh": [query for language, query, _ in QUERIES if language == "zh"][:3] + ["为什么 tl.max 返回 0"]}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_search_worker_of_its_own_finds_what_the_search_box_shows(search_page, search_for, search_many, language):
    """search_many (the bulk tests here) gives the pages, in order,
    that typing the same query into the search box lists."""
    page = search_page(language)
    typed = [search_for(page, query)[:5] for query in SAMPLE[language]]
    assert [hits[:5] for hits in search_many(page, SAMPLE[language])] == typed
    assert any(typed)  # the comparison compared results, not empty lists


QUESTIONS = json.loads((ROOT / "tests" / "search_questions.json").read_text(encoding="utf-8"))
QUESTIONS_FOUND = 0.9  # the share of each language's questions whose entry must be in the top three


@pytest.mark.parametrize("language", ["en", "zh"])
def test_everyday_questions_find_their_entry_in_the_top_three(search_page, search_many, site, language):
    """Questions typed as one asks a colleague: at least 90% find an answering entry in the top three."""
    prefix = site + ("zh/" if language == "zh" else "")
    questions = QUESTIONS[language]
    assert len(questions) >= 40
    missed = []
    for (query, expected), hits in zip(questions, search_many(search_page(language), [q for q, _ in questions])):
        if not any(prefix + page in hits[:3] for page in expected):
            missed.append(f"  {query!r} -> {expected[0]} (top three: {[hit[len(prefix):] for hit in hits[:3]]})")
    found = len(questions) - len(missed)
    rate = found / len(questions)
    assert rate >= QUESTIONS_FOUND, (f"{language}: {found} of {len(questions)} questions ({rate:.1%}) found their entry "
                                     f"in the top three, below {QUESTIONS_FOUND:.0%}; missed:\n" + "\n".join(missed))
