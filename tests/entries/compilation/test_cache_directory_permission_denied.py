"""TP038's claims, one test each: snippets/compilation/cache_directory_permission_denied.py.

The jobs (`entry.run_job`) run in new processes with HOME=/, as `nobody` when the tests run as
root; the three of them run side by side, once per test session.
"""

import functools
import os
import re
import tempfile
import threading

import pytest
import torch
from triton.runtime.jit import JITFunction

from snippets.compilation import cache_directory_permission_denied as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

MESSAGE = "PermissionError: [Errno 13] Permission denied: '/.triton'"
COMPILED_FILES = {"store_one.ttir", "store_one.ttgir", "store_one.llir", "store_one.ptx", "store_one.cubin",
                  "store_one.json"}


LAUNCH_JOB = """
import os
import sysconfig

import torch
import triton
import triton.language as tl


@triton.jit
def store_one(y_ptr):
    tl.store(y_ptr, 1.0)


y = torch.zeros(1, device="cuda")
if os.geteuid() == 0:
    sysconfig.get_config_vars()  # as in entry.JOB: read while still root
    os.setgid(65534)
    os.setuid(65534)
store_one[(1,)](y)
print("launched", y.item())
"""


@functools.cache
def _jobs():
    """The pitfall, the TRITON_CACHE_DIR fix and the TRITON_HOME fix, each in its own process, at once."""
    cache = entry.job_env()["TRITON_CACHE_DIR"]
    home = tempfile.mkdtemp(prefix="triton-home-")
    cases = {"HOME=/": {}, "TRITON_CACHE_DIR": {"TRITON_CACHE_DIR": cache}, "TRITON_HOME": {"TRITON_HOME": home}}
    results = {}
    threads = [threading.Thread(target=lambda c=case, e=env: results.update({c: entry.run_job(**e)}))
               for case, env in cases.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, cache, home


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_permission_denied():
    return entry.run_job()


# -- the pitfall

def test_pitfall_home_slash_raises_permission_denied():
    results, _, _ = _jobs()
    if not os.path.exists("/.triton"):
        assert results["HOME=/"] == MESSAGE
    else:  # left by a root process with HOME=/: the first directory the job cannot create is deeper
        assert re.fullmatch(r"PermissionError: \[Errno 13\] Permission denied: '/\.triton/[^']+'", results["HOME=/"])


@pytest.mark.gpu
def test_gpu_the_first_launch_raises_it():
    last_line = entry.run_job(LAUNCH_JOB)
    if not os.path.exists("/.triton"):
        assert last_line == MESSAGE
    else:
        assert last_line.startswith("PermissionError: [Errno 13] Permission denied: '/.triton/")


# -- the fixes

def test_fix_triton_cache_dir_receives_the_compiled_kernel():
    results, cache, _ = _jobs()
    assert results["TRITON_CACHE_DIR"] == "compiled"
    assert COMPILED_FILES <= set(entry.cached_files(cache))
    assert len(os.listdir(cache)) == 1  # one directory per kernel key, straight under TRITON_CACHE_DIR


def test_fix_triton_home_moves_the_cache_to_its_dot_triton():
    results, _, home = _jobs()
    assert results["TRITON_HOME"] == "compiled"
    assert os.listdir(home) == [".triton"]
    assert os.listdir(os.path.join(home, ".triton")) == ["cache"]
    assert COMPILED_FILES <= set(entry.cached_files(os.path.join(home, ".triton", "cache")))


def test_fix_matches_float64_reference(monkeypatch):
    cache = entry.job_env()["TRITON_CACHE_DIR"]
    monkeypatch.setenv("TRITON_CACHE_DIR", cache)
    for n in (1, 100, 1000):
        x = fresh_randn(n)
        assert_matches_float64(entry.double(x), x.double() * 2)


@pytest.mark.interpreter
def test_interpreter_never_touches_the_cache(monkeypatch):
    cache = entry.job_env()["TRITON_CACHE_DIR"]
    monkeypatch.setenv("TRITON_CACHE_DIR", cache)
    x = fresh_randn(300)
    assert_matches_float64(entry.double(x), x.double() * 2)
    assert os.listdir(cache) == []


@pytest.mark.gpu
def test_gpu_a_launch_compiles_into_triton_cache_dir(monkeypatch):
    cache = entry.job_env()["TRITON_CACHE_DIR"]
    monkeypatch.setenv("TRITON_CACHE_DIR", cache)
    kernel = JITFunction(entry.double_kernel.fn)  # a fresh copy: nothing compiled in this process yet
    x = fresh_randn(1000)
    y = torch.full_like(x, float("nan"))
    kernel[(8,)](x, y, x.numel(), BLOCK=128)
    assert_matches_float64(y, x.double() * 2)
    assert "double_kernel.cubin" in entry.cached_files(cache)
