"""TP074's claims, one test each: snippets/debugging/internal_compiler_errors.py.

Each compile runs in a new process (the 3.2 compiler aborts the process). The version matrix runs
these tests on Triton 3.2-3.9, so `test_the_installed_release_*` records which releases crash.
"""

from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.debugging import internal_compiler_errors as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

ROOT = Path(__file__).resolve().parents[3]
ASSERTION = "Assertion `idx < size()' failed."
SIGABRT = -6
CRASHES = triton.__version__.startswith("3.2.")  # issue 6157, fixed in 3.3


def release(version):
    folder = ROOT / ".cache" / "matrix" / f"triton-{version}"
    if not folder.is_dir():
        pytest.skip(f"Triton {version} is not in .cache/matrix (run `triton-faq matrix` once to fetch it)")
    return str(folder)


def reproduce_assertion_on_triton_3_2():
    code, last_line = entry.compile_in_new_process(entry.batched_dot_3d, triton_path=release("3.2.0"))
    return last_line


def test_pitfall_triton_3_2_aborts_on_a_3d_ieee_dot():
    code, last_line = entry.compile_in_new_process(entry.batched_dot_3d, triton_path=release("3.2.0"))
    assert code == SIGABRT and last_line.endswith(ASSERTION)


def test_triton_3_3_compiles_the_same_kernel():
    assert entry.compile_in_new_process(entry.batched_dot_3d, triton_path=release("3.3.1")) == (
        0, "compiled with Triton 3.3.1")


def test_workaround_compiles_on_triton_3_2():
    assert entry.compile_in_new_process(entry.batched_dot_2d, triton_path=release("3.2.0")) == (
        0, "compiled with Triton 3.2.0")


def test_the_installed_release_compiles_the_3d_dot_unless_it_is_3_2():
    code, last_line = entry.compile_in_new_process(entry.batched_dot_3d)
    if CRASHES:
        assert code == SIGABRT and last_line.endswith(ASSERTION)
    else:
        assert (code, last_line) == (0, f"compiled with Triton {triton.__version__}")


def test_the_crash_depends_on_the_shape_not_on_the_data():
    """Shrinking: the smallest 3-D shape tl.dot takes still crashes on 3.2."""
    code, last_line = entry.compile_in_new_process(entry.batched_dot_3d, shapes=(1, 16, 16, 16),
                                                   triton_path=release("3.2.0"))
    assert code == SIGABRT and last_line.endswith(ASSERTION)


@triton.jit
def batched_dot_3d_tf32(a_ptr, b_ptr, c_ptr, L: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """The pitfall's kernel with one argument changed: input_precision "tf32" instead of "ieee"."""
    l = tl.arange(0, L)[:, None, None]
    a = tl.load(a_ptr + l * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + l * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b, input_precision="tf32")
    tl.store(c_ptr + l * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


def test_shrinking_input_precision_decides_the_crash():
    assert entry.compile_in_new_process(batched_dot_3d_tf32, triton_path=release("3.2.0")) == (
        0, "compiled with Triton 3.2.0")


@pytest.mark.parametrize("L", [1, 2, 4])
def test_fix_matches_float64(L):
    a, b = fresh_randn(L, 16, 32), fresh_randn(L, 32, 16)
    assert_matches_float64(entry.batched_matmul(entry.batched_dot_2d, a, b), a.double() @ b.double(), rtol=1e-4)


def test_the_3d_dot_is_right_where_it_compiles():
    if CRASHES:
        pytest.skip("Triton 3.2's compiler aborts on this kernel")
    a, b = fresh_randn(2, 16, 16), fresh_randn(2, 16, 16)
    assert_matches_float64(entry.batched_matmul(entry.batched_dot_3d, a, b), a.double() @ b.double(), rtol=1e-4)
    assert isinstance(a, torch.Tensor)
