"""Search in a real browser: each language finds its own pages, pasted errors find their entry,
everyday questions (search_questions.json) find theirs.

Serves the site the suite built once (built_site) on localhost and drives Debian's chromium with Playwright (no browser
is downloaded). `.ci/run` installs chromium; without it the test fails in CI and is skipped, with
the command to install it, elsewhere.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from conftest import ROOT

QUESTIONS = json.loads((ROOT / "tests" / "search_questions.json").read_text(encoding="utf-8"))
QUESTIONS_FOUND = 0.9  # the share of each language's questions whose entry must be in the top three

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

PLACEHOLDER = "Type to start searching|键入以开始搜索|Initializing search|正在初始化搜索引擎"

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


@pytest.fixture(scope="module")
def site(built_site):
    if not os.path.exists(CHROMIUM):
        message = "Debian's chromium is needed for the browser test: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs it (.ci/run); its absence there is a failure
        pytest.skip(message)
    out = built_site
    with socket.socket() as probe:  # a free port on the loopback interface
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):  # wait until it answers
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def search_page(site, browser):
    """One page at a time, opened on the home page of the language asked for, its search box open.

    (Only the page in front renders search results, so languages take turns.)
    """
    current = {}

    def open_for(language):
        if language not in current:
            for page in current.values():
                page.close()
            current.clear()
            page = browser.new_page()
            page.goto(site + ("zh/" if language == "zh" else ""))
            page.click("label.md-search__icon, .md-search__input")
            current[language] = page
        return current[language]

    yield open_for
    for page in current.values():
        page.close()


def answering(query: str) -> list[str]:
    """Pages of the entries that claim an error message contained in ``query``: each one answers it."""
    from triton_faq import errors

    claimed, _ = errors.load(ROOT)
    pages = [error.entry.page.relative_to("docs/en").with_suffix("").as_posix() + "/" for error in claimed
             if error.message in query or query in error.message]
    return sorted(set(pages))


def search(page, query: str) -> list[str]:
    """The result pages for ``query``, in order, without anchors or highlight parameters."""
    box = page.locator("input.md-search__input")
    box.fill("")  # clear the last results first, so the ones read below are this query's
    box.press("End")
    page.wait_for_function(f"() => /{PLACEHOLDER}/.test(document.querySelector('.md-search-result__meta').innerText)",
                           polling=200, timeout=30_000)
    box.fill(query)  # pasted, as a person would with an error message ...
    box.press("End")  # ... plus a key press: Material searches on key events
    page.wait_for_function(
        """query => {
            const meta = document.querySelector('.md-search-result__meta').innerText;
            return document.querySelector('input.md-search__input').value === query
                && !/PLACEHOLDER/.test(meta);
        }""".replace("PLACEHOLDER", PLACEHOLDER), arg=query, polling=200, timeout=30_000)
    page.wait_for_timeout(300)
    links = page.eval_on_selector_all("li.md-search-result__item > a", "els => els.map(e => e.href)")
    seen = []
    for link in links:
        path = link.split("?")[0].split("#")[0]
        if path not in seen:
            seen.append(path)
    return seen


@pytest.mark.parametrize("language, query, expected", QUERIES, ids=[f"{lang}:{q}" for lang, q, _ in QUERIES])
def test_the_query_finds_its_entry_in_the_top_three(search_page, site, language, query, expected):
    prefix = site + ("zh/" if language == "zh" else "")
    hits = search(search_page(language), query)
    answers = [expected] + [page for page in answering(query) if page != expected]
    assert any(prefix + page in hits[:3] for page in answers), f"{query!r}: top three were {hits[:3]}"
    other = site + "zh/" if language == "en" else None
    assert not any(hit.startswith(other) for hit in hits if other), f"{query!r}: English search returned Chinese pages"
    if language == "zh":
        assert all(hit.startswith(site + "zh/") for hit in hits), f"{query!r}: Chinese search returned English pages"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_everyday_questions_find_their_entry_in_the_top_three(search_page, site, language):
    """Questions typed as one asks a colleague: at least 90% find an answering entry in the top three."""
    prefix = site + ("zh/" if language == "zh" else "")
    questions = QUESTIONS[language]
    assert len(questions) >= 40
    missed = []
    for query, expected in questions:
        hits = search(search_page(language), query)
        if not any(prefix + page in hits[:3] for page in expected):
            missed.append(f"  {query!r} -> {expected[0]} (top three: {[hit[len(prefix):] for hit in hits[:3]]})")
    found = len(questions) - len(missed)
    rate = found / len(questions)
    assert rate >= QUESTIONS_FOUND, (f"{language}: {found} of {len(questions)} questions ({rate:.1%}) found their entry "
                                     f"in the top three, below {QUESTIONS_FOUND:.0%}; missed:\n" + "\n".join(missed))


def test_the_language_switcher_keeps_the_page(site, browser):
    page = browser.new_page()
    page.goto(site + "out-of-bounds/forgot-row-stride/")
    page.hover(".md-header__option .md-select")
    page.click("a[hreflang='zh']")
    page.wait_for_load_state()
    assert page.url == site + "zh/out-of-bounds/forgot-row-stride/"
    page.close()
