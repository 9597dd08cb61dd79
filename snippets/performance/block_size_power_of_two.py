"""TP009: a BLOCK_SIZE of 100 is not slow code, it is a compile error.

Run it: ``python snippets/performance/block_size_power_of_two.py``
(on a machine without a GPU it runs through Triton's interpreter; the PTX checks compile for
an sm_90 GPU, an H100/H200, on any machine).
"""

import functools
import re

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.compiler.errors import CompilationError
from triton.errors import TritonError
from triton.runtime.jit import JITFunction

from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)
from triton_faq.testing import in_fresh_process, assert_matches_float64, fresh_randn, poisoned

POWER_OF_TWO_ERROR = "arange's range must be a power of 2"


# --8<-- [start:kernel]
@triton.jit
def scale_shift(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
def scale_shift_block_100(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scale_shift[(triton.cdiv(x.numel(), 100),)](x, y, x.numel(), BLOCK=100)  # not a power of two
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def scale_shift_rows(x: torch.Tensor) -> torch.Tensor:
    """One program per row of 2-D x, whatever the row length (e.g. a head dim of 100)."""
    n_rows, d = x.shape
    block = triton.next_power_of_2(d)  # 100 -> 128; the mask covers the 28 extra lanes
    y = poisoned(n_rows, d)
    for row in range(n_rows):
        scale_shift[(1,)](x[row], y[row], d, BLOCK=block)
    return y
# --8<-- [end:fix]


# --8<-- [start:ptx]
H200 = GPUTarget("cuda", 90, 32)  # sm_90: H100 and H200; no GPU needed to compile for it
ALIGNED = [["tt.divisibility", 16]]  # what Triton assumes of a pointer or int divisible by 16


def global_loads(block, num_warps=4, x_aligned=True, n_multiple_of_16=True):
    """The global-load instructions in the PTX of `scale_shift` compiled for sm_90."""
    fn = scale_shift if isinstance(scale_shift, JITFunction) else JITFunction(scale_shift.fn)
    attrs = {(1,): ALIGNED}  # y_ptr: aligned, as torch allocations are
    if x_aligned:
        attrs[(0,)] = ALIGNED
    if n_multiple_of_16:
        attrs[(2,)] = ALIGNED
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = ASTSource(fn, signature, {"BLOCK": block}, attrs)
    compiled = triton.compile(source, target=H200, options={"num_warps": num_warps})
    return set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"]))
# --8<-- [end:ptx]


def compile_for_h200(calls):
    """global_loads(*args) for each call, in a fresh process (see in_fresh_process)."""
    return in_fresh_process(__file__, "global_loads", calls)


OFFLINE_CASES = [(b, w, True, True) for b, w in [(128, 4), (256, 4), (512, 4), (1024, 4), (1024, 8), (1024, 32)]]
OFFLINE_CASES += [(1024, 4, True, False), (1024, 4, False, True)]


@functools.cache
def _offline_loads():
    return dict(zip(OFFLINE_CASES, compile_for_h200(OFFLINE_CASES)))


def compiled_loads(block, num_warps, x_aligned=True, n_multiple_of_16=True):
    return _offline_loads()[(block, num_warps, x_aligned, n_multiple_of_16)]["value"]


# --8<-- [start:test-pitfall]
def test_block_of_100_is_a_compile_error_not_slow_code():
    x = fresh_randn(1000)
    with pytest.raises(TritonError, match=re.escape(POWER_OF_TWO_ERROR)):
        scale_shift_block_100(x)


def test_the_gpu_compiler_rejects_a_block_of_100_with_the_same_message():
    [result] = compile_for_h200([(100,)])
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == POWER_OF_TWO_ERROR  # under the source excerpt


@pytest.mark.interpreter
def test_the_interpreter_wraps_the_value_error():
    with pytest.raises(TritonError) as error:
        scale_shift_block_100(fresh_randn(1000))
    assert type(error.value).__name__ == "InterpreterError"
    assert str(error.value) == f'ValueError("{POWER_OF_TWO_ERROR}")'
# --8<-- [end:test-pitfall]


def block_of_100():
    """The pitfall: a CompilationError on the GPU, an InterpreterError wrapping a ValueError on the interpreter."""
    scale_shift_block_100(fresh_randn(1000))


# --8<-- [start:test-fix]
@pytest.mark.parametrize("d", [1, 64, 100, 128, 200])
def test_next_power_of_2_block_with_a_mask_matches_float64(d):
    x = fresh_randn(3, d)
    assert_matches_float64(scale_shift_rows(x), x.double() * 2 + 1)
# --8<-- [end:test-fix]


# --8<-- [start:test-next-pow2]
def test_next_power_of_2_keeps_64_and_rounds_others_up():
    got = {d: triton.next_power_of_2(d) for d in (1, 64, 96, 100, 128, 129)}
    assert got == {1: 1, 64: 64, 96: 128, 100: 128, 128: 128, 129: 256}
# --8<-- [end:test-next-pow2]


# --8<-- [start:test-vector-width]
@pytest.mark.parametrize(
    "block, num_warps, loads",
    [
        (128, 4, {"ld.global.b32"}),  # 1 float per thread: 32-bit loads
        (256, 4, {"ld.global.v2.b32"}),  # 2 floats per thread: 64-bit loads
        (512, 4, {"ld.global.v4.b32"}),  # 4 floats per thread: 128-bit loads
        (1024, 4, {"ld.global.v4.b32"}),
        (1024, 8, {"ld.global.v4.b32"}),
        (1024, 32, {"ld.global.b32"}),  # 1024 threads, 1 float each
    ],
)
def test_load_width_follows_floats_per_thread(block, num_warps, loads):
    assert set(compiled_loads(block, num_warps)) == loads


def test_n_not_a_multiple_of_16_gives_32_bit_loads():
    assert set(compiled_loads(1024, 4, True, False)) == {"ld.global.b32"}


def test_a_pointer_not_16_byte_aligned_gives_32_bit_loads():
    assert set(compiled_loads(1024, 4, False, True)) == {"ld.global.b32"}
# --8<-- [end:test-vector-width]


# --8<-- [start:test-gpu]
def launch_and_get_compiled(x: torch.Tensor, block=1024):
    y = torch.empty(x.numel(), device=DEVICE)
    compiled = scale_shift[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block)
    return compiled  # on CUDA, a launch returns the CompiledKernel


@pytest.mark.gpu
def test_launched_kernel_uses_128_bit_loads_on_aligned_float32():
    compiled = launch_and_get_compiled(fresh_randn(2**20))
    assert set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])) == {"ld.global.v4.b32"}
    assert "LDG.E.128" in compiled.asm["sass"]


@pytest.mark.gpu
def test_launched_kernel_on_an_offset_view_uses_32_bit_loads():
    x = fresh_randn(2**20 + 1)[1:]  # data pointer 4 bytes past a 16-byte boundary
    compiled = launch_and_get_compiled(x)
    assert set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])) == {"ld.global.b32"}
    assert "LDG.E.128" not in compiled.asm["sass"]
# --8<-- [end:test-gpu]


@gpu_evidence("vector-loads")
def vector_loads():
    """Loads in the PTX and SASS the launch compiled, and the bandwidth, for an aligned and an offset input."""
    n = 2**28  # float32: 1 GiB, far beyond L2
    ceiling = copy_ceiling_gbps()
    inputs = [
        ("aligned: torch.randn(n)", torch.randn(n, device="cuda")),
        ("offset: torch.randn(n + 1)[1:]", torch.randn(n + 1, device="cuda")[1:]),
    ]
    y = torch.empty(n, device="cuda")
    rows = []
    for name, x in inputs:
        compiled = launch_and_get_compiled(x)
        loads = sorted(set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])))
        timing = median_ms(lambda: scale_shift[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024))  # as the helper launches
        rows.append([name, x.data_ptr() % 16, loads, "LDG.E.128" in compiled.asm["sass"],
                     *memory_bound_cells(timing, 2 * n * 4, ceiling)])
    return table(
        [label("input x", "输入 x", "input"), label("x.data_ptr() % 16", "x.data_ptr() % 16", "misalignment"),
         label("ld.global in the PTX", "PTX 中的 ld.global", "ptx_loads"),
         label("LDG.E.128 in the SASS", "SASS 中有 LDG.E.128", "ldg_e_128"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=n,
    )


def main():
    print(describe())
    try:
        scale_shift_block_100(fresh_randn(1000))
    except TritonError as error:
        print("BLOCK=100:", type(error).__name__, "->", str(error).strip().splitlines()[-1])
    x = fresh_randn(2, 100)
    print("BLOCK=next_power_of_2(100) =", triton.next_power_of_2(100),
          "max error vs float64:", float((scale_shift_rows(x).double() - (x.double() * 2 + 1)).abs().max()))
    print("global loads in PTX compiled for sm_90 (num_warps=4):")
    cases = [(b, 4, True, True) for b in (128, 256, 512, 1024)] + [(1024, 4, True, False), (1024, 4, False, True)]
    names = [f"BLOCK={b:5d}" for b in (128, 256, 512, 1024)] + ["BLOCK= 1024, n % 16 != 0", "BLOCK= 1024, x offset 4 bytes"]
    for name, result in zip(names, compile_for_h200(cases)):
        print(f"  {name}:", result["value"])


if __name__ == "__main__":
    main()
