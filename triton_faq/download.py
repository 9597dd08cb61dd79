"""A snippet as a reader downloads it: one ``.py`` file and one notebook, needing only torch, triton, pytest.

Snippets import this package (``from triton_faq.backend import DEVICE, describe``...). The
download is the snippet unchanged, after a prelude that inlines the source of every
``triton_faq`` module it imports (transitively) and registers each in ``sys.modules``, so the
snippet's own import lines work as written. The notebook is the same code: a first cell that
installs the modules and prints the backend (and, for a snippet that uses ``__file__``, writes
the download to a temporary file and sets ``__file__`` to it), then the snippet split at its
``# --8<-- [start:name]`` sections, then ``main()``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path, PurePosixPath

PACKAGE = "triton_faq"
SOURCE = Path(__file__).resolve().parent
SECTION = re.compile(r"^[ \t]*# --8<-- \[(?P<kind>start|end):(?P<name>[A-Za-z0-9_-]+)\][ \t]*$")


def _imported(tree: ast.AST, inside_package: bool) -> list[str]:
    """Names of the package's modules that ``tree`` imports, in the order it imports them."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name.split(".")[1] for alias in node.names
                      if alias.name.startswith(PACKAGE + ".")]
        elif isinstance(node, ast.ImportFrom):
            relative = inside_package and node.level == 1
            if node.level == 0 and node.module and node.module.startswith(PACKAGE + "."):
                found.append(node.module.split(".")[1])
            elif relative and node.module:
                found.append(node.module.split(".")[0])
            elif (node.level == 0 and node.module == PACKAGE) or (relative and not node.module):
                found += [alias.name for alias in node.names if (SOURCE / f"{alias.name}.py").is_file()]
    return found


def modules(snippet_source: str) -> list[str]:
    """Every module of the package the snippet needs, each after the modules it imports."""
    ordered: list[str] = []

    def visit(name: str, chain: tuple[str, ...]) -> None:
        if name in ordered or name in chain:
            return
        path = SOURCE / f"{name}.py"
        if not path.is_file():
            raise ValueError(f"{PACKAGE}.{name} is imported but {path} does not exist")
        for dependency in _imported(ast.parse(path.read_text(encoding="utf-8")), inside_package=True):
            visit(dependency, chain + (name,))
        ordered.append(name)

    visit("__init__", ())  # the package itself, run before any of its modules
    for name in _imported(ast.parse(snippet_source), inside_package=False):
        visit(name, ())
    return ordered


def _literal(source: str) -> str:
    """``source`` as a readable Python string literal (a raw triple-quoted one when that is exact)."""
    candidate = f"r'''{source}'''"
    try:
        if "'''" not in source and not source.endswith("\\") and ast.literal_eval(candidate) == source:
            return candidate
    except (SyntaxError, ValueError):
        pass
    return repr(source)


def install_modules(names: list[str]) -> str:
    """Code that inlines the package's modules ``names`` and lets ``import triton_faq...`` find them."""
    sources = "".join(
        f"    {name!r}: {_literal((SOURCE / f'{name}.py').read_text(encoding='utf-8'))},\n" for name in names
    )
    return f'''# The handbook's helper modules, inlined: `import {PACKAGE}...` below finds them here, and each
# lands in sys.modules when first imported, as the installed package would.
def _inline_{PACKAGE}(sources):
    import importlib.abc, importlib.util, linecache, sys

    class Inlined(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path=None, target=None):
            package, _, name = fullname.partition(".")
            if package == "{PACKAGE}" and (name or "__init__") in sources:
                return importlib.util.spec_from_loader(fullname, self, is_package=not name)
            return None

        def exec_module(self, module):
            name = module.__name__.partition(".")[2] or "__init__"
            filename = f"<{PACKAGE}/{{name}}.py, inlined>"
            linecache.cache[filename] = (len(sources[name]), None, sources[name].splitlines(True), filename)
            module.__file__ = filename  # as its code objects' co_filename, for code that compares them
            exec(compile(sources[name], filename, "exec"), module.__dict__)

    for loaded in [m for m in sys.modules if m.partition(".")[0] == "{PACKAGE}"]:
        del sys.modules[loaded]  # an installed copy must not mix with these sources
    sys.meta_path.insert(0, Inlined())


_inline_{PACKAGE}({{
{sources}}})
'''


PYTEST_MARKERS = '''# What the handbook's conftest.py does for its `gpu` and `interpreter` test markers.
import pytest as _pytest

from triton_faq import backend as _backend

if getattr(_pytest.mark, "_config", None) is not None:  # running under pytest: register the markers
    for _name, (_runs_on, _) in _backend.MARKERS.items():
        _pytest.mark._config.addinivalue_line("markers", f"{_name}: runs only on the {_runs_on} backend")


@_pytest.fixture(autouse=True)
def _skip_tests_for_the_other_backend(request):
    reason = _backend.skip_reason(marker.name for marker in request.node.iter_markers())
    if reason:
        _pytest.skip(reason)
'''


def _check(snippet_source: str, snippet_path: str) -> None:
    tree = ast.parse(snippet_source)
    if any(isinstance(node, ast.ImportFrom) and node.module == "__future__" for node in tree.body):
        raise ValueError(f"{snippet_path}: a `from __future__` import cannot follow the download's prelude")


def script(snippet_source: str, snippet_path: str, title: str, page_url: str) -> str:
    """The downloadable ``.py``: what it is, a prelude, then the snippet unchanged."""
    _check(snippet_source, snippet_path)
    name = Path(snippet_path).name
    header = f'''"""{title}

From the Triton pitfalls handbook: {page_url}
Generated from {snippet_path}; the code after the prelude is that file, unchanged.

Needs torch, triton and pytest (no GPU: without one it runs on Triton's CPU interpreter).

    python {name}     # prints what the entry shows
    pytest {name}     # runs one test per claim
"""

'''
    names = modules(snippet_source)
    return (header + install_modules(names) + "\n\n" + PYTEST_MARKERS
            + f"\n\n# ---- {snippet_path} ----\n\n" + snippet_source)


def _without_main_guard(snippet_source: str) -> str:
    """The snippet without its ``if __name__ == "__main__":`` block (the notebook calls main() itself)."""
    lines = snippet_source.splitlines()
    for node in ast.parse(snippet_source).body:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"):
            del lines[node.lineno - 1: node.end_lineno]
            break
    return "\n".join(lines)


def cells(snippet_source: str) -> list[str]:
    """The snippet's code, split before each ``# --8<-- [start:name]``, section markers removed."""
    chunks: list[list[str]] = [[]]
    for line in _without_main_guard(snippet_source).splitlines():
        marker = SECTION.match(line)
        if marker and marker["kind"] == "start":
            chunks.append([])
        if not marker:
            chunks[-1].append(line)
    return [text for text in ("\n".join(chunk).strip("\n") for chunk in chunks) if text.strip()]


def _cell(kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "id": "", "metadata": {}, "source": source.splitlines(True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def uses_file(snippet_source: str) -> bool:
    """Whether the snippet reads ``__file__`` (to run itself in a child process, or read its lines)."""
    return any(isinstance(node, ast.Name) and node.id == "__file__" for node in ast.walk(ast.parse(snippet_source)))


def write_script(script_text: str, snippet_path: str) -> str:
    """Notebook code that writes ``script_text`` (the ``.py`` download) and makes it ``__file__``.

    A notebook has no ``__file__``; snippets use it to run themselves in a child process
    (``subprocess.run([sys.executable, __file__, ...])``), to read their own lines, and for
    ``ROOT = Path(__file__).resolve().parents[2]``. The script goes to
    ``<new temporary folder>/<snippet_path>``, so ``parents[2]`` is that folder.
    """
    return f'''

# This notebook's code as one script, the .py download: the entry's helpers run `__file__` in a
# child process and read its lines, and a notebook has no `__file__`. It goes to a new temporary
# folder as {snippet_path}, so `Path(__file__).resolve().parents[2]` is that folder.
def _write_the_download(text):
    import pathlib, tempfile

    path = pathlib.Path(tempfile.mkdtemp(prefix="triton-faq-"), *{tuple(PurePosixPath(snippet_path).parts)!r})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


__file__ = _write_the_download({script_text!r})
'''


def notebook(snippet_source: str, snippet_path: str, heading: str, title: str, page_url: str) -> dict:
    """An nbformat 4 notebook of the snippet, under a Markdown cell ``heading``.

    ``title`` and ``page_url`` are the download's (``script``): a snippet that uses ``__file__``
    gets that script written to a file by the first cell, as its ``__file__``.
    """
    _check(snippet_source, snippet_path)
    names = modules(snippet_source)
    first = install_modules(names if "backend" in names else [*names, "backend"])
    if uses_file(snippet_source):
        first += write_script(script(snippet_source, snippet_path, title, page_url), snippet_path)
    first += "\nfrom triton_faq.backend import describe\n\nprint(describe())  # the backend this notebook runs on\n"
    code = [first, *cells(snippet_source), "main()"]
    cells_ = [_cell("markdown", heading)]
    cells_ += [_cell("code", source) for source in code]
    for number, cell in enumerate(cells_):
        cell["id"] = f"cell-{number}"
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "cells": cells_,
    }


def notebook_json(*args, **kwargs) -> str:
    return json.dumps(notebook(*args, **kwargs), ensure_ascii=False, indent=1) + "\n"
