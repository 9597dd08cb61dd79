import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import build

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built strictly once per test run and shared by every test (and pytest-xdist worker).

    A whole-suite run starts the build in the background as it begins (``BUILD_IN_BACKGROUND`` in the
    root conftest), so tests run while it builds; this waits for it, or builds if nothing started it.
    """
    import importlib.util
    import time

    from filelock import FileLock

    if importlib.util.find_spec("mkdocs") is None and not os.environ.get("CI"):  # CI has it: there, this fails
        pytest.skip("needs mkdocs (requirements.txt) to build the site; a GPU machine's run leaves the site to CI")
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # one folder for all workers
    out, result = shared / "built-site", shared / "built-site.json"
    started = shared / "built-site.started"
    with FileLock(str(shared / "built-site.lock")):
        if not result.is_file() and not started.is_file():
            done = build(ROOT, out)
            result.write_text(json.dumps({"returncode": done.returncode, "output": done.stdout + done.stderr}))
    deadline = time.monotonic() + 900
    while not result.is_file() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert result.is_file(), "the background site build did not finish in 15 minutes"
    outcome = json.loads(result.read_text())
    assert outcome["returncode"] == 0, outcome["output"]
    return out


@pytest.fixture
def site_copy(tmp_path: Path) -> Path:
    """A throwaway copy of everything the site build and the checks read, to break on purpose."""
    for name in ("docs", "snippets", "hooks", "data", "overrides", "evidence", "tests/entries"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    return tmp_path


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    """A site with this one's configuration and hooks but a single page per language: fast to build."""
    for name in ("hooks", "overrides", "data"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "example.py").write_text("# --8<-- [start:one]\nx = 1\n# --8<-- [end:one]\n")
    for language in ("en", "zh"):
        (tmp_path / "docs" / language).mkdir(parents=True)
        (tmp_path / "docs" / language / "index.md").write_text(
            "# Home\n\n```python\n--8<-- \"snippets/example.py:one\"\n```\n", encoding="utf-8")
    return tmp_path


# -- the site in a real browser (Debian's chromium, driven by Playwright; nothing is downloaded) --

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

PLACEHOLDER = "Type to start searching|键入以开始搜索|Initializing search|正在初始化搜索引擎"

@pytest.fixture(scope="session")
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


@pytest.fixture(scope="session")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def search_page(site, browser):
    """A page per language, opened on that language's home page, its search box open.

    (Only the page in front renders search results: ``search_for`` brings its page to the front.)
    """
    current = {}

    def open_for(language):
        if language not in current:
            page = browser.new_page()
            page.add_init_script(KEEP_WORKERS)  # so search_many can start a search worker like the page's
            page.goto(site + ("zh/" if language == "zh" else ""))
            page.click("label.md-search__icon, .md-search__input")
            current[language] = page
        return current[language]

    yield open_for
    for page in current.values():
        page.close()



# Before the page's own scripts run: note the address of the search worker the page starts and the
# setup message it sends it (the index and its configuration), so search_many can start its own.
KEEP_WORKERS = """
(() => {
    const Original = window.Worker;
    window.Worker = function (url, ...rest) { window.__searchWorkerUrl = url; return new Original(url, ...rest); };
    window.Worker.prototype = Original.prototype;
    const post = Original.prototype.postMessage;
    Original.prototype.postMessage = function (message, ...rest) {
        if (message && message.type === 0) window.__searchSetup = message;
        return post.call(this, message, ...rest);
    };
})();
"""


@pytest.fixture(scope="session")
def search_many():
    """``search_many(page, queries)``: the result pages for each query, as ``search_for`` reads them.

    The queries go, one after another, to a search worker of the page's own: the same script, set up
    with the same message as the page's, sent what the search box sends when one types (``{type: 2,
    data: query}``, prepared by overrides/main.html on the way). The pages are read off each answer
    in the order the result list shows them. Only the drawing of the list is left out:
    test_search_browser.py checks that both ways give the same pages.
    """
    return search_through_a_worker


def search_through_a_worker(page, queries: list[str]) -> list[list[str]]:
    page.wait_for_function("() => window.__searchSetup !== undefined", polling=50, timeout=60_000)
    return page.evaluate("""async queries => {
        if (!window.__ownSearch) {  // started once a page, then asked again
            const worker = new Worker(window.__searchWorkerUrl);
            let resolve = null;
            worker.addEventListener("message", event => resolve && resolve(event.data));
            const ask = message => new Promise(done => { resolve = done; worker.postMessage(message); });
            const ready = await ask(window.__searchSetup);
            if (ready.type !== 1) throw new Error("the search worker did not start: " + JSON.stringify(ready));
            window.__ownSearch = ask;
        }
        const ask = window.__ownSearch;
        const answers = [];
        for (const query of queries) {
            const answer = await ask({type: 2, data: query});
            const pages = [];
            for (const item of answer.data.items.flat()) {
                const url = new URL(item.location, location.href);
                const page = url.origin + url.pathname;
                if (!pages.includes(page)) pages.push(page);
            }
            answers.push(pages);
        }
        return answers;
    }""", queries)


@pytest.fixture(scope="session")
def search_for():
    """``search_for(page, query)``: the result pages for a query typed into the site's search box."""
    return search


def search(page, query: str) -> list[str]:
    """The result pages for ``query``, in order, without anchors or highlight parameters.

    The results on screen are marked first; the ones read below are those that replaced them, once
    the box holds ``query``: Material renders a new list for every search. An empty list counts once
    the count line changed, or after 0.8 s (a query with no results after another with none).
    """
    page.bring_to_front()
    box = page.locator("input.md-search__input")
    page.evaluate("""() => {
        const list = document.querySelector('.md-search-result__list');
        for (const item of (list ? list.children : [])) item.dataset.stale = '1';
        window.__searchMeta = document.querySelector('.md-search-result__meta').innerText;
        window.__searchStarted = Date.now();
    }""")
    box.fill(query)  # pasted, as a person would with an error message ...
    box.press("End")  # ... plus a key press: Material searches on key events
    page.wait_for_function(
        """query => {
            const meta = document.querySelector('.md-search-result__meta').innerText;
            const items = [...(document.querySelector('.md-search-result__list') || {children: []}).children];
            const fresh = items.length ? !items.some(item => item.dataset.stale)
                                       : (meta !== window.__searchMeta || Date.now() - window.__searchStarted > 800);
            return document.querySelector('input.md-search__input').value === query
                && !/PLACEHOLDER/.test(meta) && fresh;
        }""".replace("PLACEHOLDER", PLACEHOLDER), arg=query, polling=30, timeout=30_000)
    page.wait_for_timeout(60)  # let the result list finish rendering
    links = page.eval_on_selector_all("li.md-search-result__item > a", "els => els.map(e => e.href)")
    seen = []
    for link in links:
        path = link.split("?")[0].split("#")[0]
        if path not in seen:
            seen.append(path)
    return seen


