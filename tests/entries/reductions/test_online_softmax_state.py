"""TP007's claims, one test each: snippets/reductions/online_softmax_state.py."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import torch
import triton

from snippets.reductions import online_softmax_state as entry
from triton_faq.fetch import FetchError, fetched_once
from triton_faq.fresh import run_python_once
from triton_faq.testing import assert_matches_float64, fresh_randn

ROOT = Path(__file__).resolve().parents[3]
READERS_FILE = ROOT / "snippets" / "reductions" / "online_softmax_state.py"
NUMPY_2_4 = "2.4.6"
NOT_A_SCALAR = "only 0-dimensional arrays can be converted to Python scalars"


def test_pitfall_without_rescaling_rows_sum_to_one_half():
    # two blocks of 16: the first all 0, the second all 20, so the max changes at the second block
    x = torch.cat([torch.zeros(3, 16), torch.full((3, 16), 20.0)], dim=1).to(entry.DEVICE)
    y = entry.softmax(entry.softmax_online_no_rescale, x).cpu()
    # d = 16 * exp(0 - 0) + 16 * exp(20 - 20) = 32 instead of about 16
    assert torch.equal(y[:, 16:], torch.full((3, 16), 1 / 32))
    assert torch.equal(entry.softmax(entry.softmax_online, x).cpu()[:, 16:], torch.full((3, 16), 1 / 16))


def test_pitfall_without_rescaling_is_wrong_on_random_rows():
    x = fresh_randn(4, 100).sort(dim=1).values * 3  # ascending: the max grows at every block
    with pytest.raises(AssertionError, match="relative error"):
        assert_matches_float64(entry.softmax(entry.softmax_online_no_rescale, x), torch.softmax(x.double(), dim=1))


SCALES = {"randn": (1.0, 0.0), "very negative": (30.0, -1000.0), "large": (30.0, 1000.0)}


@pytest.mark.parametrize("n_cols", [1, 16, 37, 100])
@pytest.mark.parametrize("scale", SCALES)
def test_fix_matches_float64_softmax(n_cols, scale):
    spread, shift = SCALES[scale]
    x = fresh_randn(3, n_cols) * spread + shift  # exp(x) alone would overflow or underflow
    assert_matches_float64(entry.softmax(entry.softmax_online, x), torch.softmax(x.double(), dim=1))


def test_fix_respects_the_row_stride_of_a_view():
    x = fresh_randn(3, 64)[:, 7:47] * 5
    assert_matches_float64(entry.softmax(entry.softmax_online, x), torch.softmax(x.double(), dim=1))


@pytest.mark.parametrize("n_cols", [1, 5, 16, 37, 100])  # 1 and 5: lanes that never see a value (BLOCK = 16)
def test_vector_state_merged_at_the_end_matches_float64(n_cols):
    x = fresh_randn(3, n_cols) * 30
    assert_matches_float64(entry.softmax(entry.softmax_online_vector_state, x), torch.softmax(x.double(), dim=1))


# NumPy 2.4 and Triton's interpreter before 3.7: a loop to a runtime bound (`n_cols`) fails.
# The project pins NumPy 2.3.5; these tests install NumPy 2.4.6 once into .cache/ and put it first
# on PYTHONPATH of a child process, with the Triton this process imported.

def numpy_2_4_folder() -> Path:
    """.cache/numpy-2.4.6, installed from PyPI once (atomically); skips the test when PyPI is unreachable."""
    target = ROOT / ".cache" / f"numpy-{NUMPY_2_4}"
    try:
        return fetched_once(target, lambda folder: ["install", "--quiet", "--no-deps", "--no-compile", "--target",
                                                    str(folder), f"numpy=={NUMPY_2_4}"])
    except FetchError as why:
        pytest.skip(f"cannot install numpy=={NUMPY_2_4} from PyPI into {target} ({why})")


SOFTMAX_CHILD = """
import os, runpy, sys
os.environ["TRITON_INTERPRET"] = "1"
import numpy
print("numpy", numpy.__version__, flush=True)
entry = runpy.run_path(sys.argv[1])
import torch
x = torch.linspace(-3.0, 3.0, 3 * 37).reshape(3, 37)
y = entry["softmax"](entry["softmax_online"], x)  # the fix, n_cols a runtime loop bound
print("max abs error", (y.double() - torch.softmax(x.double(), dim=1)).abs().max().item())
"""


def run_child(code: str, numpy_folder: Path | None, *args: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter process, with ``numpy_folder`` (if any) first on its path (once a
    test run: the reproducer and the test ask for the same run)."""
    triton_folder = Path(triton.__file__).resolve().parents[1]  # the Triton under test, also in the matrix
    path = [str(p) for p in (numpy_folder, triton_folder, ROOT) if p is not None]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "TRITON_INTERPRET": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return run_python_once(["-c", code, *args], env)


def reproduce_runtime_bound_on_the_interpreter() -> str:
    """The fix, run by the interpreter with NumPy 2.4.6 in a child process: what it printed."""
    child = run_child(SOFTMAX_CHILD, numpy_2_4_folder(), str(READERS_FILE))
    return child.stdout + child.stderr


@pytest.mark.interpreter
def test_interpreter_with_numpy_2_4_cannot_loop_to_a_runtime_bound():
    child = run_child(SOFTMAX_CHILD, numpy_2_4_folder(), str(READERS_FILE))
    assert child.stdout.startswith(f"numpy {NUMPY_2_4}\n")
    assert child.returncode != 0
    last = child.stderr.strip().splitlines()[-1]
    assert last == f"triton.runtime.errors.InterpreterError: TypeError('{NOT_A_SCALAR}')"
    # the frame in the kernel is the first `for` line of softmax_online
    frames = re.findall(rf'File "{re.escape(str(READERS_FILE))}", line \d+, in (\w+)\n\s+(.*)', child.stderr)
    assert ("softmax_online", "for start in range(0, n_cols, BLOCK):       # pass 1: one block of columns at a time") \
        in frames
    assert "int(self.handle.data)" in child.stderr  # range() asks the interpreter's tensor for __index__


@pytest.mark.interpreter
def test_interpreter_with_pinned_numpy_loops_to_a_runtime_bound():
    show_warnings = 'import warnings; warnings.simplefilter("always", DeprecationWarning)\n'
    child = run_child(show_warnings + SOFTMAX_CHILD, None, str(READERS_FILE))
    assert child.returncode == 0, child.stderr
    version = child.stdout.splitlines()[0].split()[1]
    assert tuple(int(part) for part in version.split(".")[:2]) < (2, 4), version
    assert float(child.stdout.splitlines()[-1].split()[-1]) < 1e-6  # right, against float64
    # the same conversion, only deprecated before NumPy 2.4
    assert "DeprecationWarning: Conversion of an array with ndim > 0 to a scalar is deprecated" in child.stderr


def test_numpy_2_4_refuses_int_of_a_one_element_array():
    code = ("import numpy as np\n"
            "print(np.__version__, int(np.array(37)))\n"  # 0-d: fine
            "int(np.array([37]))\n")  # the interpreter holds a runtime int argument as a 1-element array
    child = run_child(code, numpy_2_4_folder())
    assert child.stdout == f"{NUMPY_2_4} 37\n"
    assert child.stderr.strip().splitlines()[-1] == f"TypeError: {NOT_A_SCALAR}"
