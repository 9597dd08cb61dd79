"""pytest plugin used by ``triton-faq matrix``: every test's outcome and the Triton version, as JSON."""

from __future__ import annotations

import json
from pathlib import Path

_outcomes: dict[str, str] = {}
_collect_errors: dict[str, str] = {}


def pytest_addoption(parser):
    parser.addoption("--matrix-report", metavar="PATH", help="write each test's outcome here (JSON)")


def pytest_collectreport(report):
    if report.failed:
        text = str(report.longrepr).strip().splitlines()
        _collect_errors[report.nodeid] = text[-1] if text else "collection failed"


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if report.outcome == "failed" or report.nodeid not in _outcomes or _outcomes[report.nodeid] == "passed":
            _outcomes[report.nodeid] = "skipped" if report.skipped else report.outcome


def pytest_sessionfinish(session):
    path = session.config.getoption("--matrix-report")
    if path:
        import triton

        Path(path).write_text(json.dumps({"triton": triton.__version__, "outcomes": _outcomes,
                                          "collect_errors": _collect_errors}))
