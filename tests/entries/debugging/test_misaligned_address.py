"""TP062's claims, one test each: snippets/debugging/misaligned_address.py.

The loads are read from PTX compiled for sm_90 without a GPU; the GPU runs happen in new processes,
since a misaligned access spoils the CUDA context of the process it happens in.
"""

import pytest
import torch

from snippets.debugging import misaligned_address as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

TRITON_ERROR = "RuntimeError: Triton Error [CUDA]: misaligned address"
TORCH_ERROR = "CUDA error: misaligned address"


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_misaligned_at_launch():
    """On CUDA: the pitfall with start = 3 under CUDA_LAUNCH_BLOCKING=1, in a new process."""
    return entry.in_new_process("copy_window_pitfall", 3, blocking=True)[1]


def reproduce_misaligned_later():
    """On CUDA: the same without CUDA_LAUNCH_BLOCKING: torch reports it at the next synchronizing call."""
    return entry.in_new_process("copy_window_pitfall", 3)[1]


# -- what the promise does to the loads, compiled for sm_90 (no GPU needed)

def test_pitfall_the_promise_makes_every_load_16_bytes_whatever_start():
    assert entry.load_widths(entry.copy_window_pitfall, start_is_multiple_of_16=False) == {128: 2}
    assert entry.load_widths(entry.copy_window_pitfall, start_is_multiple_of_16=True) == {128: 2}


def test_fix_loads_16_bytes_only_where_the_launch_shows_start_divisible_by_16():
    assert entry.load_widths(entry.copy_window_fixed, start_is_multiple_of_16=False) == {32: 8}
    assert entry.load_widths(entry.copy_window_fixed, start_is_multiple_of_16=True) == {128: 2}


# -- on the GPU

@pytest.mark.gpu
def test_gpu_pitfall_fails_at_the_launch_under_cuda_launch_blocking():
    code, error, _ = entry.in_new_process("copy_window_pitfall", 3, blocking=True)
    assert code != 0 and error == TRITON_ERROR


@pytest.mark.gpu
def test_gpu_pitfall_without_blocking_fails_at_the_next_synchronizing_call():
    code, error, output = entry.in_new_process("copy_window_pitfall", 3)
    assert code != 0 and error.endswith(TORCH_ERROR)
    assert "torch.cuda.synchronize()" in output  # the line the traceback blames is the sync, not the launch


@pytest.mark.gpu
def test_gpu_pitfall_runs_when_the_promise_holds():
    code, _, output = entry.in_new_process("copy_window_pitfall", 16)
    assert code == 0 and "equal: True" in output


# -- on the interpreter: the promise is not checked, and nothing is out of bounds

@pytest.mark.interpreter
def test_interpreter_runs_the_broken_promise_and_copies_right():
    x = fresh_randn(8192)
    assert torch.equal(entry.copy_window(entry.copy_window_pitfall, x, 3, 4096), x[3:4099])


@pytest.mark.interpreter
def test_interpreter_the_checked_interpreter_finds_every_access_in_bounds():
    import triton_checked

    x = fresh_randn(8192)
    with triton_checked.checked():
        y = entry.copy_window(entry.copy_window_pitfall, x, 3, 4096)
    assert torch.equal(y, x[3:4099])


# -- the fix

@pytest.mark.parametrize("start", [0, 3, 16, 1000])
@pytest.mark.parametrize("n", [1, 1000, 4096])
def test_fix_matches_float64_reference(start, n):
    x = fresh_randn(8192)
    assert_matches_float64(entry.copy_window(entry.copy_window_fixed, x, start, n), x.double()[start:start + n])
