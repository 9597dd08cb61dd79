"""The handbook's ways into the checked interpreter: ``triton-faq checked`` and TRITON_FAQ_CHECKED.

The package's own tests are in ``triton_checked/tests/``.
"""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.interpreter

SCRIPT = textwrap.dedent("""
    import torch, triton, triton.language as tl

    @triton.jit
    def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))

    copy[(2,)](torch.randn(100), torch.zeros(128), BLOCK=64)
    print("finished")
""")


def _run(args, env_extra, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "TRITON_FAQ_BACKEND": "interpreter", **env_extra}
    return subprocess.run([*args, str(script)], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)


def test_environment_variable_checks_a_whole_script(tmp_path):
    result = _run([sys.executable, "-c", "import sys, runpy, triton_faq.backend; runpy.run_path(sys.argv[1])"],
                  {"TRITON_FAQ_CHECKED": "1"}, tmp_path)
    assert result.returncode == 1 and "finished" not in result.stdout
    assert "OutOfBounds: out-of-bounds load in kernel copy" in result.stderr
    assert "argument x_ptr: element offset 100" in result.stderr


def test_command_runs_a_script_unchanged_and_prints_the_report_without_a_traceback(tmp_path):
    result = _run([sys.executable, "-m", "triton_faq", "checked"], {}, tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("triton-faq checked: OutOfBounds: out-of-bounds load in kernel copy")
    assert "launched from script.py:9 in <module>" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_environment_value_is_one_line(tmp_path):
    result = _run([sys.executable, "-c", "import triton_faq.backend"], {"TRITON_FAQ_CHECKED": "maybe"}, tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == ("triton-faq: TRITON_FAQ_CHECKED='maybe' is not understood: "
                                     "use 1 (bounds and races), bounds, or 0")


def test_the_pages_give_the_race_records_size_per_element_as_the_code_has_it():
    import numpy as np

    from conftest import ROOT
    from triton_checked import races

    between, within, page = (races.FIELDS * np.dtype(np.int32).itemsize,
                             races.OWN_FIELDS * np.dtype(np.int32).itemsize, races.PAGE)
    english = (ROOT / "docs/en/debugging/checked-interpreter.md").read_text(encoding="utf-8")
    chinese = (ROOT / "docs/zh/debugging/checked-interpreter.md").read_text(encoding="utf-8")
    assert f"The record holds {between} bytes per element a launch touches, in pages of {page:,} elements" in english
    assert f"and {within} more per element the running program touches" in english
    assert f"每个元素 {between} 字节，按 {page:,} 个元素一页" in chinese and f"每个再多 {within} 字节" in chinese
