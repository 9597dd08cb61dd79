"""Search in a real browser: each language finds its own pages, pasted errors find their entry.

Serves the site the suite built once (built_site) on localhost and drives Debian's chromium with
Playwright (no browser is downloaded; the fixtures are in tests/conftest.py). `.ci/run` installs
chromium; without it the test fails in CI and is skipped, with the command to install it, elsewhere.
Everyday questions: test_search_questions.py.
"""

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
    from triton_faq import errors

    claimed, _ = errors.load(ROOT)
    pages = [error.entry.page.relative_to("docs/en").with_suffix("").as_posix() + "/" for error in claimed
             if error.message in query or query in error.message]
    return sorted(set(pages))


@pytest.mark.parametrize("language, query, expected", QUERIES, ids=[f"{lang}:{q}" for lang, q, _ in QUERIES])
def test_the_query_finds_its_entry_in_the_top_three(search_page, search_for, site, language, query, expected):
    prefix = site + ("zh/" if language == "zh" else "")
    hits = search_for(search_page(language), query)
    answers = [expected] + [page for page in answering(query) if page != expected]
    assert any(prefix + page in hits[:3] for page in answers), f"{query!r}: top three were {hits[:3]}"
    other = site + "zh/" if language == "en" else None
    assert not any(hit.startswith(other) for hit in hits if other), f"{query!r}: English search returned Chinese pages"
    if language == "zh":
        assert all(hit.startswith(site + "zh/") for hit in hits), f"{query!r}: Chinese search returned English pages"


def test_the_language_switcher_keeps_the_page(site, browser):
    page = browser.new_page()
    page.goto(site + "out-of-bounds/forgot-row-stride/")
    page.hover(".md-header__option .md-select")
    page.click("a[hreflang='zh']")
    page.wait_for_load_state()
    assert page.url == site + "zh/out-of-bounds/forgot-row-stride/"
    page.close()
