"""Test collection for the whole repository.

* Every ```python fence of every page under docs/ (sybil, see triton_faq/fences.py).
* The ``test_*`` functions inside snippets/**.py.
* tests/ as usual.

``triton_faq.backend`` is imported first so the backend is chosen before Triton loads.
"""

from pathlib import Path

import pytest
from sybil import Sybil

from triton_faq import backend
from triton_faq.fences import PageFenceParser

pytest_plugins = ["triton_faq.pytest_plugin"]

ROOT = Path(__file__).parent
SNIPPETS = ROOT / "snippets"

_collect_page = Sybil(
    parsers=[PageFenceParser(ROOT)],
    path=str(ROOT / "docs"),
    patterns=["*.md"],
    setup=lambda namespace: namespace.update(DEVICE=backend.DEVICE),
).pytest()


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix == ".py" and SNIPPETS in file_path.parents:
        if parent.session.isinitpath(file_path):
            return None  # named on the command line: pytest's own collector takes it
        return pytest.Module.from_parent(parent, path=file_path)
    return _collect_page(file_path, parent)


def pytest_addoption(parser):
    parser.addoption("--record-gpu-run", action="store_true",
                     help="on CUDA: record this run's counts in data/test-runs.json for the site")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config.getoption("--record-gpu-run"):
        from triton_faq.test_runs import record

        command = "pytest " + " ".join(config.invocation_params.args)
        terminalreporter.write_line(record(ROOT, terminalreporter.stats, exitstatus, command.strip()))


def pytest_report_header(config):
    return backend.describe()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: a claim only a CUDA GPU can show; skipped on the interpreter")
    config.addinivalue_line("markers", "interpreter: a claim about Triton's CPU interpreter; skipped on CUDA")


def pytest_runtest_setup(item):
    reason = backend.skip_reason(marker.name for marker in item.iter_markers())
    if reason:
        pytest.skip(reason)
