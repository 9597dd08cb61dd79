"""TP017's claims, one test each: snippets/timing/timer_lambda_trap.py."""

import time

import pytest
import torch
import triton
import triton.testing

from snippets.timing import timer_lambda_trap as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

FORMS = ["lambda", "partial", "named"]


def test_pitfall_the_kernel_runs_while_the_argument_is_evaluated():
    x = torch.zeros(100, device=DEVICE)
    with pytest.raises(TypeError, match="object is not callable"):  # the timer calls what it was given
        entry.time_the_launch_pitfall(x, block=128)
    assert torch.equal(x.cpu(), torch.ones(100))  # ... and the kernel had run exactly once, before measure()


@pytest.mark.interpreter
def test_interpreter_launch_returns_none():
    x = torch.zeros(8, device=DEVICE)
    ret = entry.add_one[(1,)](x, 8, BLOCK=8)
    assert ret is None
    with pytest.raises(TypeError, match=r"^'NoneType' object is not callable$"):
        entry.GpuTimer().measure(ret)


@pytest.mark.gpu
def test_cuda_launch_returns_a_compiled_kernel_that_is_not_callable():
    x = torch.zeros(8, device=DEVICE)
    ret = entry.add_one[(1,)](x, 8, BLOCK=8)
    assert isinstance(ret, triton.compiler.CompiledKernel)
    assert not callable(ret)
    with pytest.raises(TypeError, match=r"^'CompiledKernel' object is not callable$"):
        entry.GpuTimer().measure(ret)
    torch.cuda.synchronize()
    assert torch.equal(x.cpu(), torch.ones(8))  # the launch in the argument was the only one


@pytest.mark.gpu
def test_do_bench_given_the_launch_raises_after_the_kernel_ran_once():
    x = torch.zeros(8, device=DEVICE)
    with pytest.raises(TypeError, match=r"^'CompiledKernel' object is not callable$"):
        triton.testing.do_bench(entry.add_one[(1,)](x, 8, BLOCK=8))
    torch.cuda.synchronize()
    assert torch.equal(x.cpu(), torch.ones(8))


@pytest.mark.parametrize("form", FORMS)
def test_each_form_launches_the_kernel_once_per_call(form):
    x = torch.zeros(1000, device=DEVICE)
    fn = entry.three_forms(x, block=256)[form]
    assert torch.equal(x.cpu(), torch.zeros(1000))  # wrapping it launched nothing
    for _ in range(3):
        fn()
    assert torch.equal(x.cpu(), torch.full((1000,), 3.0))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_fix_each_form_computes_x_plus_one_on_fresh_random_data(form, n):
    x = fresh_randn(n)
    reference = x.double() + 1.0
    entry.three_forms(x, block=256)[form]()
    assert_matches_float64(x, reference)


@pytest.mark.gpu
@pytest.mark.parametrize("form", FORMS)
def test_fix_the_timer_calls_each_form_warmup_plus_repeat_times(form):
    x = torch.zeros(1000, device=DEVICE)
    entry.GpuTimer().measure(entry.three_forms(x, block=256)[form], warmup=2, repeat=5)
    assert torch.equal(x.cpu(), torch.full((1000,), 7.0))


@pytest.mark.gpu
def test_fix_time_the_launch_times_a_kernel_that_moves_2_gib():
    x = torch.zeros(2**28, device=DEVICE)  # 1 GiB, read and written by every launch
    ms = entry.time_the_launch(x)
    assert ms > 0.1, ms  # milliseconds: the kernel itself was timed
    assert torch.equal(x[:4].cpu(), torch.full((4,), 55.0))  # 5 warm-up + 50 timed launches


@pytest.mark.gpu
def test_the_three_forms_measure_the_same_time():
    x = torch.zeros(2**28, device=DEVICE)  # 1 GiB, read and written by every launch
    medians = {form: entry.GpuTimer().measure(fn) for form, fn in entry.three_forms(x).items()}
    assert min(medians.values()) > 0.1, medians  # milliseconds: a real kernel was timed
    assert max(medians.values()) <= 1.10 * min(medians.values()), medians


# Reproducers of the error messages in the page's front matter (`errors:`).
def do_bench_given_a_launch():
    x = torch.zeros(8, device=DEVICE)
    return triton.testing.do_bench(entry.add_one[(1,)](x, 8, BLOCK=8))  # the bug; do_bench calls what it gets


def host_timer_given_a_launch():
    x = torch.zeros(8, device=DEVICE)
    fn = entry.add_one[(1,)](x, 8, BLOCK=8)  # the bug: the kernel has already run
    start = time.perf_counter()
    fn()  # a timer calls what it was given
    return (time.perf_counter() - start) * 1e3
