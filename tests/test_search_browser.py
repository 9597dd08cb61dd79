"""Search in a real browser: each language finds its own pages, pasted errors find their entry.

Builds the site, serves it on localhost and drives Debian's chromium with Playwright (no browser
is downloaded). `.ci/run` installs chromium; without it the test fails in CI and is skipped, with
the command to install it, elsewhere.
"""

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading

import pytest

from conftest import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

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
    ("zh", "共享内存", "autotuning/registers-and-spills/"),
    ("zh", "寄存器溢出", "autotuning/registers-and-spills/"),
    ("zh", "步长", "out-of-bounds/forgot-row-stride/"),
    ("zh", "报错信息", "error-messages/"),
    ("zh", "掩码 other", "garbage-values/masked-load-without-other/"),
    ("zh", "计时器", "timing/host-timer-without-sync/"),
    ("zh", "arange's range must be a power of 2", "performance/block-size-power-of-two/"),
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        message = "Debian's chromium is needed for the browser test: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs it (.ci/run); its absence there is a failure
        pytest.skip(message)
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    handler = functools.partial(QuietHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def search_pages(site, browser):
    pages = {}
    for language in ("en", "zh"):
        page = browser.new_page()
        page.goto(site + ("zh/" if language == "zh" else ""))
        page.click("label.md-search__icon, .md-search__input")
        pages[language] = page
    yield pages
    for page in pages.values():
        page.close()


def search(page, query: str) -> list[str]:
    """The result pages for ``query``, in order, without anchors or highlight parameters."""
    page.fill("input.md-search__input", "")
    page.fill("input.md-search__input", query)
    page.wait_for_function(
        """query => {
            const meta = document.querySelector('.md-search-result__meta').innerText;
            return document.querySelector('input.md-search__input').value === query
                && !/Type to start searching|键入以开始搜索|Initializing search|正在初始化搜索引擎/.test(meta);
        }""", arg=query, timeout=60_000)
    page.wait_for_timeout(300)
    links = page.eval_on_selector_all("li.md-search-result__item > a", "els => els.map(e => e.href)")
    seen = []
    for link in links:
        path = link.split("?")[0].split("#")[0]
        if path not in seen:
            seen.append(path)
    return seen


@pytest.mark.parametrize("language, query, expected", QUERIES, ids=[f"{lang}:{q}" for lang, q, _ in QUERIES])
def test_the_query_finds_its_entry_in_the_top_three(search_pages, site, language, query, expected):
    prefix = site + ("zh/" if language == "zh" else "")
    hits = search(search_pages[language], query)
    assert prefix + expected in hits[:3], f"{query!r}: top three were {hits[:3]}"
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
