"""Runs shared within one test run (triton_faq/fresh.py): a child asked for by two pytest workers (a
proof's test and the error gate's reproducer) runs once; anything else that differs runs again."""

import os
from pathlib import Path

import pytest

from triton_faq import fresh

COUNT = "import pathlib, sys; f = pathlib.Path(sys.argv[1]); f.write_text(f.read_text() + 'x'); print('ran')"


@pytest.fixture
def run_cache(tmp_path, monkeypatch):
    folder = tmp_path / "run-cache"
    folder.mkdir()
    monkeypatch.setenv(fresh.RUN_CACHE_VARIABLE, str(folder))
    return folder


def test_the_same_run_from_two_workers_runs_once(run_cache, tmp_path):
    runs = tmp_path / "runs"
    runs.write_text("")
    first = fresh.run_python_once(["-c", COUNT, str(runs)], {**os.environ, "PYTEST_XDIST_WORKER": "gw0",
                                                              "PYTEST_CURRENT_TEST": "a.py::test_a (call)"})
    second = fresh.run_python_once(["-c", COUNT, str(runs)], {**os.environ, "PYTEST_XDIST_WORKER": "gw1",
                                                               "PYTEST_CURRENT_TEST": "b.py::test_b (call)"})
    assert runs.read_text() == "x"
    assert (first.returncode, first.stdout) == (second.returncode, second.stdout) == (0, "ran\n")


def test_another_environment_or_argument_runs_again(run_cache, tmp_path):
    runs = tmp_path / "runs"
    runs.write_text("")
    fresh.run_python_once(["-c", COUNT, str(runs)], dict(os.environ))
    fresh.run_python_once(["-c", COUNT, str(runs)], {**os.environ, "TRITON_INTERPRET": "0"})
    fresh.run_python_once(["-c", COUNT, str(runs), "another"], dict(os.environ))
    assert runs.read_text() == "xxx"


def test_without_a_test_run_each_call_runs(monkeypatch, tmp_path):
    monkeypatch.delenv(fresh.RUN_CACHE_VARIABLE, raising=False)
    runs = tmp_path / "runs"
    runs.write_text("")
    for _ in range(2):
        fresh.run_python_once(["-c", COUNT, str(runs)], dict(os.environ))
    assert runs.read_text() == "xx"


calls = []


def child(kind: str, fail: bool = False):
    """Stands in for a reader's ``run_child``: counts its calls, may raise."""
    calls.append(kind)
    if fail:
        raise RuntimeError("the child could not start")
    return {"kind": kind, "pid": os.getpid()}


def test_a_helper_once_per_run_runs_once_per_argument_and_keeps_no_failure(run_cache, monkeypatch):
    calls.clear()
    shared = fresh.once_per_run(child)
    assert shared("far") == shared("far") == {"kind": "far", "pid": os.getpid()}
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")  # another worker asks for the same run
    shared("far")
    shared("near")
    with pytest.raises(RuntimeError):
        shared("far", fail=True)
    with pytest.raises(RuntimeError):
        shared("far", fail=True)  # a failure is not kept: asked again, it runs again
    monkeypatch.setenv("TRITON_INTERPRET", "0")  # another environment is another run
    shared("far")
    assert calls == ["far", "near", "far", "far", "far"]
    assert len(list(run_cache.glob("once-*.pickle"))) == 3


def test_a_helper_once_per_run_is_a_plain_call_outside_a_test_run(monkeypatch):
    monkeypatch.delenv(fresh.RUN_CACHE_VARIABLE, raising=False)
    calls.clear()
    shared = fresh.once_per_run(child)
    shared("far")
    shared("far")
    assert calls == ["far", "far"]


def test_the_key_names_the_helpers_file_so_two_imports_of_a_proof_share_it(run_cache):
    """The error gate loads a proof with runpy (another module object); the key is the file and name."""
    import runpy

    calls.clear()
    other = runpy.run_path(str(Path(__file__)))  # its own `calls` list
    fresh.once_per_run(child)("far")
    assert fresh.once_per_run(other["child"])("far") == {"kind": "far", "pid": os.getpid()}
    assert (calls, other["calls"]) == (["far"], [])  # the second import's helper did not run
    assert len(list(run_cache.glob("once-*.pickle"))) == 1


def test_a_starter_serves_calls_before_and_after_inductor_writes_its_cache_dir():
    """torch sets TORCHINDUCTOR_CACHE_DIR in the caller's environment the first time Inductor runs; it is
    read when Inductor compiles, not at import, so it does not make another starter. Anything else does."""
    env = {"PATH": "/usr/bin", "TRITON_INTERPRET": "1"}
    after_inductor = {**env, "TORCHINDUCTOR_CACHE_DIR": "/tmp/torchinductor_user"}
    assert fresh._starter_key(env, False) == fresh._starter_key(after_inductor, False)
    assert fresh._starter_key(env, False) != fresh._starter_key(env, True)
    assert fresh._starter_key(env, False) != fresh._starter_key({**env, "TRITON_DEBUG": "1"}, False)
    # a shared run still tells the two apart: the run itself may read the variable
    assert fresh._kept(env) != fresh._kept(after_inductor)


HASHED = '''
def hashed():
    """Whether Triton's hash of its own files is already computed in this process."""
    try:
        from triton.runtime.cache import triton_key
    except ImportError:
        from triton.compiler.compiler import triton_key
    return triton_key.cache_info().currsize
'''


@pytest.mark.interpreter
@pytest.mark.parametrize("compile_ready", [False, True])
def test_a_forked_child_finds_tritons_hash_of_its_files_computed(tmp_path, compile_ready):
    """The starter hashes Triton's installed files (triton_key: 400 MB of libtriton) before it forks, so
    a compile in a child does not hash them again; the hash is the same in every process."""
    program = tmp_path / "hashed.py"
    program.write_text(HASHED)
    [result] = fresh.in_fresh_process(program, "hashed", [()], compile_ready=compile_ready)
    assert result == {"value": 1}
