"""TP008: summing float16 / bfloat16: what `tl.sum` accumulates in, and the running-sum trap.

Run it: ``python snippets/reductions/low_precision_sum.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import inspect
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime.jit import JITFunction

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

ROOT = Path(__file__).resolve().parents[2]
LOOP_CARRIED = ("Loop-carried variable acc has initial type fp16 but is re-assigned to fp32 in loop! "
                "Please make sure that the type stays consistent.")


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


# --8<-- [start:block-sums]
@triton.jit
def block_sum_default(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x, axis=0))                    # summed in the input's dtype


@triton.jit
def block_sum_upcast(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x.to(tl.float32), axis=0))     # any Triton version


@triton.jit
def block_sum_dtype(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x, axis=0, dtype=tl.float32))  # needs tl.sum's dtype parameter
# --8<-- [end:block-sums]


# --8<-- [start:bfloat16-dtype]
@triton.jit
def bfloat16_sum_stays_bfloat16(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))               # bfloat16
    tl.static_assert(tl.sum(x, axis=0).dtype == tl.bfloat16)
    tl.store(out_ptr, tl.sum(x.to(tl.float32), axis=0))    # reached only if the assert holds
# --8<-- [end:bfloat16-dtype]


# --8<-- [start:drift-input]
def one_lossy_addition(dtype=torch.float16):
    """64 values: 1024, 0.5 and zeros. Every order of summing them has exactly one inexact addition,
    1024 + 0.5, which float16 rounds to even: 1024 (its spacing at 1024 is 1)."""
    x = torch.zeros(64, dtype=dtype, device=DEVICE)
    x[0], x[1] = 1024.0, 0.5
    return x


def block_total(kernel, x):
    out = poisoned(1)  # float32, NaN until written
    kernel[(1,)](x, out, BLOCK=x.numel())
    return out
# --8<-- [end:drift-input]


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


# --8<-- [start:mixed]
@triton.jit
def running_sum_mixed(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((), dtype=x_ptr.dtype.element_ty)    # float16 accumulator ...
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + start + offs)
        acc += tl.sum(x, axis=0, dtype=tl.float32)      # ... plus a float32 sum: acc becomes float32
    tl.store(out_ptr, acc)
# --8<-- [end:mixed]


# --8<-- [start:offline]
H200 = GPUTarget("cuda", 90, 32)  # sm_90: compiling for it needs no GPU
MIXED_SIGNATURE = {"x_ptr": "*fp16", "out_ptr": "*fp32", "N": "constexpr", "BLOCK": "constexpr"}


def compile_mixed_offline() -> str:
    """Compile running_sum_mixed for sm_90 (no launch, no GPU needed); return the error, if any."""
    fn = JITFunction(running_sum_mixed.fn)  # a compilable object, also where kernels are interpreted
    try:
        triton.compile(ASTSource(fn, MIXED_SIGNATURE, {"N": 256, "BLOCK": 64}), target=H200)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return "compiled"
# --8<-- [end:offline]


# A fresh process: an interpreted kernel patches triton.language in place, and Triton's own @jit
# helpers (tl.sum is one) are interpreted functions when triton is imported with TRITON_INTERPRET=1;
# so the child imports triton before triton_faq.backend sets it.
CHILD = (
    "import os, runpy, sys\n"
    "interpret = os.environ.pop('TRITON_INTERPRET', None)\n"
    "import triton\n"
    "if interpret is not None:\n"
    "    os.environ['TRITON_INTERPRET'] = interpret\n"
    "print(runpy.run_path(sys.argv[1])['compile_mixed_offline']())\n"
)


def compile_mixed_in_fresh_process() -> str:
    env = {**os.environ, "TRITON_CACHE_DIR": tempfile.mkdtemp(),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-c", CHILD, __file__], capture_output=True, text=True,
                          timeout=300, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"the compile process failed:\n{done.stderr}")
    return done.stdout


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


# --8<-- [start:test-drift]
def test_pitfall_float16_sum_of_1024_and_half_is_1024():
    x = one_lossy_addition()
    assert x.double().sum().item() == 1024.5                   # float64 reference
    assert block_total(block_sum_default, x).item() == 1024.0  # float16: the half is gone


def test_fix_upcast_before_tl_sum_keeps_the_half():
    assert block_total(block_sum_upcast, one_lossy_addition()).item() == 1024.5


def test_fix_tl_sum_dtype_float32_keeps_the_half():
    assert block_total(block_sum_dtype, one_lossy_addition()).item() == 1024.5
# --8<-- [end:test-drift]


# --8<-- [start:test-block-fixes]
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fix_upcast_before_tl_sum_matches_float64(dtype):
    x = (fresh_randn(1024).abs() + 0.5).to(dtype)
    assert_matches_float64(block_total(block_sum_upcast, x), x.double().sum().reshape(1))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fix_tl_sum_dtype_float32_matches_float64(dtype):
    x = (fresh_randn(1024).abs() + 0.5).to(dtype)
    assert_matches_float64(block_total(block_sum_dtype, x), x.double().sum().reshape(1))


def test_sum_of_bfloat16_is_bfloat16():
    x = torch.ones(64, dtype=torch.bfloat16, device=DEVICE)
    out = poisoned(1)
    bfloat16_sum_stays_bfloat16[(1,)](x, out, BLOCK=64)  # the static_assert raises where it is float32
    assert out.item() == 64.0
# --8<-- [end:test-block-fixes]


# --8<-- [start:test-mixed]
def test_pitfall_float16_acc_plus_float32_sum_is_a_compile_error():
    assert compile_mixed_in_fresh_process().strip().endswith(f"AssertionError('{LOOP_CARRIED}')")


@pytest.mark.gpu
def test_gpu_float16_acc_plus_float32_sum_fails_at_the_launch():
    from triton.compiler.errors import CompilationError
    x = torch.ones(256, dtype=torch.float16, device=DEVICE)
    with pytest.raises(CompilationError, match=re.escape(LOOP_CARRIED)):
        running_sum_mixed[(1,)](x, poisoned(1), N=256, BLOCK=64)


@pytest.mark.interpreter
def test_interpreter_runs_the_mixed_accumulator_silently():
    x = torch.ones(256, dtype=torch.float16, device=DEVICE)
    out = poisoned(1)
    running_sum_mixed[(1,)](x, out, N=256, BLOCK=64)  # no error: acc simply becomes float32
    assert out.item() == 256.0
# --8<-- [end:test-mixed]


def reproduce_loop_carried_type_change() -> str:
    """The compile error of running_sum_mixed, compiled for sm_90 in a fresh process (no GPU needed)."""
    return compile_mixed_in_fresh_process()


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
    x = one_lossy_addition()
    print(f"tl.sum of [1024, 0.5, 0, ...] (float64: {x.double().sum().item()}):",
          "float16", block_total(block_sum_default, x).item(),
          "| x.to(tl.float32)", block_total(block_sum_upcast, x).item(),
          "| dtype=tl.float32", block_total(block_sum_dtype, x).item())
    print("float16 acc += tl.sum(x, dtype=tl.float32), compiled for sm_90:",
          compile_mixed_in_fresh_process().strip().splitlines()[-1])


if __name__ == "__main__":
    main()
