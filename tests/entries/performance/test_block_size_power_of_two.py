"""TP009's claims, one test each: snippets/performance/block_size_power_of_two.py."""

import functools
import re

import pytest
import triton
from triton.errors import TritonError

from snippets.performance import block_size_power_of_two as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process

POWER_OF_TWO_ERROR = "arange's range must be a power of 2"


def compile_for_h200(calls):
    """entry.global_loads(*args) for each call, in a fresh process (the interpreter breaks the compiler)."""
    return in_fresh_process(entry.__file__, "global_loads", calls)


OFFLINE_CASES = [(b, w, True, True) for b, w in [(128, 4), (256, 4), (512, 4), (1024, 4), (1024, 8), (1024, 32)]]
OFFLINE_CASES += [(1024, 4, True, False), (1024, 4, False, True)]


@functools.cache
def _offline_loads():
    return dict(zip(OFFLINE_CASES, compile_for_h200(OFFLINE_CASES)))


def compiled_loads(block, num_warps, x_aligned=True, n_multiple_of_16=True):
    return set(_offline_loads()[(block, num_warps, x_aligned, n_multiple_of_16)]["value"])


def block_of_100():
    """The pitfall: a CompilationError on the GPU, an InterpreterError wrapping a ValueError on the interpreter."""
    entry.scale_shift_block_100(fresh_randn(1000))


def test_block_of_100_is_a_compile_error_not_slow_code():
    with pytest.raises(TritonError, match=re.escape(POWER_OF_TWO_ERROR)):
        block_of_100()


def test_the_gpu_compiler_rejects_a_block_of_100_with_the_same_message():
    [result] = compile_for_h200([(100,)])
    assert result["error"] == "CompilationError"
    assert result["message"].splitlines()[-1] == POWER_OF_TWO_ERROR  # under the source excerpt


@pytest.mark.interpreter
def test_the_interpreter_wraps_the_value_error():
    with pytest.raises(TritonError) as error:
        block_of_100()
    assert type(error.value).__name__ == "InterpreterError"
    assert str(error.value) == f'ValueError("{POWER_OF_TWO_ERROR}")'


@pytest.mark.parametrize("d", [1, 64, 100, 128, 200])
def test_next_power_of_2_block_with_a_mask_matches_float64(d):
    x = fresh_randn(3, d)
    assert_matches_float64(entry.scale_shift_rows(x), x.double() * 2 + 1)


def test_next_power_of_2_keeps_64_and_rounds_others_up():
    got = {d: triton.next_power_of_2(d) for d in (1, 64, 96, 100, 128, 129)}
    assert got == {1: 1, 64: 64, 96: 128, 100: 128, 128: 128, 129: 256}


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
    assert compiled_loads(block, num_warps) == loads


def test_n_not_a_multiple_of_16_gives_32_bit_loads():
    assert compiled_loads(1024, 4, True, False) == {"ld.global.b32"}


def test_a_pointer_not_16_byte_aligned_gives_32_bit_loads():
    assert compiled_loads(1024, 4, False, True) == {"ld.global.b32"}


@pytest.mark.gpu
def test_launched_kernel_uses_128_bit_loads_on_aligned_float32():
    compiled = entry.launch_and_get_compiled(fresh_randn(2**20))
    assert set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])) == {"ld.global.v4.b32"}
    assert "LDG.E.128" in compiled.asm["sass"]


@pytest.mark.gpu
def test_launched_kernel_on_an_offset_view_uses_32_bit_loads():
    x = fresh_randn(2**20 + 1)[1:]  # data pointer 4 bytes past a 16-byte boundary
    compiled = entry.launch_and_get_compiled(x)
    assert set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])) == {"ld.global.b32"}
    assert "LDG.E.128" not in compiled.asm["sass"]
