"""TP021: `tl.math.tanh` does not exist in Triton 3.x; tanh lives in libdevice.

Run it: ``python snippets/math_functions/where_is_tanh.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import inspect
import re
import traceback

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest
from triton.errors import TritonError

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def tanh_math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.math.tanh(x), mask=mask)  # Triton 2.x spelling
# --8<-- [end:pitfall]


# --8<-- [start:launch]
def launch(kernel, x: torch.Tensor, block: int = 128) -> torch.Tensor:
    """Run an element-wise kernel on a 1-D float32 tensor; the output starts as NaN."""
    out = poisoned(x.numel())
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:test-missing]
def test_triton_3_has_no_tl_math_tanh_and_no_tl_tanh():
    assert not hasattr(tl.math, "tanh")
    assert not hasattr(tl, "tanh")
# --8<-- [end:test-missing]


# --8<-- [start:test-pitfall]
MISSING = "AttributeError(\"module 'triton.language.math' has no attribute 'tanh'\")"


def test_tl_math_tanh_in_a_kernel_raises_attribute_error():
    x, out = fresh_randn(100), poisoned(100)
    with pytest.raises(TritonError, match=re.escape(MISSING)):  # the same text on both backends
        tanh_math_kernel[(1,)](x, out, 100, BLOCK=128)
    assert torch.isnan(out).all()  # not one element was written


@pytest.mark.interpreter
def test_interpreter_reports_it_as_an_interpreter_error():
    from triton.runtime.errors import InterpreterError

    with pytest.raises(InterpreterError) as caught:
        launch(tanh_math_kernel, fresh_randn(100))
    assert str(caught.value) == MISSING


@pytest.mark.gpu
def test_cuda_reports_it_as_a_compilation_error_pointing_at_the_call():
    from triton.compiler.errors import CompilationError

    with pytest.raises(CompilationError) as caught:
        launch(tanh_math_kernel, fresh_randn(100))
    message = str(caught.value)
    assert "tl.math.tanh(x)" in message  # the source line is quoted
    assert message.endswith(MISSING)
# --8<-- [end:test-pitfall]


# --8<-- [start:fix]
from triton.language.extra import libdevice  # noqa: E402  (Triton 3.x)


@triton.jit
def tanh_libdevice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.tanh(x), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:cuda-path]
from triton.language.extra.cuda import libdevice as cuda_libdevice  # noqa: E402


@triton.jit
def tanh_cuda_libdevice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, cuda_libdevice.tanh(x), mask=mask)
# --8<-- [end:cuda-path]


# --8<-- [start:inputs]
def hard_inputs() -> torch.Tensor:
    """Fresh random values over a wide range, plus the edges: tiny, huge and infinite."""
    edges = [0.0, 1e-8, -1e-8, 0.5, -0.5, 20.0, -20.0, 44.4, -44.4, 100.0, -100.0, 1e30, -1e30]
    edges += [float("inf"), float("-inf")]
    return torch.cat([fresh_randn(1000) * 4, torch.tensor(edges, device=DEVICE)])
# --8<-- [end:inputs]


# --8<-- [start:test-import-paths]
def test_both_import_paths_exist_in_the_installed_triton():
    from triton.language.extra import libdevice as generic
    from triton.language.extra.cuda import libdevice as cuda

    assert callable(generic.tanh) and callable(cuda.tanh)


def test_the_generic_libdevice_tanh_is_a_stub_that_returns_none():
    assert libdevice.tanh.__module__ == "triton.language.extra.libdevice"
    assert libdevice.tanh(1.0) is None  # its body is `...`


def test_the_cuda_libdevice_tanh_calls_nv_tanhf_for_float32():
    source = inspect.getsource(cuda_libdevice.tanh)
    assert '("__nv_tanhf", core.dtype("fp32"))' in source
    assert '("__nv_tanh", core.dtype("fp64"))' in source


def test_the_cuda_compiler_swaps_the_stub_module_for_the_cuda_one():
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend

    module_map = CUDABackend(GPUTarget("cuda", 90, 32)).get_module_map()
    assert module_map == {"triton.language.extra.libdevice": cuda_libdevice}
# --8<-- [end:test-import-paths]


# --8<-- [start:test-fix]
@pytest.mark.gpu
def test_libdevice_tanh_matches_float64_on_gpu():
    x = hard_inputs()
    y = launch(tanh_libdevice_kernel, x)
    reference = torch.tanh(x.double())
    assert (y.double() - reference).abs().max().item() < 1e-6
    assert_matches_float64(y, reference, rtol=1e-6)


@pytest.mark.gpu
def test_both_import_paths_give_identical_results_on_gpu():
    x = hard_inputs()
    assert torch.equal(launch(tanh_libdevice_kernel, x), launch(tanh_cuda_libdevice_kernel, x))
# --8<-- [end:test-fix]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
def test_interpreter_cannot_run_libdevice_tanh():
    # the stub returns None, and tl.store is the first to notice
    with pytest.raises(
        TritonError, match=re.escape("TypeError(\"cannot convert None of type <class 'NoneType'> to tensor\")")
    ) as caught:
        launch(tanh_libdevice_kernel, fresh_randn(100))
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
        launch(tanh_cuda_libdevice_kernel, fresh_randn(100))
# --8<-- [end:test-interpreter]


def reproduce_tl_math_tanh():
    """The error of the Triton 2.x spelling: raised on both backends."""
    launch(tanh_math_kernel, fresh_randn(100))


def reproduce_libdevice_tanh_on_the_interpreter():
    """The generic libdevice stub returns None under TRITON_INTERPRET=1; tl.store rejects it."""
    launch(tanh_libdevice_kernel, fresh_randn(100))


def reproduce_cuda_libdevice_tanh_on_the_interpreter():
    """The CUDA libdevice module refuses to be called outside compiled code."""
    launch(tanh_cuda_libdevice_kernel, fresh_randn(100))


# --8<-- [start:portable]
@triton.jit
def tanh_by_exp(x):
    # overflow-safe on every input; see the page on the hand-written formula
    t = tl.exp(-2.0 * tl.abs(x))
    y = (1.0 - t) / (1.0 + t)
    return tl.where(x < 0, -y, y)


tanh = libdevice.tanh if BACKEND == "cuda" else tanh_by_exp  # chosen once, at import


@triton.jit
def tanh_portable_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tanh(x), mask=mask)
# --8<-- [end:portable]


# --8<-- [start:test-portable]
def test_portable_tanh_matches_float64_on_both_backends():
    x = hard_inputs()
    assert_matches_float64(launch(tanh_portable_kernel, x), torch.tanh(x.double()))
# --8<-- [end:test-portable]


def main():
    print(describe())
    for kernel in (tanh_math_kernel, tanh_libdevice_kernel):
        try:
            launch(kernel, fresh_randn(8))
            print(f"{kernel.__name__}: ran")
        except TritonError as error:
            print(f"{kernel.__name__}: {type(error).__name__}: {str(error).splitlines()[-1]}")
    x = hard_inputs()
    error = (launch(tanh_portable_kernel, x).double() - torch.tanh(x.double())).abs().max().item()
    print(f"portable tanh ({'libdevice' if BACKEND == 'cuda' else 'exp formula'}): max |error| = {error:.2e}")


if __name__ == "__main__":
    main()
