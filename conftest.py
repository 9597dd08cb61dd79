"""Test collection for the whole repository.

* Every ```python fence of every page in the default language, run in page order (sybil, see
  triton_faq/fences.py); the translations' fences must equal them (parity).
* tests/ as usual; tests/entries/<topic>/test_<question>.py holds an entry's proof, one test
  per claim, importing the reader's file ``snippets/<topic>/<question>.py`` as
  ``snippets.<topic>.<question>``.

``triton_faq.backend`` is imported first so the backend is chosen before Triton loads.
"""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from sybil import Sybil

from triton_faq import backend, handbook
from triton_faq.fences import PageFenceParser
from triton_faq.testing import triton_language_restorer

pytest_plugins = ["triton_checked.pytest_plugin"]  # the checked_interpreter fixture

ROOT = Path(__file__).parent
handbook.importable(ROOT)  # the proofs import the reader's files as snippets.<topic>.<question>
restore_triton_language = triton_language_restorer()  # taken before any kernel has run
if "TRITON_FAQ_RUN_CACHE" not in os.environ:  # the main process: its pytest-xdist workers inherit it
    os.environ["TRITON_FAQ_RUN_CACHE"] = tempfile.mkdtemp(prefix="triton-faq-run-")  # see triton_faq/fresh.py
    # The temporary files of the workers and every process they start (empty kernel caches, the .ptx
    # Triton leaves when ptxas fails) go in a folder of this run, removed with it; this process's own
    # stay where they were (tempfile already chose its folder above), pytest's tmp_path folders too.
    # Like /tmp, anyone may write there (TP038's jobs run as nobody).
    os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="triton-faq-tmp-")
    os.chmod(os.environ["TMPDIR"], 0o1777)
    atexit.register(shutil.rmtree, os.environ["TMPDIR"], True)
    atexit.register(shutil.rmtree, os.environ["TRITON_FAQ_RUN_CACHE"], True)
    # torch's idle OpenMP threads sleep rather than spin: two workers and the site build share the cores,
    # and a thread spinning in one worker takes the core the other needs (about a tenth of a run's CPU).
    # The number of threads, and so every result, stays as a user's machine has it.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

pytest_collect_file = Sybil(
    parsers=[PageFenceParser(ROOT)],
    path=str(handbook.load_site(ROOT).docs_dir),
    patterns=["*.md"],
).pytest()


def build(root: Path, out: Path):
    """``mkdocs build --strict`` of ``root`` into ``out`` (warnings abort; --quiet would hide them)."""
    import os
    import subprocess

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)


BUILD_IN_BACKGROUND = Path(__file__).parent / "triton_faq" / "children" / "build_site.py"


def builds_in_background(config) -> bool:
    """Whether this pytest process starts the shared site build: the main process of a run that named
    no test path (options such as ``-n 2 --dist loadfile`` do not count), runs tests (not ``--collect-only``),
    and is not a recorded GPU run."""
    return (not hasattr(config, "workerinput") and config.args_source == pytest.Config.ArgsSource.TESTPATHS
            and not config.getoption("collectonly")
            and not config.getoption("--record-gpu-run", default=False)
            and not config.getoption("--add-to-gpu-run", default=False))


def pytest_sessionstart(session):
    """On a whole-suite run, start the shared site build now, so the tests run while it builds.

    Only the main process does it (not a pytest-xdist worker), and only when no test file was named
    (a run of one file does not pay for a build it does not use). tests/conftest.py's ``built_site``
    waits for it.
    """
    import os
    import subprocess

    config = session.config
    if not builds_in_background(config):
        return
    shared = config._tmp_path_factory.getbasetemp()
    (shared / "built-site.started").write_text("")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    import json

    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(shared / "built-site")]
    subprocess.Popen([sys.executable, str(BUILD_IN_BACKGROUND), json.dumps(command), str(ROOT),
                      str(shared / "built-site.json")],
                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def pytest_addoption(parser):
    parser.addoption("--record-gpu-run", action="store_true",
                     help="on CUDA: record this run's counts in data/test-runs.json for the site")
    parser.addoption("--add-to-gpu-run", action="store_true",
                     help="on CUDA: add this run's counts to the record of an earlier --record-gpu-run pass "
                          "on the same machine (the timing claims' serial pass)")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    add = config.getoption("--add-to-gpu-run")
    if config.getoption("--record-gpu-run") or add:
        from triton_faq.gpu_runs import record

        command = "pytest " + " ".join(config.invocation_params.args)
        terminalreporter.write_line(record(ROOT, terminalreporter.stats, exitstatus, command.strip(), add=add))


def pytest_report_header(config):
    return backend.describe()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: a claim only a CUDA GPU can show; skipped on the interpreter")
    config.addinivalue_line("markers", "interpreter: a claim about Triton's CPU interpreter; skipped on CUDA")
    config.addinivalue_line("markers", "timing: a claim about how long GPU work takes; it needs the GPU to itself, "
                                       "so a parallel GPU run leaves it to a serial pass (make test-gpu)")
    config.addinivalue_line("markers", "slow: tens of seconds; run where CI is set (or TRITON_FAQ_SLOW=1)")
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the site build started beside it goes first,
        os.nice(WORKER_NICENESS)  # since the browser tests wait for it (the build keeps the default priority)


WORKER_NICENESS = 10


def pytest_runtest_setup(item):
    restore_triton_language()  # undo what an interpreted kernel of an earlier test left patched
    reason = backend.skip_reason(marker.name for marker in item.iter_markers())
    if reason:
        pytest.skip(reason)
    if item.get_closest_marker("slow") and not (os.environ.get("CI") or os.environ.get("TRITON_FAQ_SLOW")):
        pytest.skip("slow: runs where CI is set, or with TRITON_FAQ_SLOW=1")


def pytest_collection_finish(session):
    """Everything collection made (torch, Triton, the handbook, the parsed pages) lives to the end:
    moved out of the garbage collector's view, so each full collection during the tests does not
    walk it again."""
    import gc

    gc.collect()
    gc.freeze()
