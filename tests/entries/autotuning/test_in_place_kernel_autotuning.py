"""TP028's claims, one test each: snippets/autotuning/in_place_kernel_autotuning.py.

Every test uses its own `n`: the autotuners of the reader's file keep one config per key for
the whole process, and a test about tuning needs a key not tuned yet.
"""

import inspect
import re

import pytest
import torch
import triton
import triton.testing

from snippets.autotuning import in_place_kernel_autotuning as entry
from snippets.autotuning.in_place_kernel_autotuning import grid
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

RUNS_WHILE_TUNING = len(entry.CONFIGS) * 3  # wall_clock_bench runs each config 3 times
CONFLICT = "Conflicting meta-parameters: BLOCK_SIZE. Make sure that you don't re-define auto-tuned symbols."


def integer_valued(n):
    """Small whole numbers as float32: their sums are exact, so counts can be asserted exactly."""
    generator = torch.Generator().manual_seed(torch.seed())
    return torch.randint(1, 10, (n,), generator=generator).float().to(entry.DEVICE)


# -- the pitfall: one call runs the kernel once per benchmark run, plus once

@pytest.mark.interpreter
def test_interpreter_one_call_adds_one_per_benchmark_run_plus_one():
    x = torch.zeros(1000, device=entry.DEVICE)
    entry.add_one_tuned[grid(1000)](x, 1000)  # ONE call
    assert torch.equal(x.cpu(), torch.full((1000,), float(RUNS_WHILE_TUNING + 1)))  # 10, not 1


@pytest.mark.gpu
def test_gpu_one_call_adds_far_more_than_one():
    x = torch.zeros(1001, device=entry.DEVICE)
    entry.add_one_tuned[grid(1001)](x, 1001)  # ONE call; Triton's do_bench runs each config many times
    added = x.cpu()
    assert torch.equal(added, torch.full_like(added, added[0].item()))  # every element got the same count
    assert added[0].item() > 1


def test_pitfall_a_second_call_with_the_same_key_adds_exactly_one():
    x = torch.zeros(1002, device=entry.DEVICE)
    entry.add_one_tuned[grid(1002)](x, 1002)  # tunes: many runs
    after_first = x.clone()
    entry.add_one_tuned[grid(1002)](x, 1002)  # same key (n, dtype): the cached config, one run
    assert torch.equal((x - after_first).cpu(), torch.ones(1002))


@pytest.mark.interpreter
def test_interpreter_atomic_sum_without_reset_to_zero_is_ten_times_the_sum():
    x = integer_valued(1000)
    out = torch.zeros(1, device=entry.DEVICE)
    entry.sum_tuned[grid(1000)](x, out, 1000)  # ONE call
    assert out.item() == (RUNS_WHILE_TUNING + 1) * x.sum().item()


@pytest.mark.gpu
def test_gpu_atomic_sum_without_reset_to_zero_adds_more_than_one_sum():
    x = integer_valued(1001)
    out = torch.zeros(1, device=entry.DEVICE)
    entry.sum_tuned[grid(1001)](x, out, 1001)  # ONE call
    ratio = out.item() / x.sum().item()
    # one whole sum per run of the kernel: at least one run beyond the real one (the float32 total
    # of thousands of runs is rounded, so the ratio is not checked for being a whole number)
    assert ratio > 1.5


def test_triton_do_bench_runs_for_25_ms_of_warmup_and_100_ms_of_measurement():
    parameters = inspect.signature(triton.testing.do_bench).parameters
    assert (parameters["warmup"].default, parameters["rep"].default) == (25, 100)  # milliseconds


# -- the fix

@pytest.mark.parametrize("n", [1, 1000, 1300])
def test_fix_restore_value_adds_exactly_one_per_call(n):
    x0 = fresh_randn(n)
    x = x0.clone()
    entry.add_one_in_place(x)  # tunes (for a new n): every benchmark run is undone
    assert_matches_float64(x, x0.double() + 1)
    entry.add_one_in_place(x)  # cached config: one run
    assert_matches_float64(x, x0.double() + 2)


@pytest.mark.parametrize("n", [1, 1000, 1300])
def test_fix_reset_to_zero_gives_the_sum(n):
    x = fresh_randn(n).abs()  # positive, so the relative error of the sum stays small
    assert_matches_float64(entry.tensor_sum(x), x.double().sum().reshape(1))  # tunes for a new n
    assert_matches_float64(entry.tensor_sum(x), x.double().sum().reshape(1))  # cached config


def test_the_restore_copy_happens_inside_the_timed_function():
    x = torch.zeros(100, device=entry.DEVICE)
    seen_after_each_timed_call = []

    def inspecting_bench(fn, quantiles):
        fn()  # what do_bench would time
        seen_after_each_timed_call.append(x.clone())
        return [1.0 for _ in quantiles]

    tuned = triton.autotune(configs=entry.CONFIGS, key=["n"], do_bench=inspecting_bench,
                            restore_value=["x_ptr"])(entry.add_one_kernel)
    tuned[grid(100)](x, 100)
    assert len(seen_after_each_timed_call) == len(entry.CONFIGS)
    assert all(torch.equal(seen.cpu(), torch.zeros(100)) for seen in seen_after_each_timed_call)


def test_reset_to_zero_zeroes_a_poisoned_accumulator_while_tuning():
    x = fresh_randn(1400).abs()  # positive, so the relative error of the sum stays small
    out = poisoned(1)  # NaN
    entry.sum_reset[grid(1400)](x, out, 1400)  # a new key: tuning zeroes out before every run
    assert_matches_float64(out, x.double().sum().reshape(1))


def test_reset_to_zero_does_nothing_on_a_cached_call():
    x = integer_valued(1500)
    entry.sum_reset[grid(1500)](x, torch.zeros(1, device=entry.DEVICE), 1500)  # tunes for n = 1500
    out = torch.full((1,), 5.0, device=entry.DEVICE)
    entry.sum_reset[grid(1500)](x, out, 1500)  # cached: nothing resets out
    assert out.item() == 5.0 + x.sum().item()


# -- "Conflicting meta-parameters"

def test_passing_a_tuned_meta_parameter_raises_conflicting_meta_parameters():
    with pytest.raises(ValueError, match=re.escape(CONFLICT)):
        entry.pass_block_size_to_the_autotuned_kernel()


def test_on_a_cached_key_the_same_mistake_is_a_typeerror_instead():
    x = torch.zeros(1005, device=entry.DEVICE)
    entry.add_one_tuned[grid(1005)](x, 1005)  # tunes and caches a config for n = 1005
    with pytest.raises(TypeError, match=re.escape("got multiple values for keyword argument 'BLOCK_SIZE'")):
        entry.add_one_tuned[grid(1005)](x, 1005, BLOCK_SIZE=128)


def test_the_plain_kernel_takes_block_size():
    assert torch.equal(entry.pass_block_size_to_the_plain_kernel().cpu(), torch.ones(300))


# -- the reproducer of the message in the page's `errors:` front matter
pass_block_size_to_the_autotuned_kernel = entry.pass_block_size_to_the_autotuned_kernel
