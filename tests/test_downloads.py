"""Every entry's download (.py) and notebook run without this repository, and the site offers both."""

import ast
import json
import os
import posixpath
import re
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
from triton_faq import download
from triton_faq.entries import find, load

ENTRIES = load(ROOT)
IMPORT = re.compile(r"^\s*(?:from\s+triton_faq\.(\w+)\s+import|import\s+triton_faq\.(\w+)|from\s+triton_faq\s+import\s+\(?([\w ,]+))",
                    re.MULTILINE)
RUN_ALONE = ["garbage-values/masked-load-without-other", "out-of-bounds/missing-tail-mask"]  # both have gpu_evidence
# Entries whose download cannot run on its own, with why: each is an expected failure (strict), not a skip.
NOT_STANDALONE: dict[str, str] = {}
ENV = dict(os.environ, TRITON_FAQ_BACKEND="interpreter")
WORKERS = 2  # processes at a time: each snippet run is a Python process of its own

# Runs in a fresh `python -I` of the reader's environment (`reader_python`) from a folder outside
# the repository, with the editable install's finder removed (in case): what a reader has (torch,
# triton, pytest) and nothing of this repository.
ALONE = """\
import importlib.util, sys
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
sys.path[:] = [p for p in sys.path if p != {root!r}]
assert importlib.util.find_spec("triton_faq") is None, "triton_faq is importable"
"""
RUN_SCRIPT = "import runpy; runpy.run_path(sys.argv[1], run_name='__main__')"
RUN_PYTEST = "import pytest; sys.exit(pytest.main([sys.argv[1], '-q', '-p', 'no:cacheprovider']))"
RUN_NOTEBOOK = """\
import json, linecache
namespace = {"__name__": "__main__"}
for number, cell in enumerate(json.load(open(sys.argv[1], encoding="utf-8"))["cells"]):
    if cell["cell_type"] == "code":
        source = "".join(cell["source"])
        name = f"<cell {number}>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        exec(compile(source, name, "exec"), namespace)
        print(f"--- end of cell {number}", flush=True)
print(f"--- __file__: {namespace.get('__file__')}")
"""


def script(entry) -> str:
    return download.script((ROOT / entry.snippet).read_text(encoding="utf-8"), entry.snippet.as_posix(),
                           f"{entry.id} · title", "https://example.org/page/")


def notebook(entry) -> str:
    return download.notebook_json((ROOT / entry.snippet).read_text(encoding="utf-8"), entry.snippet.as_posix(),
                                  f"# {entry.id} · title\n", f"{entry.id} · title", "https://example.org/page/")


def uses_file(entry) -> bool:
    return download.uses_file((ROOT / entry.snippet).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def reader_python(tmp_path_factory) -> str:
    """A virtual environment with this one's packages but not its editable install of triton_faq.

    Its site-packages has a .pth naming this environment's site-packages: torch, triton and pytest
    import, and the editable install's own .pth there is not run. The child processes that
    snippets start (`sys.executable`) are this Python too, so they cannot import triton_faq either.
    """
    folder = tmp_path_factory.mktemp("reader") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    site = sysconfig.get_path("purelib", vars={"base": str(folder), "platbase": str(folder)})
    ours = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    Path(site, "this-environment.pth").write_text("".join(f"{path}\n" for path in ours), encoding="utf-8")
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    check = subprocess.run([str(python), "-I", "-c", "import importlib.util as u, torch, triton, pytest; "
                            "assert u.find_spec('triton_faq') is None"], capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    return str(python)


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    """subprocess.run, with a timeout reported as a failed run instead of raised."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=300, **options)
    except subprocess.TimeoutExpired as expired:
        return subprocess.CompletedProcess(command, -1, str(expired.stdout or ""), f"timed out: {expired}")


def alone(folder: Path, runner: str, file: Path, python: str) -> subprocess.CompletedProcess:
    program = ALONE.format(root=str(ROOT)) + runner
    # TMPDIR: a notebook writes its download to a new temporary folder; keep it inside the test's
    return run([python, "-I", "-c", program, str(file)], cwd=folder, env=dict(ENV, TMPDIR=str(folder)))


def shape(output: str) -> list[str]:
    """Printed lines with the numbers taken out (inputs are random, addresses vary), and the folders
    of paths to .py files (the snippet is in the repository, the download is not)."""
    output = re.sub(r"-?0x[0-9a-fA-F]+", "N", output)  # addresses and bit patterns, signed or not
    output = re.sub(r"(?:[^\s\"'`(]*/)+(?=[\w.-]+\.py\b)", "", output)
    return [re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line) for line in output.splitlines()]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_every_download_compiles_and_inlines_every_module_it_imports(entry):
    source = (ROOT / entry.snippet).read_text(encoding="utf-8")
    text = script(entry)
    tree = ast.parse(text)
    compile(tree, str(entry.snippet), "exec")
    (call,) = [node.value for node in tree.body if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
               and getattr(node.value.func, "id", "") == "_inline_triton_faq"]
    inlined = {key.value for key in call.args[0].keys}
    needed = {"__init__"}
    for match in IMPORT.finditer(source):
        needed |= {n.strip() for n in match[3].split(",") if n.strip()} if match[3] else {match[1] or match[2]}
    assert needed <= inlined, f"not inlined: {sorted(needed - inlined)}"
    for name in inlined:  # and what those modules import in turn
        for match in IMPORT.finditer((ROOT / "triton_faq" / f"{name}.py").read_text(encoding="utf-8")):
            assert (match[1] or match[2] or "") in inlined | {""}
    assert text.endswith(source)  # the snippet, unchanged
    head = text.split('"""')[1]
    assert "https://example.org/page/" in head and "torch, triton and pytest" in head


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory, reader_python) -> dict[tuple[str, str], subprocess.CompletedProcess]:
    """Every entry's snippet run in the repository ("original") and its download run without it
    ("download"); and the notebook of every snippet that uses `__file__`, run without it ("notebook").

    All in one go, WORKERS processes at a time, for the entries of the tests selected (`-k TP004`
    runs TP004's only). Keys: (kind, entry id).
    """
    selected = {item.callspec.params["entry"].id for item in request.session.items
                if "runs" in getattr(item, "fixturenames", ()) and "entry" in item.callspec.params}
    folder = tmp_path_factory.mktemp("standalone")
    jobs = {}
    for entry in (entry for entry in ENTRIES if entry.id in selected):
        here = folder / entry.id
        here.mkdir()
        file = here / entry.snippet.name
        file.write_text(script(entry), encoding="utf-8")
        jobs["original", entry.id] = partial(run, [sys.executable, str(ROOT / entry.snippet)], cwd=ROOT, env=ENV)
        jobs["download", entry.id] = partial(alone, here, RUN_SCRIPT, file, reader_python)
        if uses_file(entry):
            (here / "notebook").mkdir()
            book = here / "notebook" / f"{entry.snippet.stem}.ipynb"
            book.write_text(notebook(entry), encoding="utf-8")
            jobs["notebook", entry.id] = partial(alone, here / "notebook", RUN_NOTEBOOK, book, reader_python)
    started = time.monotonic()
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {key: pool.submit(job) for key, job in jobs.items()}
        done = {key: future.result() for key, future in futures.items()}
    print(f"\n{len(jobs)} runs in {time.monotonic() - started:.0f} s, {WORKERS} at a time")
    return done


def standalone(entries):
    """``entries`` as parameters, those in NOT_STANDALONE marked as expected to fail, with the reason."""
    return [pytest.param(entry, id=entry.id, marks=[pytest.mark.xfail(reason=NOT_STANDALONE[entry.id], strict=True)]
                         if entry.id in NOT_STANDALONE else []) for entry in entries]


@pytest.mark.parametrize("entry", standalone(ENTRIES))
def test_every_download_runs_without_the_repository_and_prints_what_its_snippet_prints(entry, runs):
    original, ran = runs["original", entry.id], runs["download", entry.id]
    assert original.returncode == 0, original.stderr
    assert ran.returncode == 0, ran.stderr
    assert shape(ran.stdout) == shape(original.stdout)


@pytest.mark.parametrize("entry", standalone(e for e in ENTRIES if uses_file(e)))
def test_a_notebook_gives_its_snippet_a_file_and_runs_in_order_without_the_repository(entry, runs):
    cells = json.loads(notebook(entry))["cells"]
    first = ast.parse("".join(cells[1]["source"]))
    (written,) = [node.value.args[0].value for node in first.body if isinstance(node, ast.Assign)
                  and node.targets[0].id == "__file__"]
    assert written == script(entry)  # the .py download, as it is
    original, ran = runs["original", entry.id], runs["notebook", entry.id]
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split("--- end of cell 1")[0].strip().startswith("backend: interpreter;")
    last = len(cells) - 1
    printed_by_main = ran.stdout.split(f"--- end of cell {last - 1}\n")[1].split(f"--- end of cell {last}\n")[0]
    # a kernel defined in a notebook is in a cell, not in the snippet's file: where is "<cell N>:line"
    assert shape(re.sub(r"<cell \d+>", entry.snippet.name, printed_by_main)) == shape(original.stdout)
    file = Path(ran.stdout.split("--- __file__: ")[1].strip())
    assert file.parts[-3:] == entry.snippet.parts  # <temporary folder>/snippets/<topic>/<name>.py
    assert file.resolve().parents[2].is_dir() and file.read_text(encoding="utf-8") == script(entry)


def test_notebooks_of_snippets_without_file_do_not_write_a_script():
    entry = find("TP001", ROOT)
    assert not uses_file(entry) and "_write_the_download" not in notebook(entry)


@pytest.mark.parametrize("name", RUN_ALONE)
def test_download_tests_pass_without_the_repository(name, tmp_path, reader_python):
    entry = find(name, ROOT)
    file = tmp_path / entry.snippet.name
    file.write_text(script(entry), encoding="utf-8")
    tested = alone(tmp_path, RUN_PYTEST, file, reader_python)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert " passed" in tested.stdout and "failed" not in tested.stdout


def test_notebook_is_valid_and_runs_in_order_without_the_repository(tmp_path, reader_python):
    entry = find("TP001", ROOT)
    file = tmp_path / "notebook.ipynb"
    file.write_text(notebook(entry), encoding="utf-8")
    nbformat.validate(nbformat.read(file, as_version=4))
    cells = json.loads(file.read_text(encoding="utf-8"))["cells"]
    assert [c["cell_type"] for c in cells[:2]] == ["markdown", "code"]
    assert "print(describe())" in "".join(cells[1]["source"])
    assert "".join(cells[-1]["source"]) == "main()"
    assert not any("--8<--" in "".join(c["source"]) for c in cells)
    ran = alone(tmp_path, RUN_NOTEBOOK, file, reader_python)
    assert ran.returncode == 0, ran.stderr
    first_cell = ran.stdout.split("--- end of cell 1")[0]
    assert first_cell.strip().startswith("backend: interpreter;")
    assert "pitfall   max: [0.0, 0.0, 0.0, 0.0]" in ran.stdout  # main() ran, in the last cell


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built strictly (as in test_site_build.py; its notebooks come from mkdocs-jupyter's cache)."""
    out = tmp_path_factory.mktemp("downloads") / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT,
                            env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_the_site_offers_every_download_and_notebook_in_both_languages(site):
    for entry in ENTRIES:
        relative = entry.snippet.relative_to("snippets").with_suffix("").as_posix()
        name = entry.snippet.stem
        text = (site / "downloads" / f"{relative}.py").read_text(encoding="utf-8")
        assert text.endswith((ROOT / entry.snippet).read_text(encoding="utf-8")), entry.id
        for language, prefix in (("en", ""), ("zh", "zh/")):
            notebook_page = site / prefix / "notebooks" / relative
            assert (notebook_page / "index.html").is_file(), (entry.id, language)
            ipynb = notebook_page / f"{name}.ipynb"
            nbformat.validate(nbformat.read(ipynb, as_version=4))
            assert f'href="{name}.ipynb" download=' in (notebook_page / "index.html").read_text(encoding="utf-8")
            page = (site / prefix / entry.name / "index.html").read_text(encoding="utf-8")
            depth = "../" * (entry.name.count("/") + 1)
            assert f'href="{depth}{"../" if prefix else ""}downloads/{relative}.py"' in page, (entry.id, language)
            assert f'href="{depth}notebooks/{relative}/"' in page, (entry.id, language)


def test_notebook_pages_link_one_shared_stylesheet_instead_of_inlining_it(site):
    css = site / "assets" / "notebook.css"
    assert css.is_file() and css.stat().st_size > 500_000  # mkdocs-jupyter's index.css, once
    pages = [*site.glob("notebooks/**/index.html"), *site.glob("zh/notebooks/**/index.html")]
    assert len(pages) == 2 * len(ENTRIES)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        styles = [len(style) for style in re.findall(r"<style\b[^>]*>(.*?)</style>", html, re.DOTALL)]
        assert max(styles, default=0) < 20_000, (page, styles)
        href = posixpath.relpath("assets/notebook.css", page.parent.relative_to(site).as_posix())
        assert f'<link rel="stylesheet" href="{href}">' in html, page
        assert (page.parent / href).resolve() == css.resolve()
