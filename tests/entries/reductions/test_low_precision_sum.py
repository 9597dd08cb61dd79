"""TP008's claims, one test each: snippets/reductions/low_precision_sum.py."""

import inspect
import os
import re
import tempfile
import warnings
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.reductions import low_precision_sum as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process, poisoned

ROOT = Path(__file__).resolve().parents[3]
READERS_FILE = ROOT / "snippets" / "reductions" / "low_precision_sum.py"
DEVICE = entry.DEVICE
LOOP_CARRIED = ("Loop-carried variable acc has initial type fp16 but is re-assigned to fp32 in loop! "
                "Please make sure that the type stays consistent.")


def one_lossy_addition(dtype=torch.float16):
    """64 values: 1024, 0.5 and zeros. Every order of summing them has exactly one inexact addition,
    1024 + 0.5, which float16 rounds to even: 1024 (its spacing at 1024 is 1)."""
    x = torch.zeros(64, dtype=dtype, device=DEVICE)
    x[0], x[1] = 1024.0, 0.5
    return x


# what tl.sum returns

def test_sum_of_float16_is_float16_and_overflows():
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)  # the sum, 131072, is above 65504
    out = poisoned(2)
    entry.block_sum_two_ways[(1,)](x, out, BLOCK=64)  # its static_asserts check the two dtypes
    default, wide = out.cpu().tolist()
    assert default == float("inf")  # float16's largest finite value is 65504
    assert wide == 131072.0


@pytest.mark.interpreter
def test_interpreter_warns_when_the_float16_sum_overflows():
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)
    with pytest.warns(RuntimeWarning, match="overflow encountered in reduce"):
        entry.block_sum_two_ways[(1,)](x, poisoned(2), BLOCK=64)


def reproduce_float16_sum_overflow_warning() -> str:
    """The warning the float16 tl.sum prints under TRITON_INTERPRET=1, formatted as Python prints it."""
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entry.block_sum_two_ways[(1,)](x, poisoned(2), BLOCK=64)
    return "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught)


def test_triton_3_6_docstring_promises_an_upcast_the_code_does_not_do():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0; installed: {triton.__version__}")
    doc = " ".join(inspect.getsource(tl.core._add_reduction_docstr).split())
    assert "float dtypes are upcasted to at least :code:`tl.float32`" in doc
    source = inspect.getsource(tl.standard)
    code = source[source.index("def _pick_sum_dtype"):source.index("def sum(")]
    assert "is_int_signed" in code and "float" not in code  # only integers are widened


def test_sum_of_bfloat16_is_bfloat16():
    x = torch.ones(64, dtype=torch.bfloat16, device=DEVICE)
    out = poisoned(1)
    entry.bfloat16_sum_stays_bfloat16[(1,)](x, out, BLOCK=64)  # the static_assert raises where it is float32
    assert out.item() == 64.0


# no overflow, still off

def test_pitfall_float16_sum_of_1024_and_half_is_1024():
    x = one_lossy_addition()
    assert x.double().sum().item() == 1024.5                               # float64 reference
    assert entry.block_total(entry.block_sum_default, x).item() == 1024.0  # float16: the half is gone


def test_fix_upcast_before_tl_sum_keeps_the_half():
    assert entry.block_total(entry.block_sum_upcast, one_lossy_addition()).item() == 1024.5


def test_fix_tl_sum_dtype_float32_keeps_the_half():
    assert entry.block_total(entry.block_sum_dtype, one_lossy_addition()).item() == 1024.5


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fix_upcast_before_tl_sum_matches_float64(dtype):
    x = (fresh_randn(1024).abs() + 0.5).to(dtype)
    assert_matches_float64(entry.block_total(entry.block_sum_upcast, x), x.double().sum().reshape(1))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fix_tl_sum_dtype_float32_matches_float64(dtype):
    x = (fresh_randn(1024).abs() + 0.5).to(dtype)
    assert_matches_float64(entry.block_total(entry.block_sum_dtype, x), x.double().sum().reshape(1))


# the running sum

def test_float16_addition_of_half_the_spacing_is_a_tie_that_goes_to_even():
    spacing = torch.finfo(torch.float16).eps * 2048  # spacing of float16 between 2048 and 4096
    assert spacing == 2.0
    assert (torch.tensor(2048.0, dtype=torch.float16) + 1).item() == 2048.0  # halfway: the even one, 2048
    assert (torch.tensor(2050.0, dtype=torch.float16) + 1).item() == 2052.0  # halfway: the even one, 2052
    assert (torch.tensor(2048.0, dtype=torch.float16) + 0.75).item() == 2048.0  # below half: rounds down


def test_pitfall_float16_running_sum_stalls_at_2048_per_lane():
    x = torch.ones(2**14, dtype=torch.float16, device=DEVICE)  # 4 lanes x 4096 iterations
    # each lane reaches 2048; 2048 + 1 is halfway to 2050 and rounds back to 2048
    assert entry.total(entry.running_sum_pitfall, x, block=4).item() == 4 * 2048  # half of 16384


@pytest.mark.gpu
def test_gpu_pitfall_bfloat16_running_sum_stalls_at_256_per_lane():
    x = torch.ones(2**11, dtype=torch.bfloat16, device=DEVICE)  # 4 lanes x 512 iterations
    assert entry.total(entry.running_sum_pitfall, x, block=4).item() == 4 * 256  # half of 2048


@pytest.mark.interpreter
def test_interpreter_bfloat16_running_sum_adds_raw_bits():
    # the interpreter stores bfloat16 as uint16 and adds the bit patterns: 512 * 0x3F80 wraps to 0
    x = torch.ones(2**11, dtype=torch.bfloat16, device=DEVICE)
    assert entry.total(entry.running_sum_pitfall, x, block=4).item() == 0.0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("kernel", ["running_sum", "running_sum_scalar"])
def test_fix_float32_accumulator_matches_float64(kernel, dtype):
    x = (fresh_randn(4096).abs() + 0.5).to(dtype)
    assert_matches_float64(entry.total(getattr(entry, kernel), x, block=64), x.double().sum().reshape(1))


def test_fix_on_the_all_ones_input_is_exact():
    x = torch.ones(2**14, dtype=torch.float16, device=DEVICE)
    assert entry.total(entry.running_sum, x, block=64).item() == 2**14


# a float16 accumulator plus a float32 sum

def compile_mixed(_=None) -> str:
    """running_sum_mixed compiled for sm_90 (no GPU needed), in a new empty kernel cache; run by
    `compile_mixed_in_fresh_process` in a process where no kernel ran, with Triton imported before
    TRITON_INTERPRET=1 applies (tl.sum is one of Triton's own @jit helpers: it must stay compilable)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    fn = JITFunction(entry.running_sum_mixed.fn)  # a compilable object, also where kernels are interpreted
    signature = {"x_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    try:
        triton.compile(ASTSource(fn, signature, {"BLOCK": 64}), target=GPUTarget("cuda", 90, 32))
        return "compiled"
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def compile_mixed_in_fresh_process() -> str:
    [result] = in_fresh_process(Path(__file__), "compile_mixed", [()], compile_ready=True)
    return result["value"]


def reproduce_loop_carried_type_change() -> str:
    """The compile error of running_sum_mixed, compiled for sm_90 in a fresh process (no GPU needed)."""
    return compile_mixed_in_fresh_process()


def test_pitfall_float16_acc_plus_float32_sum_is_a_compile_error():
    assert compile_mixed_in_fresh_process().strip().endswith(f"AssertionError('{LOOP_CARRIED}')")


@pytest.mark.gpu
def test_gpu_float16_acc_plus_float32_sum_fails_at_the_launch():
    from triton.compiler.errors import CompilationError
    x = torch.ones(256, dtype=torch.float16, device=DEVICE)
    with pytest.raises(CompilationError, match=re.escape(LOOP_CARRIED)):
        entry.running_sum_mixed[(1,)](x, poisoned(1), 256, BLOCK=64)


@pytest.mark.interpreter
def test_interpreter_runs_the_mixed_accumulator_silently():
    x = torch.ones(256, dtype=torch.float16, device=DEVICE)
    out = poisoned(1)
    entry.running_sum_mixed[(1,)](x, out, 256, BLOCK=64)  # no error: acc simply becomes float32
    assert out.item() == 256.0


@triton.jit
def _sum_has_dtype(x_ptr, BLOCK: tl.constexpr, UNSIGNED: tl.constexpr):
    total = tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK)), axis=0)
    # checked when the kernel is traced (a compiled kernel has no str(): the dtype's own methods)
    tl.static_assert(total.dtype.is_int() and total.dtype.primitive_bitwidth == 32, "tl.sum's dtype")
    tl.static_assert(total.dtype.is_int_unsigned() == UNSIGNED, "tl.sum's dtype")


@pytest.mark.parametrize("dtype, widened", [(torch.int8, "int32"), (torch.int16, "int32"),
                                            (torch.uint8, "uint32"), (torch.bool, "uint32")])
def test_sum_widens_signed_integers_to_int32_and_unsigned_and_bool_to_uint32(dtype, widened):
    x = torch.ones(16, dtype=dtype, device=entry.DEVICE)
    _sum_has_dtype[(1,)](x, BLOCK=16, UNSIGNED=widened == "uint32")
    with pytest.raises(Exception, match="tl.sum's dtype"):  # the check can fail: the other widening is refused
        _sum_has_dtype[(1,)](x, BLOCK=16, UNSIGNED=widened != "uint32")
