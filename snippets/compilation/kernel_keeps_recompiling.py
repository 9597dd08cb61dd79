"""TP029: a kernel that keeps recompiling: integer specialisation, constexpr and `do_not_specialize`.

Run it: ``python snippets/compilation/kernel_keeps_recompiling.py``
(on a machine without a GPU it runs through Triton's interpreter, which compiles nothing).
"""

import os
import statistics
import tempfile
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

BLOCK = 1024


# --8<-- [start:kernels]
@triton.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):  # n: a plain int argument
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def add_one_n_constexpr(x_ptr, out_ptr, n: tl.constexpr, BLOCK: tl.constexpr):  # the pitfall
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)
# --8<-- [end:kernels]


# --8<-- [start:fix]
@triton.jit(do_not_specialize=["n"])  # or an index: do_not_specialize=[2]
def add_one_any_n(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit(do_not_specialize_on_alignment=["x_ptr"])
def add_one_any_alignment(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def launch(kernel, x):
    n = x.numel()
    out = poisoned(n)
    kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out
# --8<-- [end:fix]


# --8<-- [start:count]
def fresh_copy(kernel):
    """The same @triton.jit kernel with its own, empty, in-memory cache."""
    return triton.jit(kernel.fn, do_not_specialize=kernel.do_not_specialize,
                      do_not_specialize_on_alignment=kernel.do_not_specialize_on_alignment)


def compiled_variants(kernel):
    """How many compiled binaries the kernel holds for the current GPU (Triton 3.6's cache layout)."""
    device = triton.runtime.driver.active.get_current_device()
    return len(kernel.device_caches[device][0])


def variants_after(kernel, sizes):
    """Launch a fresh copy of `kernel` once per n in `sizes`; count what it compiled."""
    kernel = fresh_copy(kernel)
    for n in sizes:
        launch(kernel, torch.zeros(n, device=DEVICE))
    return compiled_variants(kernel)
# --8<-- [end:count]


# --8<-- [start:test-ints]
SIZES = [1000, 1001, 1002, 1003, 1008, 1024]  # 1008 and 1024 are multiples of 16, the others are not


@pytest.mark.gpu
def test_gpu_plain_int_n_compiles_one_variant_per_divisibility_class():
    assert variants_after(add_one, SIZES) == 2  # n % 16 == 0, and the rest


@pytest.mark.gpu
def test_gpu_n_equal_to_1_compiles_a_variant_of_its_own():
    assert variants_after(add_one, SIZES + [1]) == 3


@pytest.mark.gpu
def test_gpu_constexpr_n_compiles_once_per_distinct_value():
    assert variants_after(add_one_n_constexpr, SIZES + [1]) == len(SIZES) + 1


@pytest.mark.gpu
def test_gpu_do_not_specialize_n_compiles_once():
    assert variants_after(add_one_any_n, SIZES + [1]) == 1
# --8<-- [end:test-ints]


# --8<-- [start:test-i64]
@pytest.mark.gpu
def test_gpu_n_beyond_int32_adds_an_i64_variant_even_with_do_not_specialize():
    kernel = fresh_copy(add_one_any_n)
    x = torch.zeros(BLOCK, device=DEVICE)
    out = torch.empty_like(x)
    kernel[(1,)](x, out, 1000, BLOCK=BLOCK)
    kernel[(1,)](x, out, 2**31, BLOCK=BLOCK)  # one program: it touches only the first BLOCK elements
    assert compiled_variants(kernel) == 2  # n: i32, then i64
# --8<-- [end:test-i64]


# --8<-- [start:test-pointers]
@pytest.mark.gpu
def test_gpu_a_misaligned_slice_adds_a_variant():
    kernel = fresh_copy(add_one)
    base = torch.zeros(1025, device=DEVICE)
    launch(kernel, base[:1024])  # data pointer 16-byte aligned
    launch(kernel, base[1:])  # 4 bytes further: not aligned
    assert compiled_variants(kernel) == 2


@pytest.mark.gpu
def test_gpu_do_not_specialize_on_alignment_compiles_once_for_both():
    kernel = fresh_copy(add_one_any_alignment)
    base = torch.zeros(1025, device=DEVICE)
    launch(kernel, base[:1024])
    launch(kernel, base[1:])
    assert compiled_variants(kernel) == 1


@pytest.mark.gpu
def test_gpu_a_new_dtype_adds_a_variant():
    kernel = fresh_copy(add_one)
    launch(kernel, torch.zeros(1024, device=DEVICE))
    launch(kernel, torch.zeros(1024, device=DEVICE, dtype=torch.float16))
    assert compiled_variants(kernel) == 2
# --8<-- [end:test-pointers]


# --8<-- [start:test-floats]
def scale_with(kernel, factors):
    x = torch.ones(1024, device=DEVICE)
    for factor in factors:
        kernel[(1,)](x, torch.empty_like(x), factor, 1024, BLOCK=BLOCK)


@pytest.mark.gpu
def test_gpu_float_values_share_one_variant():
    kernel = fresh_copy(scale)
    scale_with(kernel, [0.5, 2.5, 3.0])
    assert compiled_variants(kernel) == 1  # fp32, never specialised on its value


@pytest.mark.gpu
def test_gpu_an_int_where_a_float_was_passed_adds_variants():
    kernel = fresh_copy(scale)
    scale_with(kernel, [0.5, 2.5, 3.0, 2, 1])  # 2 is an i32; 1 is specialised as a constant
    assert compiled_variants(kernel) == 3
# --8<-- [end:test-floats]


# --8<-- [start:test-classes]
@pytest.mark.parametrize("value, expected", [
    (1, ("constexpr", 1)),  # baked into the binary
    (1000, ("i32", "")),  # 1000 % 16 == 8
    (1008, ("i32", "D")),  # "D": divisible by 16
    (0, ("i32", "D")),
    (2**31 - 1, ("i32", "")),
    (2**31, ("i64", "D")),  # past int32: another type
    (2.5, ("fp32", None)),  # floats: one class
])
def test_native_specialize_impl_sorts_arguments_into_these_classes(value, expected):
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.runtime.jit import native_specialize_impl  # Triton's specialisation, in C++ since 3.6

    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    assert native_specialize_impl(backend, value, False, True, True) == expected


def test_native_specialize_impl_with_do_not_specialize_keeps_only_the_type():
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.runtime.jit import native_specialize_impl

    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    specialize = False  # what do_not_specialize passes
    assert {native_specialize_impl(backend, v, False, specialize, True) for v in (1, 1000, 1008)} == {("i32", None)}
# --8<-- [end:test-classes]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 1003, 1024, 5000])
def test_fix_do_not_specialize_gives_the_right_result(n):
    x = fresh_randn(n)
    assert_matches_float64(launch(add_one_any_n, x), x.double() + 1)


def test_fix_do_not_specialize_on_alignment_reads_a_misaligned_slice_right():
    base = fresh_randn(1025)
    assert_matches_float64(launch(add_one_any_alignment, base[1:]), base[1:].double() + 1)
# --8<-- [end:test-fix]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
def test_interpreter_compiles_nothing_and_keeps_one_rewritten_function():
    for n in [1, 1000, 1001, 1024]:
        launch(add_one_n_constexpr, torch.zeros(n, device=DEVICE))
    first = add_one_n_constexpr.rewrite()  # the kernel's body, rewritten into plain Python
    launch(add_one_n_constexpr, torch.zeros(1003, device=DEVICE))
    assert add_one_n_constexpr.rewrite() is first  # the same function, whatever n is
    assert not hasattr(add_one_n_constexpr, "device_caches")  # no compiled variants to count
# --8<-- [end:test-interpreter]


# GPU evidence for the pages (run by `triton-faq bench`, not by pytest).
SWEEP = [1, 1000, 1001, 1002, 1003, 1008, 1024, 2000, 2048, 3001]


def sweep_rows():
    kernels = [fresh_copy(k) for k in (add_one, add_one_n_constexpr, add_one_any_n)]
    rows = []
    for n in SWEEP:
        x = torch.zeros(n, device="cuda")
        row = [n, n == 1, n % 16 == 0]
        for kernel in kernels:
            torch.cuda.synchronize()
            start = time.perf_counter()
            out = launch(kernel, x)
            torch.cuda.synchronize()
            row += [(time.perf_counter() - start) * 1e3, compiled_variants(kernel)]
            if not torch.equal(out, x + 1):
                raise AssertionError(f"n={n}: wrong result")
        rows.append(row)
    return rows


@gpu_evidence("variants-over-a-sweep")
def variants_over_a_sweep():
    """Compiled variants and first-call wall time of three kernels over a sweep of n (empty disk cache)."""
    saved = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["TRITON_CACHE_DIR"] = cache_dir  # no binaries from earlier runs: every variant compiles
        try:
            rows = sweep_rows()
        finally:
            if saved is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = saved
    columns = [label("n", "n"), label("n == 1", "n == 1"), label("n % 16 == 0", "n % 16 == 0")]
    for name in ("add_one (int n)", "add_one_n_constexpr (n: tl.constexpr)", 'add_one_any_n (do_not_specialize=["n"])'):
        columns += [label(f"{name}: call ms", f"{name}：本次调用 毫秒"),
                    label(f"{name}: variants so far", f"{name}：累计编译版本数")]
    return table(columns, rows)


@gpu_evidence("first-call-vs-later")
def first_call_vs_later():
    """Wall time of the first call (compiles) and the median of 50 later calls, with a synchronize."""
    saved = os.environ.get("TRITON_CACHE_DIR")
    rows = []
    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["TRITON_CACHE_DIR"] = cache_dir
        try:
            for name, kernel in (("add_one", add_one), ("add_one_any_n", add_one_any_n)):
                kernel = fresh_copy(kernel)
                x = torch.zeros(1 << 20, device="cuda")
                times = []
                for _ in range(51):
                    torch.cuda.synchronize()
                    start = time.perf_counter()
                    launch(kernel, x)
                    torch.cuda.synchronize()
                    times.append((time.perf_counter() - start) * 1e3)
                rows.append([name, times[0], statistics.median(times[1:]), times[0] / statistics.median(times[1:])])
        finally:
            if saved is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = saved
    return table(
        [label("kernel", "kernel"), label("first call ms (compiles)", "第一次调用 毫秒（编译）"),
         label("median of 50 later calls ms", "之后 50 次调用的中位数 毫秒"),
         label("first / later", "第一次 / 之后")],
        rows,
    )


def main():
    print(describe())
    x = fresh_randn(1003)
    out = launch(add_one_any_n, x)
    print("add_one_any_n, n=1003: max error vs float64:", float((out.double() - (x.double() + 1)).abs().max()))
    if BACKEND != "cuda":
        print("the interpreter compiles nothing: one rewritten Python function per kernel,",
              "same object for every n:", add_one_n_constexpr.rewrite() is add_one_n_constexpr.rewrite())
        return
    sizes = SIZES + [1]
    print("n =", sizes)
    for kernel in (add_one, add_one_n_constexpr, add_one_any_n):
        print(f"  {kernel.fn.__name__:22} compiled variants: {variants_after(kernel, sizes)}")


if __name__ == "__main__":
    main()
