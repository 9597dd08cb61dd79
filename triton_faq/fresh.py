"""Calls that must run in a process no kernel has run in yet: ``in_fresh_process``.

Triton's interpreter patches ``triton.language`` in place (Triton 3.6 leaves some patches behind),
and Triton's compiler keeps state between compile targets in one process, so a compile whose result
a page claims runs where nothing ran before it.

Starting Python and importing torch and triton costs seconds, so on the interpreter the process is
forked from a *starter*: a process that imported torch and triton (with the caller's environment)
and then never runs anything. Each ``in_fresh_process`` call gets its own child, as new as a fresh
process for the code it runs. On CUDA nothing is forked (a child cannot use a CUDA context its
parent made, and a GPU run is not timed): each call starts a new Python.

Within one test run (``TRITON_FAQ_RUN_CACHE`` names a folder the pytest workers share), a call
asked twice (a proof's test and the error gate's reproducer) runs once.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

RUN_CACHE_VARIABLE = "TRITON_FAQ_RUN_CACHE"
TIMEOUT_S = 300

CHILD = Path(__file__).with_name("children") / "fresh_call.py"  # what the fresh processes run


def _environment() -> dict[str, str]:
    from .handbook import ROOT

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)  # snippets.<topic>...
    return env


class _Starter:
    """One starter process for one environment and import mode."""

    def __init__(self, env: dict[str, str], compile_ready: bool):
        self.process = subprocess.Popen([sys.executable, str(CHILD), "starter", "compile-ready" if compile_ready else ""],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=env, text=True)

    def run(self, snippet: str, function: str, calls: list, env: dict[str, str]) -> list[dict]:
        import select
        import signal

        with tempfile.TemporaryDirectory(prefix="triton-faq-fresh-") as folder:
            result, log = os.path.join(folder, "result.json"), os.path.join(folder, "log.txt")
            request = {"snippet": snippet, "function": function, "calls": calls, "result": result,
                       "log": log, "env": env}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            pid = int(self._line(TIMEOUT_S, select).split()[1])
            try:
                self._line(TIMEOUT_S, select)
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                self._line(TIMEOUT_S, select)
                raise RuntimeError(f"the fresh process for {function} ran past {TIMEOUT_S} s") from None
            if not os.path.exists(result):
                output = Path(log).read_text(errors="replace") if os.path.exists(log) else ""
                raise RuntimeError(f"the fresh process for {function} failed:\n{output[-4000:]}")
            return json.loads(Path(result).read_text(encoding="utf-8"))

    def _line(self, timeout: float, select) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the fresh-process starter ended unexpectedly")
        return line

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)


_starters: dict[str, _Starter] = {}


# Set anew for each test or each compile, or naming the pytest worker: a starter imports nothing that
# reads them, and each child gets the caller's whole environment. Left out of the keys, so that a run
# asked for by two workers (a proof's test and the error gate's reproducer) is one run.
_PER_CALL = {"PYTEST_CURRENT_TEST", "TRITON_CACHE_DIR", "PYTEST_XDIST_WORKER"}


# Written into the caller's environment by torch the first time Inductor runs there, and read when
# Inductor compiles, not at import: a starter made before it serves the calls made after it (each child
# still gets it, with the caller's whole environment), rather than a second starter per import mode.
_NOT_READ_AT_IMPORT = {"TORCHINDUCTOR_CACHE_DIR"}


def _kept(env, ignored: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """The environment a starter or a shared run is keyed on: all of it but ``_PER_CALL`` and ``ignored``."""
    return sorted((name, value) for name, value in env.items() if name not in _PER_CALL and name not in ignored)


def _starter_key(env: dict[str, str], compile_ready: bool) -> str:
    """Which starter serves a call: one per import mode and environment as read at import."""
    return hashlib.sha256(json.dumps([_kept(env, _NOT_READ_AT_IMPORT), compile_ready]).encode()).hexdigest()


def _starter(env: dict[str, str], compile_ready: bool) -> _Starter:
    key = _starter_key(env, compile_ready)
    if key not in _starters or _starters[key].process.poll() is not None:
        _starters[key] = _Starter(env, compile_ready)
    return _starters[key]


@atexit.register
def _close_starters() -> None:
    for starter in _starters.values():
        try:
            starter.close()
        except Exception:  # a starter that will not stop is ended with this process
            starter.process.kill()


def _run(snippet: str, function: str, calls: list, compile_ready: bool) -> list[dict]:
    env = _environment()
    if env.get("TRITON_INTERPRET") == "1":
        return _starter(env, compile_ready).run(snippet, function, calls, env)
    done = subprocess.run([sys.executable, str(CHILD), "call", snippet, function, json.dumps(calls),
                           "compile-ready" if compile_ready else ""],
                          capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"the fresh process for {function} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_fresh_process(snippet, function: str, calls: list[tuple], compile_ready: bool = False,
                     tracebacks: bool = False) -> list[dict]:
    """Call ``function`` of the file ``snippet`` once per argument tuple, in order, in one fresh process.

    Each result is ``{"value": ...}`` (JSON-able; sets become sorted lists) or ``{"error": "<exception
    class>", "message": "<text>"}``, plus ``"traceback"`` with ``tracebacks=True``. ``compile_ready``:
    import triton before ``TRITON_INTERPRET`` applies, so Triton's own ``@triton.jit`` helpers
    (``tl.sum``, ``tl.zeros``...) stay compilable for a GPU target while the file's kernels are still
    interpreted.
    """
    results = _cached(str(Path(snippet).resolve()), function, json.loads(json.dumps(calls)), compile_ready)
    if not tracebacks:
        results = [{key: value for key, value in result.items() if key != "traceback"} for result in results]
    return results


def in_fresh_process_by_case(snippet, function: str, cases, **options) -> dict:
    """``{case: result}``: ``in_fresh_process`` with one call per case, the case its arguments (a case
    that is not a tuple is the one argument); asked again in the same process, the same dict."""
    return _by_case(str(Path(snippet).resolve()), function, tuple(cases), tuple(sorted(options.items())))


@functools.cache
def _by_case(snippet: str, function: str, cases: tuple, options: tuple) -> dict:
    calls = [case if isinstance(case, tuple) else (case,) for case in cases]
    return dict(zip(cases, in_fresh_process(snippet, function, calls, **dict(options))))


def _cached(snippet: str, function: str, calls: list, compile_ready: bool) -> list[dict]:
    return _shared("call", [snippet, function, calls, compile_ready, os.environ.get("TRITON_INTERPRET")],
                   lambda: _run(snippet, function, calls, compile_ready))


def _shared(kind: str, key: list, produce):
    """``produce()``, once per test run for one ``key``: the first call, in any pytest worker, runs it and
    keeps the result (pickled in the run's ``TRITON_FAQ_RUN_CACHE`` folder); later calls get that result.
    A call that raises keeps nothing. Outside a test run, ``produce()`` each time."""
    cache = os.environ.get(RUN_CACHE_VARIABLE)
    if not cache:
        return produce()
    import pickle

    from filelock import FileLock

    digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:32]
    path = Path(cache, f"{kind}-{digest}.pickle")
    with FileLock(str(path) + ".lock"):
        if path.is_file():
            return pickle.loads(path.read_bytes())
        value = produce()
        path.write_bytes(pickle.dumps(value))
        return value


def run_python_once(args: list[str], env: dict[str, str], timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """``subprocess.run([python, *args])`` with output captured; within one test run, the same
    arguments and environment run once and later calls get that run's result (a proof's test and
    the error gate's reproducer ask for the same run)."""
    command = [sys.executable, *args]
    if "TMPDIR" in os.environ and "TMPDIR" not in env:  # a test run's own temporary folder (conftest.py), even
        env = {**env, "TMPDIR": os.environ["TMPDIR"]}  # for a child given a bare environment: removed with the run
    return _shared("run", [command, _kept(env)],
                   lambda: subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout))


def once_per_run(function):
    """A decorator for a proof's helper that runs a child process (a reader's file run as a script, a
    compile in a new process): within one test run, a call with the same arguments and environment
    runs once, and every later call, in any pytest worker, gets that run's result (a proof's test
    and the error gate's reproducer ask for the same run). The result must pickle; a call that
    raises is not kept. Outside a test run it is a plain call."""
    source = str(Path(function.__code__.co_filename).resolve())

    @functools.wraps(function)
    def call(*args, **kwargs):
        key = [source, function.__qualname__, repr(args), repr(sorted(kwargs.items())), _kept(os.environ)]
        return _shared("once", key, lambda: function(*args, **kwargs))

    return call
