"""What search costs a reader: bytes downloaded and time to the first result, in chromium, on the built
site and on a simulated handbook of 500 entries; and the browser tokenises a query as the index does.

Targets (issue: search that scales): the first result after downloading at most 300 KB for search, within
0.5 s of the page's load, in each language; what a query downloads grows slowly with the handbook.
"""

import gzip
import json
import shutil
import time
from pathlib import Path

import pytest

from conftest import ROOT
from triton_faq import handbook, retrieval, search_index

BYTES = 300_000
SECONDS = 0.5
QUERY = {"en": "arange's range must be a power of 2", "zh": "为什么 tl.max 返回 0"}
WORKER = ROOT / "overrides" / "assets" / "javascripts" / "search-worker.js"
SITE = handbook.load_site(ROOT)


def is_search(url: str) -> bool:
    return "/search/" in url or url.endswith("search-worker.js")


def first_result(browser, url: str, query: str) -> dict:
    """Open ``url`` in a fresh page, type ``query`` once the page has loaded; the bytes search downloaded
    (as sent, and gzip-compressed as a server that compresses would send them) and the seconds from the
    page's load to the first result on screen."""
    page = browser.new_page()
    bodies = []
    page.on("response", lambda response: is_search(response.url) and response.ok and bodies.append(response.body()))
    page.goto(url, wait_until="load")
    loaded = time.monotonic()
    page.click("label.md-search__icon, .md-search__input")
    page.locator("input.md-search__input").fill(query)
    page.locator("input.md-search__input").press("End")
    page.wait_for_selector("li.md-search-result__item", timeout=30_000)
    seconds = time.monotonic() - loaded
    first = page.eval_on_selector("li.md-search-result__item article", "e => e.innerText")
    page.close()
    return {"bytes": sum(len(body) for body in bodies), "gzip": sum(len(gzip.compress(body)) for body in bodies),
            "seconds": seconds, "first": first}


LOADED = 2.0  # seconds: the bound when the machine is busier than it has cores (see below)


@pytest.mark.slow
@pytest.mark.parametrize("language", SITE.languages)
def test_the_first_result_comes_after_little_download_and_soon_after_the_page_loads(site, browser, language):
    """The bytes always; the time on the fastest of five fresh pages. Wall time on a machine busier than
    it has cores (a parallel test run) measures the other work as much as the search, so there the
    bound is LOADED seconds and the 0.5 s target is checked when the machine has a core to spare."""
    import os

    runs = [first_result(browser, site + SITE.url_path("index", language), QUERY[language]) for _ in range(5)]
    fastest = min(runs, key=lambda run: run["seconds"])
    print(f"{language}: {fastest['bytes']} bytes ({fastest['gzip']} gzip), {fastest['seconds']:.3f} s")
    assert max(run["bytes"] for run in runs) <= BYTES, runs
    busy = os.getloadavg()[0] > (os.cpu_count() or 1)
    assert fastest["seconds"] <= (LOADED if busy else SECONDS), runs


@pytest.mark.parametrize("language", SITE.languages)
def test_a_result_shows_the_entrys_answer_not_its_code(site, browser, language):
    """The preview is the entry's description (the answer in a sentence), not the prelude code."""
    run = first_result(browser, site + SITE.url_path("index", language), QUERY[language])
    entry = handbook.load(ROOT).find("TP009" if language == SITE.default else "TP001")
    assert entry.view(language).description[:40] in run["first"], run["first"]
    assert "import" not in run["first"]


def test_the_browser_tokenises_a_query_as_the_index_does(browser, site):
    """search-worker.js's terms() against search_index.terms() on every title, description, symptom,
    keyword and claimed message of the handbook, in every language."""
    book = handbook.load(ROOT)
    texts = sorted({text for entry in book.entries for view in entry.views()
                    for text in [view.title, view.description, *view.symptoms, *view.keywords]}
                   | {error.message for error in book.claimed_errors})
    page = browser.new_page()
    page.set_content("<!doctype html><title>tokeniser</title>")
    page.add_script_tag(content=WORKER.read_text(encoding="utf-8"))
    found = page.evaluate("([stop, texts]) => { searchTokeniser.useStopWords(stop);"
                          " return texts.map(text => searchTokeniser.terms(text)); }",
                          [sorted(retrieval.STOP), texts])
    page.close()
    differ = [(text, want, got) for text, want, got in zip(texts, (search_index.terms(t) for t in texts), found)
              if want != got]
    assert len(texts) > 500 and not differ, differ[:5]


def simulated(root: Path, copies: int) -> Path:
    """A handbook of the real pages repeated ``copies`` times under new topics with new IDs."""
    root.mkdir(parents=True)
    shutil.copy(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    book = handbook.load(ROOT)
    number = 1
    for copy in range(copies):
        for entry in book.entries:
            for view in entry.views():
                target = root / "docs" / view.language / f"copy{copy}-{entry.name}.md"
                target.parent.mkdir(parents=True, exist_ok=True)
                text = view.page.text.replace(f"id: {entry.id}", f"id: TP{number:04d}")
                target.write_text(text, encoding="utf-8")
            number += 1
    return root


@pytest.mark.slow
def test_what_a_query_downloads_grows_slowly_with_the_handbook(tmp_path, browser, site):
    """The same queries against the real index and one of about 500 entries (the real pages eight
    times): a query's download stays within the target and grows far less than the handbook, and the
    worker answers it (its start included) within the time target."""
    sizes = {}
    for copies in (1, 8):
        root = simulated(tmp_path / f"x{copies}", copies)
        book = handbook.load(root)
        out = root / "site"
        (out / "assets" / "javascripts").mkdir(parents=True)
        shutil.copy(WORKER, out / "assets" / "javascripts" / "search-worker.js")
        (out / "index.html").write_text("<!doctype html><title>t</title>", encoding="utf-8")
        for language in book.site.languages:
            search_index.write(book, language, out / "search" / language, sorted(retrieval.STOP))
        sizes[copies] = {"entries": len(book.entries), **downloads(browser, out)}
    print(json.dumps(sizes))
    small, large = sizes[1], sizes[8]
    assert large["entries"] >= 500
    import os

    busy = os.getloadavg()[0] > (os.cpu_count() or 1)  # see the time test above
    for language in SITE.languages:
        assert large[language] <= BYTES
        assert large[language] <= 3 * small[language]  # eight times the entries, at most three times the bytes
        assert large[f"{language}_seconds"] <= (LOADED if busy else SECONDS)  # the worker's start and the query


def downloads(browser, folder: Path) -> dict:
    """The bytes the worker downloads for each language's query, counted by the server that serves
    ``folder`` as it sends each file (whole, before the worker's fetch resolves)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    served: list[tuple[str, int]] = []

    class Counting(SimpleHTTPRequestHandler):
        def copyfile(self, source, outputfile):
            data = source.read()
            served.append((self.path, len(data)))
            outputfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Counting, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        found = {}
        for language in SITE.languages:
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
            served.clear()
            items, seconds = page.evaluate("""async ([language, query]) => {
                const started = performance.now();
                const worker = new Worker("assets/javascripts/search-worker.js");
                const ask = message => new Promise(done => { worker.onmessage = e => done(e.data); worker.postMessage(message); });
                await ask({type: 0, data: {config: {lang: [language], index: `../../search/${language}/`}, docs: []}});
                const items = (await ask({type: 2, data: query})).data.items.length;
                return [items, (performance.now() - started) / 1000];
            }""", [language, QUERY[language]])
            assert items > 0
            found[language] = sum(size for path, size in served if is_search(path))
            found[f"{language}_seconds"] = seconds
            page.close()
        return found
    finally:
        server.shutdown()
        server.server_close()
