"""TP055's claims, one test each: snippets/performance/launch_overhead.py."""

import functools
import inspect

import pytest
import torch
import triton

from snippets.performance import launch_overhead as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves


def test_pitfall_one_launch_per_tensor_matches_float64():
    xs = [fresh_randn(n) for n in (1, 100, 129)]
    for x, out in zip(xs, entry.scale_each(xs)):
        assert_matches_float64(out, x.double() * 2)


@pytest.mark.parametrize("shape", [(8, 100), (3, 1), (5, 1000)])
def test_fix_one_launch_for_the_batch_matches_float64(shape):
    x = fresh_randn(*shape)
    assert_matches_float64(entry.scale_batched(x), x.double() * 2)


def test_batched_and_one_launch_per_tensor_give_the_same_values():
    xs = [fresh_randn(100) for _ in range(8)]
    assert torch.equal(torch.stack(entry.scale_each(xs)), entry.scale_batched(torch.stack(xs)))


@pytest.mark.parametrize("n_args", [1, 8, 32])
def test_the_kernels_of_1_8_and_32_arguments_match_float64(n_args):
    kernel = getattr(entry, f"args_{n_args}")
    assert len(inspect.signature(kernel.fn).parameters) == n_args
    inputs = [fresh_randn(1).abs() for _ in range(n_args - 1)]  # positive: no cancellation in the sum
    out = poisoned(1)
    kernel[(1,)](out, *inputs)
    expected = torch.ones(1, dtype=torch.float64) if n_args == 1 else torch.stack(inputs).double().sum(0)
    assert_matches_float64(out, expected)


def test_every_launch_binds_its_arguments_in_python():
    """The installed JITFunction.run: each kernel[grid](...) call runs the binder over all arguments."""
    source = inspect.getsource(triton.runtime.jit.JITFunction.run)
    assert "binder(*args, **kwargs)" in source


def test_each_argument_is_specialised_by_kind_alignment_and_value():
    """What the binder computes per argument, on every launch (the installed version's function)."""
    from triton.backends.compiler import BaseBackend

    def kind(arg):
        return triton.runtime.jit.native_specialize_impl(BaseBackend, arg, False, True, True)

    x = torch.zeros(8)
    assert kind(x) == ("*fp32", "D")  # a float32 pointer whose address is a multiple of 16
    assert kind(x[1:]) == ("*fp32", "")  # 4 bytes further: another compiled variant
    assert kind(1) == ("constexpr", 1) and kind(16) == ("i32", "D") and kind(17) == ("i32", "")


def test_warmup_returns_a_compiled_kernel_that_launches_without_the_binder():
    """The cheaper path of the installed version: kernel.warmup(...) and CompiledKernel[grid](*args)."""
    assert "grid" in inspect.signature(triton.runtime.jit.KernelInterface.warmup).parameters
    runner = inspect.getsource(triton.compiler.CompiledKernel.__getitem__)
    assert "binder" not in runner and "self.run(grid[0], grid[1], grid[2]" in runner


@pytest.mark.interpreter
def test_interpreter_warmup_returns_nothing():
    """Under TRITON_INTERPRET=1 there is no compiled kernel to launch directly."""
    assert entry.args_1.warmup(poisoned(1), grid=(1,)) is None


@functools.cache
def gpu_timings():
    out = torch.empty(1, device="cuda")
    inputs = [torch.rand(1, device="cuda") for _ in range(31)]
    timings = {}
    for n_args in (1, 32):
        kernel = getattr(entry, f"args_{n_args}")

        def launch(kernel=kernel, n_args=n_args):
            kernel[(1,)](out, *inputs[: n_args - 1])

        timings[n_args, "eager"] = entry.us_per_launch(launch)
        replay = entry.capture(lambda launch=launch: [launch() for _ in range(100)])
        timings[n_args, "graph"] = entry.us_per_launch(replay, launches_per_call=100, calls=20)
    return timings


@pytest.mark.gpu
def test_gpu_a_launch_with_32_arguments_costs_more_than_with_1():
    t = gpu_timings()
    assert t[32, "eager"] > t[1, "eager"]


@pytest.mark.gpu
@pytest.mark.parametrize("n_args", [1, 32])
def test_gpu_a_launch_in_a_cuda_graph_costs_less_than_an_eager_one(n_args):
    t = gpu_timings()
    assert t[n_args, "graph"] < t[n_args, "eager"]


@pytest.mark.gpu
def test_gpu_graph_replay_recomputes_from_inputs_updated_in_place():
    x = fresh_randn(8, 100)
    out = {}
    replay = entry.capture(lambda: out.__setitem__("y", entry.scale_batched(x)))
    x.copy_(fresh_randn(8, 100))  # new values in the same memory
    replay()
    assert_matches_float64(out["y"], x.double() * 2)


@pytest.mark.gpu
def test_gpu_launch_compiled_matches_float64():
    inputs = [fresh_randn(1).abs() for _ in range(7)]
    out = poisoned(1)
    entry.launch_compiled(entry.args_8, (1,), out, *inputs)(out, *inputs)
    assert_matches_float64(out, torch.stack(inputs).double().sum(0))
