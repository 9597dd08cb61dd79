"""TP008: summing float16 / bfloat16: what `tl.sum` accumulates in, and the running-sum trap.

Run it: ``python snippets/reductions/low_precision_sum.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import inspect
import warnings

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:sum-dtype]
@triton.jit
def block_sum_two_ways(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))            # float16
    default = tl.sum(x, axis=0)
    tl.static_assert(default.dtype == tl.float16)        # no upcast: the result is float16
    wide = tl.sum(x, axis=0, dtype=tl.float32)
    tl.static_assert(wide.dtype == tl.float32)
    tl.store(out_ptr + 0, default)                       # out is float32
    tl.store(out_ptr + 1, wide)
# --8<-- [end:sum-dtype]


# --8<-- [start:pitfall]
@triton.jit
def running_sum_pitfall(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=x_ptr.dtype.element_ty)  # float16 input -> float16 accumulator
    for start in range(0, N, BLOCK):
        acc += tl.load(x_ptr + start + offs)
    tl.store(out_ptr, tl.sum(acc, axis=0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def running_sum(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)  # accumulate in float32 whatever the input
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + start + offs)
        acc += x.to(tl.float32)
    tl.store(out_ptr, tl.sum(acc, axis=0))


@triton.jit
def running_sum_scalar(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + start + offs)
        acc += tl.sum(x, axis=0, dtype=tl.float32)  # the block's sum in float32, too
    tl.store(out_ptr, acc)
# --8<-- [end:fix]


# --8<-- [start:launch]
def total(kernel, x, block):
    assert x.numel() % block == 0, "these kernels have no mask: N must be a multiple of BLOCK"
    out = poisoned(1)  # float32, NaN until written
    kernel[(1,)](x, out, N=x.numel(), BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:test-sum-dtype]
def test_sum_of_float16_is_float16_and_overflows():
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)  # the sum, 131072, is above 65504
    out = poisoned(2)
    block_sum_two_ways[(1,)](x, out, BLOCK=64)
    default, wide = out.cpu().tolist()
    assert default == float("inf")  # float16's largest finite value is 65504
    assert wide == 131072.0


def test_triton_3_6_docstring_promises_an_upcast_the_code_does_not_do():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0; installed: {triton.__version__}")
    doc = " ".join(inspect.getsource(tl.core._add_reduction_docstr).split())
    assert "float dtypes are upcasted to at least :code:`tl.float32`" in doc
    source = inspect.getsource(tl.standard)
    code = source[source.index("def _pick_sum_dtype"):source.index("def sum(")]
    assert "is_int_signed" in code and "float" not in code  # only integers are widened


@pytest.mark.interpreter
def test_interpreter_warns_when_the_float16_sum_overflows():
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)
    with pytest.warns(RuntimeWarning, match="overflow encountered in reduce"):
        block_sum_two_ways[(1,)](x, poisoned(2), BLOCK=64)
# --8<-- [end:test-sum-dtype]


def reproduce_float16_sum_overflow_warning() -> str:
    """The warning the float16 tl.sum prints under TRITON_INTERPRET=1, formatted as Python prints it."""
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        block_sum_two_ways[(1,)](x, poisoned(2), BLOCK=64)
    return "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught)


# --8<-- [start:test-pitfall]
def test_pitfall_float16_running_sum_stalls_at_2048_per_lane():
    x = torch.ones(2**14, dtype=torch.float16, device=DEVICE)  # 4 lanes x 4096 iterations
    # each lane reaches 2048; 2048 + 1 rounds back to 2048 in float16 (spacing 2 there)
    assert float(total(running_sum_pitfall, x, block=4)) == 4 * 2048  # half of 16384


@pytest.mark.gpu
def test_gpu_pitfall_bfloat16_running_sum_stalls_at_256_per_lane():
    x = torch.ones(2**11, dtype=torch.bfloat16, device=DEVICE)  # 4 lanes x 512 iterations
    assert float(total(running_sum_pitfall, x, block=4)) == 4 * 256  # half of 2048


@pytest.mark.interpreter
def test_interpreter_bfloat16_running_sum_adds_raw_bits():
    # the interpreter stores bfloat16 as uint16 and adds the bit patterns: 512 * 0x3F80 wraps to 0
    x = torch.ones(2**11, dtype=torch.bfloat16, device=DEVICE)
    assert float(total(running_sum_pitfall, x, block=4)) == 0.0
# --8<-- [end:test-pitfall]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("kernel", [running_sum, running_sum_scalar])
def test_fix_float32_accumulator_matches_float64(kernel, dtype):
    x = (fresh_randn(4096).abs() + 0.5).to(dtype)
    assert_matches_float64(total(kernel, x, block=64), x.double().sum().reshape(1))


def test_fix_on_the_all_ones_input_is_exact():
    x = torch.ones(2**14, dtype=torch.float16, device=DEVICE)
    assert float(total(running_sum, x, block=64)) == 2**14
# --8<-- [end:test-fix]


def main():
    print(describe())
    x = torch.ones(2**14, dtype=torch.float16, device=DEVICE)
    print("sum of 2**14 float16 ones")
    print("  float16 running sum (4 lanes):", float(total(running_sum_pitfall, x, block=4)))
    print("  float32 running sum          :", float(total(running_sum, x, block=64)))
    x = torch.full((64,), 2048.0, dtype=torch.float16, device=DEVICE)
    out = poisoned(2)
    block_sum_two_ways[(1,)](x, out, BLOCK=64)
    print("tl.sum of 64 float16 values of 2048: default, dtype=tl.float32 ->", out.cpu().tolist())


if __name__ == "__main__":
    main()
