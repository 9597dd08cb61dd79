"""TP085's claims, one test each: snippets/language/atomic_add_on_a_block_pointer.py.

The compiles without a GPU run in one fresh process (`in_fresh_process_by_case`), in a new empty
cache, with the process's stderr and stdout caught around the compile (3.2 and 3.3 report the
error there); the launches run on the backend of the session.
"""

from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import atomic_add_on_a_block_pointer as entry
from triton_faq.testing import assert_matches_float64, compile_offline, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"
REMOVED = "NotImplementedError('Block pointers have been removed in favor of the tensor descriptor API')"


def compiled_error():
    """What compiling the pitfall for sm_90 gives, by release: (exception, its cause or stderr's error)."""
    if RELEASE < (3, 4):
        return "RuntimeError", "'tt.atomic_rmw' op failed to verify that ptr type matches value type"
    if RELEASE < (3, 8):
        return "CompilationError", "AttributeError(\"'block_type' object has no attribute 'primitive_bitwidth'\")"
    if RELEASE < (3, 9):
        return "CompilationError", "AttributeError(\"'_aggregate_type' object has no attribute 'scalar'\")"
    return "CompilationError", REMOVED


def interpreter_error():
    """The cause of the InterpreterError a launch of the pitfall gives, by release."""
    if RELEASE < (3, 4):
        return "AttributeError(\"'BlockPointerHandle' object has no attribute 'data'\")"
    return compiled_error()[1]


SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32", "BLOCK_R": "constexpr",
             "BLOCK_C": "constexpr"}


def offline_case(name):
    """Compile one kernel for sm_90 without a GPU: "compiled", or the exception's type, its cause (or,
    when it has none, the first `error:` line the compiler wrote) and its last line, run by `offline`."""
    kernel = globals().get(name) or getattr(entry, name.replace(", float64", ""))
    signature = ({k: ("*fp64" if v == "*fp32" else v) for k, v in SIGNATURE.items()} if name.endswith("float64")
                 else dict(SIGNATURE, **({"x_ptr": "*i32", "out_ptr": "*i32"} if name.startswith("max_") else {})))
    done = compile_offline(kernel, signature, {"BLOCK_R": 16, "BLOCK_C": 128})
    if done.error is None:
        return "compiled"
    error = done.error
    cause = repr(error.__cause__) if error.__cause__ else next(
        (line.split("error: ", 1)[1] for line in done.stderr.splitlines() if "error: " in line), None)
    return [type(error).__name__, cause, str(error).strip().splitlines()[-1]]


@triton.jit
def max_on_a_block_pointer(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    out_block = tl.make_block_ptr(out_ptr, (n_rows, n_cols), (n_cols, 1), (0, 0), (BLOCK_R, BLOCK_C), (1, 0))
    tl.atomic_max(out_block, tl.load(x_ptr + tl.arange(0, BLOCK_R)[:, None] * n_cols + tl.arange(0, BLOCK_C)[None, :]))


@triton.jit
def xchg_on_a_block_pointer(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    out_block = tl.make_block_ptr(out_ptr, (n_rows, n_cols), (n_cols, 1), (0, 0), (BLOCK_R, BLOCK_C), (1, 0))
    tl.atomic_xchg(out_block, tl.load(x_ptr + tl.arange(0, BLOCK_R)[:, None] * n_cols + tl.arange(0, BLOCK_C)[None, :]))


@triton.jit
def count_adds(out_ptr, n_rows, n_cols, MASKED: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """The fix's pointers and mask, adding 1 per program: each cell in range counts the programs."""
    tile = tl.program_id(0)
    rows = tile * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    cols = tl.arange(0, BLOCK_C)[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    ones = tl.full((BLOCK_R, BLOCK_C), 1.0, tl.float32)
    if MASKED:
        tl.atomic_add(out_ptr + rows * n_cols + cols, ones, mask=mask)
    else:
        tl.atomic_add(out_ptr + rows * n_cols + cols, ones)


CASES = ["split_sum_pitfall", "split_sum_fixed", "split_sum_descriptor", "split_sum_descriptor, float64",
         "max_on_a_block_pointer", "xchg_on_a_block_pointer"]


def offline(name):
    return in_fresh_process_by_case(Path(__file__), "offline_case", CASES, compile_ready=True)[name]["value"]


# -- reproducer of the message in the page's `errors:` front matter

def reproduce_compiled():
    return offline("split_sum_pitfall")[1]


# -- the pitfall

def test_pitfall_compiled_fails_with_the_releases_message():
    kind, cause, last = offline("split_sum_pitfall")
    assert [kind, cause] == list(compiled_error())
    if RELEASE < (3, 4):
        assert last == "PassManager::run failed"


@pytest.mark.parametrize("name", ["max_on_a_block_pointer", "xchg_on_a_block_pointer"])
def test_pitfall_other_atomics_refuse_a_block_pointer_too(name):
    assert offline(name) != "compiled"


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's behaviour")
def test_pitfall_on_the_interpreter_fails_with_the_releases_message():
    with pytest.raises(Exception) as caught:
        entry.split_sum(entry.split_sum_pitfall, fresh_randn(2, 32, 32))
    assert repr(caught.value.__cause__) == interpreter_error()


@pytest.mark.gpu
def test_gpu_a_launch_fails():
    with pytest.raises(Exception) as caught:
        entry.split_sum(entry.split_sum_pitfall, fresh_randn(2, 32, 32))
    text = str(caught.value) + repr(caught.value.__cause__)
    assert (compiled_error()[1] if RELEASE >= (3, 4) else "PassManager::run failed") in text


# -- the fixes

def test_fix_compiles():
    assert offline("split_sum_fixed") == "compiled"


def test_fix_with_a_tensor_descriptor_compiles_from_3_4():
    if RELEASE >= (3, 4):
        assert offline("split_sum_descriptor") == "compiled"
    else:
        assert offline("split_sum_descriptor")[0] in ("CompilationError", "AttributeError")


@pytest.mark.skipif(RELEASE < (3, 4), reason="tensor descriptors came with 3.4")
def test_fix_descriptor_atomics_refuse_float64():
    assert offline("split_sum_descriptor, float64")[1] == "AssertionError('Unsupported dtype')"


@pytest.mark.skipif(not INTERPRETED or RELEASE < (3, 4), reason="the interpreter's behaviour, from 3.4")
def test_fix_descriptor_atomics_do_not_run_on_the_interpreter():
    with pytest.raises(Exception) as caught:
        entry.split_sum(entry.split_sum_descriptor, fresh_randn(2, 32, 32))
    assert "create_descriptor_reduce" in repr(caught.value.__cause__)


@pytest.mark.parametrize("masked", [True, False])
def test_fix_the_mask_keeps_the_atomics_inside_the_tensor(masked):
    """5 programs over a 70 x 50 tensor in 16-row tiles, inside a zeroed guard: with the mask every cell
    counts 1 and the guard stays 0; without it, the edge tile's atomics land past the tensor."""
    n_rows, n_cols, block_r, block_c = 70, 50, 16, 64
    buffer = torch.zeros(n_rows * n_cols + 4096, device=entry.DEVICE)
    count_adds[(triton.cdiv(n_rows, block_r),)](buffer, n_rows, n_cols, MASKED=masked, BLOCK_R=block_r, BLOCK_C=block_c)
    guard = buffer[n_rows * n_cols:]
    if masked:
        assert torch.equal(buffer[:n_rows * n_cols], torch.ones(n_rows * n_cols, device=entry.DEVICE))
        assert not guard.any()
    else:
        assert guard.any()


@pytest.mark.parametrize("shape", [(4, 32, 32), (3, 50, 70), (1, 17, 5)])
def test_fix_matches_float64(shape):
    x = fresh_randn(*shape)
    assert_matches_float64(entry.split_sum(entry.split_sum_fixed, x), x.double().sum(0))


@pytest.mark.gpu
def test_gpu_the_descriptor_fix_matches_float64():
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    x = fresh_randn(3, 50, 72)  # rows of 288 bytes, 16-byte aligned; a partial last tile
    assert_matches_float64(entry.split_sum(entry.split_sum_descriptor, x), x.double().sum(0))
