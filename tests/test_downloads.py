"""Every entry's download (.py) and notebook run without this repository, and the site offers both."""

import ast
import json
import os
import re
import subprocess
import sys
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

# Runs in a fresh `python -I` from a folder outside the repository, with the editable install's
# finder removed: what a reader has (torch, triton, pytest) and nothing of this repository.
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
        print(f"--- end of cell {number}")
"""


def script(entry) -> str:
    return download.script((ROOT / entry.snippet).read_text(encoding="utf-8"), entry.snippet.as_posix(),
                           f"{entry.id} · title", "https://example.org/page/")


def notebook(entry) -> str:
    return download.notebook_json((ROOT / entry.snippet).read_text(encoding="utf-8"), entry.snippet.as_posix(),
                                  f"# {entry.id} · title\n")


def alone(tmp_path: Path, runner: str, file: Path) -> subprocess.CompletedProcess:
    program = ALONE.format(root=str(ROOT)) + runner
    return subprocess.run([sys.executable, "-I", "-c", program, str(file)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def shape(output: str) -> list[str]:
    """Printed lines with the numbers taken out (inputs are random)."""
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


@pytest.mark.parametrize("name", RUN_ALONE)
def test_download_runs_and_its_tests_pass_without_the_repository(name, tmp_path):
    entry = find(name, ROOT)
    file = tmp_path / entry.snippet.name
    file.write_text(script(entry), encoding="utf-8")
    ran = alone(tmp_path, RUN_SCRIPT, file)
    assert ran.returncode == 0, ran.stderr
    original = subprocess.run([sys.executable, str(ROOT / entry.snippet)], capture_output=True, text=True,
                              timeout=300, cwd=ROOT)
    assert shape(ran.stdout) == shape(original.stdout)
    tested = alone(tmp_path, RUN_PYTEST, file)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert " passed" in tested.stdout and "failed" not in tested.stdout


def test_notebook_is_valid_and_runs_in_order_without_the_repository(tmp_path):
    entry = find("TP001", ROOT)
    file = tmp_path / "notebook.ipynb"
    file.write_text(notebook(entry), encoding="utf-8")
    nbformat.validate(nbformat.read(file, as_version=4))
    cells = json.loads(file.read_text(encoding="utf-8"))["cells"]
    assert [c["cell_type"] for c in cells[:2]] == ["markdown", "code"]
    assert "print(describe())" in "".join(cells[1]["source"])
    assert "".join(cells[-1]["source"]) == "main()"
    assert not any("--8<--" in "".join(c["source"]) for c in cells)
    ran = alone(tmp_path, RUN_NOTEBOOK, file)
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
