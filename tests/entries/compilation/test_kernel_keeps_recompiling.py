"""TP029's claims, one test each: snippets/compilation/kernel_keeps_recompiling.py.

Counting compiled variants needs a GPU (the interpreter compiles nothing): those tests are
`gpu`-marked. The specialisation classes, the fixes' results and the interpreter's behaviour
run everywhere.
"""

import pytest
import torch
import triton
import triton.language as tl

from snippets.compilation import kernel_keeps_recompiling as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn

BLOCK = entry.BLOCK
SIZES = [1000, 1001, 1002, 1003, 1008, 1024]  # 1008 and 1024 are multiples of 16, the others are not


@triton.jit
def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr):  # a float scalar argument
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@pytest.mark.gpu
def test_gpu_plain_int_n_compiles_one_variant_per_divisibility_class():
    assert entry.variants_after(entry.add_one, SIZES) == 2  # n % 16 == 0, and the rest


@pytest.mark.gpu
def test_gpu_n_equal_to_1_compiles_a_variant_of_its_own():
    assert entry.variants_after(entry.add_one, SIZES + [1]) == 3


@pytest.mark.gpu
def test_gpu_constexpr_n_compiles_once_per_distinct_value():
    assert entry.variants_after(entry.add_one_n_constexpr, SIZES + [1]) == len(SIZES) + 1


@pytest.mark.gpu
def test_gpu_do_not_specialize_n_compiles_once():
    assert entry.variants_after(entry.add_one_any_n, SIZES + [1]) == 1


@pytest.mark.gpu
def test_gpu_n_beyond_int32_adds_an_i64_variant_even_with_do_not_specialize():
    kernel = entry.fresh_copy(entry.add_one_any_n)
    x = torch.zeros(BLOCK, device=DEVICE)
    out = torch.empty_like(x)
    kernel[(1,)](x, out, 1000, BLOCK=BLOCK)
    kernel[(1,)](x, out, 2**31, BLOCK=BLOCK)  # one program: it touches only the first BLOCK elements
    assert entry.compiled_variants(kernel) == 2  # n: i32, then i64


@pytest.mark.gpu
def test_gpu_a_misaligned_slice_adds_a_variant():
    kernel = entry.fresh_copy(entry.add_one)
    base = torch.zeros(1025, device=DEVICE)
    entry.launch(kernel, base[:1024])  # data pointer 16-byte aligned
    entry.launch(kernel, base[1:])  # 4 bytes further: not aligned
    assert entry.compiled_variants(kernel) == 2


@pytest.mark.gpu
def test_gpu_do_not_specialize_on_alignment_compiles_once_for_both():
    kernel = entry.fresh_copy(entry.add_one_any_alignment)
    base = torch.zeros(1025, device=DEVICE)
    entry.launch(kernel, base[:1024])
    entry.launch(kernel, base[1:])
    assert entry.compiled_variants(kernel) == 1


@pytest.mark.gpu
def test_gpu_a_new_dtype_adds_a_variant():
    kernel = entry.fresh_copy(entry.add_one)
    entry.launch(kernel, torch.zeros(1024, device=DEVICE))
    entry.launch(kernel, torch.zeros(1024, device=DEVICE, dtype=torch.float16))
    assert entry.compiled_variants(kernel) == 2


def scale_with(kernel, factors):
    x = torch.ones(1024, device=DEVICE)
    for factor in factors:
        kernel[(1,)](x, torch.empty_like(x), factor, 1024, BLOCK=BLOCK)


@pytest.mark.gpu
def test_gpu_float_values_share_one_variant():
    kernel = entry.fresh_copy(scale)
    scale_with(kernel, [0.5, 2.5, 3.0])
    assert entry.compiled_variants(kernel) == 1  # fp32, never specialised on its value


@pytest.mark.gpu
def test_gpu_an_int_where_a_float_was_passed_adds_variants():
    kernel = entry.fresh_copy(scale)
    scale_with(kernel, [0.5, 2.5, 3.0, 2, 1])  # 2 is an i32; 1 is specialised as a constant
    assert entry.compiled_variants(kernel) == 3


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
    assert entry.specialization(value) == expected  # Triton's specialisation, in C++ since 3.6


def test_native_specialize_impl_with_do_not_specialize_keeps_only_the_type():
    specialize = False  # what do_not_specialize passes
    assert {entry.specialization(v, specialize) for v in (1, 1000, 1008)} == {("i32", None)}


@pytest.mark.parametrize("n", [1, 1000, 1003, 1024, 5000])
def test_fix_do_not_specialize_gives_the_right_result(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.launch(entry.add_one_any_n, x), x.double() + 1)


@pytest.mark.parametrize("n", [1, 1000, 1003, 1024, 5000])
def test_fix_plain_int_n_gives_the_right_result(n):
    x = fresh_randn(n)
    assert_matches_float64(entry.launch(entry.add_one, x), x.double() + 1)


def test_fix_do_not_specialize_on_alignment_reads_a_misaligned_slice_right():
    base = fresh_randn(1025)
    assert_matches_float64(entry.launch(entry.add_one_any_alignment, base[1:]), base[1:].double() + 1)


@pytest.mark.interpreter
def test_interpreter_compiles_nothing_and_keeps_one_rewritten_function():
    for n in [1, 1000, 1001, 1024]:
        entry.launch(entry.add_one_n_constexpr, torch.zeros(n, device=DEVICE))
    first = entry.add_one_n_constexpr.rewrite()  # the kernel's body, rewritten into plain Python
    entry.launch(entry.add_one_n_constexpr, torch.zeros(1003, device=DEVICE))
    assert entry.add_one_n_constexpr.rewrite() is first  # the same function, whatever n is
    assert not hasattr(entry.add_one_n_constexpr, "device_caches")  # no compiled variants to count
