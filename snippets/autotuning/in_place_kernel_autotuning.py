"""TP028: an autotuned in-place kernel adds more than 1: `restore_value`, `reset_to_zero`, and
"Conflicting meta-parameters".

Run it: ``python snippets/autotuning/in_place_kernel_autotuning.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import re
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:bench]
def wall_clock_bench(fn, quantiles):
    """TP010's CPU timer for the interpreter: runs the kernel 3 times per config."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return [times[round(q * (len(times) - 1))] for q in quantiles]


BENCH = None if BACKEND == "cuda" else wall_clock_bench  # None: Triton's do_bench on the GPU
CONFIGS = [
    triton.Config({"BLOCK_SIZE": 64}, num_warps=1),
    triton.Config({"BLOCK_SIZE": 128}, num_warps=2),
    triton.Config({"BLOCK_SIZE": 256}, num_warps=4),
]
# --8<-- [end:bench]


# --8<-- [start:pitfall]
@triton.jit
def add_one_kernel(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x + 1, mask=mask)  # x += 1, in place


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # out += partial sum, one per program


add_one_tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=BENCH)(add_one_kernel)
sum_tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=BENCH)(sum_kernel)


def grid(n):
    return lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
add_one_restored = triton.autotune(
    configs=CONFIGS, key=["n"], do_bench=BENCH,
    restore_value=["x_ptr"],  # copy x before each benchmark run, copy it back after
)(add_one_kernel)

sum_reset = triton.autotune(
    configs=CONFIGS, key=["n"], do_bench=BENCH,
    reset_to_zero=["out_ptr"],  # zero out before each benchmark run and before the real launch
)(sum_kernel)


def add_one_in_place(x):
    add_one_restored[grid(x.numel())](x, x.numel())
    return x


def tensor_sum(x):
    out = torch.zeros(1, device=DEVICE)  # an accumulator starts at 0 on every call
    sum_reset[grid(x.numel())](x, out, x.numel())
    return out
# --8<-- [end:fix]


# --8<-- [start:test-pitfall]
RUNS_WHILE_TUNING = len(CONFIGS) * 3  # wall_clock_bench runs each config 3 times


@pytest.mark.interpreter
def test_interpreter_one_call_adds_one_per_benchmark_run_plus_one():
    x = torch.zeros(1000, device=DEVICE)
    add_one_tuned[grid(1000)](x, 1000)  # ONE call
    assert torch.equal(x.cpu(), torch.full((1000,), float(RUNS_WHILE_TUNING + 1)))  # 10, not 1


@pytest.mark.gpu
def test_gpu_one_call_adds_far_more_than_one():
    x = torch.zeros(1001, device=DEVICE)
    add_one_tuned[grid(1001)](x, 1001)  # ONE call; Triton's do_bench runs each config many times
    added = x.cpu()
    assert torch.equal(added, torch.full_like(added, added[0].item()))  # every element got the same count
    assert added[0].item() > 1


def test_pitfall_a_second_call_with_the_same_key_adds_exactly_one():
    x = torch.zeros(1002, device=DEVICE)
    add_one_tuned[grid(1002)](x, 1002)  # tunes: many runs
    after_first = x.clone()
    add_one_tuned[grid(1002)](x, 1002)  # same key (n, dtype): the cached config, one run
    assert torch.equal((x - after_first).cpu(), torch.ones(1002))

# --8<-- [end:test-pitfall]


# --8<-- [start:test-pitfall-atomic]
def integer_valued(n):
    """Small whole numbers as float32: their sums are exact, so counts can be asserted exactly."""
    return torch.randint(1, 10, (n,), generator=torch.Generator().manual_seed(torch.seed())).float().to(DEVICE)


@pytest.mark.interpreter
def test_interpreter_atomic_sum_without_reset_to_zero_is_ten_times_the_sum():
    x = integer_valued(1000)
    out = torch.zeros(1, device=DEVICE)
    sum_tuned[grid(1000)](x, out, 1000)  # ONE call
    assert out.item() == (RUNS_WHILE_TUNING + 1) * x.sum().item()


@pytest.mark.gpu
def test_gpu_atomic_sum_without_reset_to_zero_adds_more_than_one_sum():
    x = integer_valued(1001)
    out = torch.zeros(1, device=DEVICE)
    sum_tuned[grid(1001)](x, out, 1001)  # ONE call
    ratio = out.item() / x.sum().item()
    # one whole sum per run of the kernel: at least one run beyond the real one (the float32 total
    # of thousands of runs is rounded, so the ratio is not checked for being a whole number)
    assert ratio > 1.5
# --8<-- [end:test-pitfall-atomic]


# --8<-- [start:test-do-bench-defaults]
def test_triton_do_bench_runs_for_25_ms_of_warmup_and_100_ms_of_measurement():
    import inspect
    import triton.testing

    parameters = inspect.signature(triton.testing.do_bench).parameters
    assert (parameters["warmup"].default, parameters["rep"].default) == (25, 100)  # milliseconds
# --8<-- [end:test-do-bench-defaults]


# --8<-- [start:test-fix]
@pytest.mark.parametrize("n", [1, 1000, 1300])
def test_fix_restore_value_adds_exactly_one_per_call(n):
    x0 = fresh_randn(n)
    x = x0.clone()
    add_one_in_place(x)  # tunes (for a new n): every benchmark run is undone
    assert_matches_float64(x, x0.double() + 1)
    add_one_in_place(x)  # cached config: one run
    assert_matches_float64(x, x0.double() + 2)


@pytest.mark.parametrize("n", [1, 1000, 1300])
def test_fix_reset_to_zero_gives_the_sum(n):
    x = fresh_randn(n).abs()  # positive, so the relative error of the sum stays small
    assert_matches_float64(tensor_sum(x), x.double().sum().reshape(1))  # tunes for a new n
    assert_matches_float64(tensor_sum(x), x.double().sum().reshape(1))  # cached config
# --8<-- [end:test-fix]


# --8<-- [start:test-restore-is-timed]
def test_the_restore_copy_happens_inside_the_timed_function():
    x = torch.zeros(100, device=DEVICE)
    seen_after_each_timed_call = []

    def inspecting_bench(fn, quantiles):
        fn()  # what do_bench would time
        seen_after_each_timed_call.append(x.clone())
        return [1.0 for _ in quantiles]

    tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=inspecting_bench,
                            restore_value=["x_ptr"])(add_one_kernel)
    tuned[grid(100)](x, 100)
    assert len(seen_after_each_timed_call) == len(CONFIGS)
    assert all(torch.equal(seen.cpu(), torch.zeros(100)) for seen in seen_after_each_timed_call)
# --8<-- [end:test-restore-is-timed]


# --8<-- [start:test-reset-only-while-tuning]
def test_reset_to_zero_zeroes_a_poisoned_accumulator_while_tuning():
    x = fresh_randn(1400).abs()  # positive, so the relative error of the sum stays small
    out = poisoned(1)  # NaN
    sum_reset[grid(1400)](x, out, 1400)  # a new key: tuning zeroes out before every run
    assert_matches_float64(out, x.double().sum().reshape(1))


def test_reset_to_zero_does_nothing_on_a_cached_call():
    x = integer_valued(1500)
    sum_reset[grid(1500)](x, torch.zeros(1, device=DEVICE), 1500)  # tunes for n = 1500
    out = torch.full((1,), 5.0, device=DEVICE)
    sum_reset[grid(1500)](x, out, 1500)  # cached: nothing resets out
    assert out.item() == 5.0 + x.sum().item()
# --8<-- [end:test-reset-only-while-tuning]


# --8<-- [start:conflict]
def pass_block_size_to_the_autotuned_kernel():
    x = torch.zeros(300, device=DEVICE)
    add_one_tuned[(3,)](x, 300, BLOCK_SIZE=128)  # BLOCK_SIZE is what the autotuner chooses


def pass_block_size_to_the_plain_kernel():
    x = torch.zeros(300, device=DEVICE)
    add_one_kernel[(3,)](x, 300, BLOCK_SIZE=128)  # to fix BLOCK_SIZE yourself, skip the autotuner
    return x
# --8<-- [end:conflict]


# --8<-- [start:test-conflict]
CONFLICT = "Conflicting meta-parameters: BLOCK_SIZE. Make sure that you don't re-define auto-tuned symbols."


def test_passing_a_tuned_meta_parameter_raises_conflicting_meta_parameters():
    with pytest.raises(ValueError, match=re.escape(CONFLICT)):
        pass_block_size_to_the_autotuned_kernel()


def test_on_a_cached_key_the_same_mistake_is_a_typeerror_instead():
    x = torch.zeros(1005, device=DEVICE)
    add_one_tuned[grid(1005)](x, 1005)  # tunes and caches a config for n = 1005
    with pytest.raises(TypeError, match=re.escape("got multiple values for keyword argument 'BLOCK_SIZE'")):
        add_one_tuned[grid(1005)](x, 1005, BLOCK_SIZE=128)


def test_the_plain_kernel_takes_block_size():
    assert torch.equal(pass_block_size_to_the_plain_kernel().cpu(), torch.ones(300))
# --8<-- [end:test-conflict]


@gpu_evidence("in-place-runs")
def observe_in_place_runs():
    """How much one call of the autotuned x += 1 adds, with Triton's default do_bench, for a few n."""
    rows = []
    for n in (4096, 2**20, 2**24):
        for name, kernel in (("add_one_tuned", add_one_tuned), ('add_one_restored (restore_value=["x_ptr"])',
                                                               add_one_restored)):
            x = torch.zeros(n, device="cuda")
            kernel[grid(n)](x, n)
            first = x.clone()
            kernel[grid(n)](x, n)
            if not torch.equal(first, torch.full_like(first, first[0].item())):
                raise AssertionError(f"{name}, n={n}: elements got different counts")
            rows.append([name, n, first[0].item(), (x - first)[0].item(), str(kernel.best_config)])
    return table(
        [label("kernel", "kernel"), label("n", "n"),
         label("added by the first call (tunes)", "第一次调用（调优）加了多少"),
         label("added by the second call (cached)", "第二次调用（命中缓存）加了多少"),
         label("config picked", "选中的配置")],
        rows,
    )


def main():
    print(describe())
    x = torch.zeros(1000, device=DEVICE)
    add_one_tuned[grid(1000)](x, 1000)
    print("x = zeros; ONE call of the autotuned x += 1 ->", x[0].item())
    add_one_tuned[grid(1000)](x, 1000)
    print("second call, same n (cached config)         ->", x[0].item())
    x = torch.zeros(1000, device=DEVICE)
    print("with restore_value=['x_ptr'], one call       ->", add_one_in_place(x)[0].item())
    x = integer_valued(1000)
    out = torch.zeros(1, device=DEVICE)
    sum_tuned[grid(1000)](x, out, 1000)
    print("atomic sum without reset_to_zero:", out.item(), "expected", x.sum().item())
    print("with reset_to_zero=['out_ptr']:  ", tensor_sum(x).item())
    try:
        pass_block_size_to_the_autotuned_kernel()
    except ValueError as error:
        print("passing BLOCK_SIZE= to the autotuned kernel: ValueError:", error)


if __name__ == "__main__":
    main()
