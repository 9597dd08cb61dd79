"""One place decides the backend for the tests; a reader's file switches to the interpreter by itself."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from triton_faq.backend import BackendError, choose


def yes():
    return True


def no():
    return False


@pytest.mark.parametrize(
    "environ, cuda, expected",
    [
        ({}, yes, "cuda"),
        ({}, no, "interpreter"),
        ({"TRITON_FAQ_BACKEND": "interpreter"}, yes, "interpreter"),
        ({"TRITON_FAQ_BACKEND": "CUDA"}, yes, "cuda"),
        ({"TRITON_INTERPRET": "1"}, yes, "interpreter"),
        ({"TRITON_INTERPRET": "0"}, yes, "cuda"),
    ],
)
def test_choice(environ, cuda, expected):
    assert choose(environ, cuda) == expected


def test_asking_for_cuda_without_a_gpu_is_refused_clearly():
    with pytest.raises(BackendError, match="PyTorch sees no CUDA GPU"):
        choose({"TRITON_FAQ_BACKEND": "cuda"}, no)


def test_an_unknown_backend_is_refused_clearly():
    with pytest.raises(BackendError, match="not a backend; use one of: cuda, interpreter"):
        choose({"TRITON_FAQ_BACKEND": "rocm"}, yes)


def run(command, extra_env):
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "TRITON_FAQ_BACKEND")}
    env.update(extra_env)
    return subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.interpreter
def test_a_readers_file_run_as_a_script_picks_the_interpreter_by_itself():
    result = run(["snippets/garbage_values/masked_load_without_other.py"], {})
    assert result.returncode == 0, result.stderr
    assert "pitfall max: [0.0, 0.0, 0.0, 0.0]" in result.stdout  # the kernels ran, on the interpreter


@pytest.mark.interpreter
def test_a_bad_override_is_one_clear_line_not_a_traceback():
    result = run(["-c", "import triton_faq.backend"], {"TRITON_FAQ_BACKEND": "cuda"})
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "triton-faq: TRITON_FAQ_BACKEND=cuda but PyTorch sees no CUDA GPU; unset it to use the interpreter"
    )
