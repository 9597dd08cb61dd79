"""TP021's claims, one test each: snippets/math_functions/where_is_tanh.py."""

import inspect
import re
import traceback

import pytest
import torch
import triton
import triton.language as tl
from triton.errors import TritonError

from snippets.math_functions import where_is_tanh as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

MISSING = "AttributeError(\"module 'triton.language.math' has no attribute 'tanh'\")"


def hard_inputs() -> torch.Tensor:
    """Fresh random values over a wide range, plus the edges: tiny, huge and infinite."""
    edges = [0.0, 1e-8, -1e-8, 0.5, -0.5, 20.0, -20.0, 44.4, -44.4, 100.0, -100.0, 1e30, -1e30]
    edges += [float("inf"), float("-inf")]
    return torch.cat([fresh_randn(1000) * 4, torch.tensor(edges, device=DEVICE)])


def test_triton_3_has_no_tl_math_tanh_and_no_tl_tanh():
    assert not hasattr(tl.math, "tanh")
    assert not hasattr(tl, "tanh")


def test_tl_math_tanh_in_a_kernel_raises_attribute_error():
    x, out = fresh_randn(100), poisoned(100)
    with pytest.raises(TritonError, match=re.escape(MISSING)):  # the same text on both backends
        entry.tanh_math_kernel[(1,)](x, out, 100, BLOCK=128)
    assert torch.isnan(out).all()  # not one element was written


@pytest.mark.interpreter
def test_interpreter_reports_it_as_an_interpreter_error():
    from triton.runtime.errors import InterpreterError

    with pytest.raises(InterpreterError) as caught:
        entry.launch(entry.tanh_math_kernel, fresh_randn(100))
    assert str(caught.value) == MISSING


@pytest.mark.gpu
def test_cuda_reports_it_as_a_compilation_error_pointing_at_the_call():
    from triton.compiler.errors import CompilationError

    with pytest.raises(CompilationError) as caught:
        entry.launch(entry.tanh_math_kernel, fresh_randn(100))
    message = str(caught.value)
    assert "tl.math.tanh(x)" in message  # the source line is quoted
    assert message.endswith(MISSING)


def test_both_import_paths_exist_in_the_installed_triton():
    from triton.language.extra import libdevice as generic
    from triton.language.extra.cuda import libdevice as cuda

    assert callable(generic.tanh) and callable(cuda.tanh)


def test_the_generic_libdevice_tanh_is_a_stub_that_returns_none():
    assert entry.libdevice.tanh.__module__ == "triton.language.extra.libdevice"
    assert entry.libdevice.tanh(1.0) is None  # its body is `...`


def test_the_cuda_libdevice_tanh_calls_nv_tanhf_for_float32():
    source = inspect.getsource(entry.cuda_libdevice.tanh)
    assert '("__nv_tanhf", core.dtype("fp32"))' in source
    assert '("__nv_tanh", core.dtype("fp64"))' in source


def test_the_cuda_compiler_swaps_the_stub_module_for_the_cuda_one():
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend

    module_map = CUDABackend(GPUTarget("cuda", 90, 32)).get_module_map()
    assert module_map == {"triton.language.extra.libdevice": entry.cuda_libdevice}


@pytest.mark.gpu
def test_libdevice_tanh_matches_float64_on_gpu():
    x = hard_inputs()
    y = entry.launch(entry.tanh_libdevice_kernel, x)
    reference = torch.tanh(x.double())
    assert (y.double() - reference).abs().max().item() < 1e-6
    assert_matches_float64(y, reference, rtol=1e-6)


@pytest.mark.gpu
def test_both_import_paths_give_identical_results_on_gpu():
    x = hard_inputs()
    assert torch.equal(entry.launch(entry.tanh_libdevice_kernel, x), entry.launch(entry.tanh_cuda_libdevice_kernel, x))


@pytest.mark.interpreter
def test_interpreter_cannot_run_libdevice_tanh():
    # the stub returns None, and tl.store is the first to notice
    with pytest.raises(
        TritonError, match=re.escape("TypeError(\"cannot convert None of type <class 'NoneType'> to tensor\")")
    ) as caught:
        entry.launch(entry.tanh_libdevice_kernel, fresh_randn(100))
    raised_in = [frame.name for frame in traceback.extract_tb(caught.value.__cause__.__traceback__)]
    assert "store" in raised_in  # tl.store found the None


@pytest.mark.interpreter
def test_interpreter_cannot_run_the_cuda_libdevice_tanh_either():
    with pytest.raises(
        TritonError,
        match=re.escape(
            "Did you forget to add @triton.jit ? (`_semantic` argument must be provided outside of JIT functions.)"
        ),
    ):
        entry.launch(entry.tanh_cuda_libdevice_kernel, fresh_randn(100))


def test_portable_tanh_matches_float64_on_both_backends():
    x = hard_inputs()
    out = poisoned(x.numel())
    entry.tanh_portable_kernel[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)
    assert_matches_float64(out, torch.tanh(x.double()))


# Reproducers of the error messages in the page's front matter (`errors:`).
def reproduce_tl_math_tanh():
    """The error of the Triton 2.x spelling: raised on both backends."""
    entry.launch(entry.tanh_math_kernel, fresh_randn(100))


def reproduce_libdevice_tanh_on_the_interpreter():
    """The generic libdevice stub returns None under TRITON_INTERPRET=1; tl.store rejects it."""
    entry.launch(entry.tanh_libdevice_kernel, fresh_randn(100))


def reproduce_cuda_libdevice_tanh_on_the_interpreter():
    """The CUDA libdevice module refuses to be called outside compiled code."""
    entry.launch(entry.tanh_cuda_libdevice_kernel, fresh_randn(100))
