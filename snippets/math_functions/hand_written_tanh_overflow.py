"""TP022: the hand-written tanh (exp(2x) - 1) / (exp(2x) + 1) returns NaN for x above about 44.36.

Run it: ``python snippets/math_functions/hand_written_tanh_overflow.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import math
import warnings
from pathlib import Path

import numpy as np
import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest
from triton.language.extra import libdevice

from triton_faq.evidence import (
    copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells, memory_bound_columns, table,
)
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = (tl.exp(2 * x) - 1) / (tl.exp(2 * x) + 1)  # exp(2x) overflows to inf: inf / inf
    tl.store(out_ptr + offs, y, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def tanh_stable_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = tl.exp(-2 * tl.abs(x))  # in [0, 1]; -2|x| may round to -inf, and exp(-inf) = 0
    y = (1 - t) / (1 + t)  # tanh(|x|)
    y = tl.where(x < 0, -y, y)  # tanh is odd
    tl.store(out_ptr + offs, y, mask=mask)
# --8<-- [end:fix]


@triton.jit
def tanh_libdevice_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.tanh(x), mask=mask)


# --8<-- [start:launch]
def launch(kernel, x: torch.Tensor, block: int = 128) -> torch.Tensor:
    """Run an element-wise kernel on a 1-D float32 tensor; the output starts as NaN."""
    out = poisoned(x.numel())
    kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK_SIZE=block)
    return out


EDGES = [-math.inf, -100.0, -45.0, -44.0, 44.0, 44.3, 44.4, 45.0, 100.0, math.inf]


def edges() -> torch.Tensor:
    return torch.tensor(EDGES, dtype=torch.float32, device=DEVICE)
# --8<-- [end:launch]


NUMPY_OVERFLOW = pytest.mark.filterwarnings(
    "ignore:overflow encountered in exp:RuntimeWarning", "ignore:invalid value encountered in divide:RuntimeWarning"
)


# --8<-- [start:test-threshold]
def test_exp_2x_leaves_float32_once_x_passes_44_36():
    largest = torch.finfo(torch.float32).max
    assert f"{largest:.1e}" == "3.4e+38"
    assert round(math.log(largest), 2) == 88.72  # exp(88.72...) is the largest float32
    assert round(math.log(largest) / 2, 2) == 44.36  # so exp(2x) = inf once x > 44.36
# --8<-- [end:test-threshold]


# --8<-- [start:test-pitfall]
@NUMPY_OVERFLOW
def test_hand_written_tanh_is_nan_from_44_4_up_and_at_inf():
    y = launch(tanh_kernel, edges()).cpu()
    is_nan = [math.isnan(v) for v in y.tolist()]
    # -inf -100  -45   -44    44    44.3   44.4  45    100   inf
    assert is_nan == [False, False, False, False, False, False, True, True, True, True]
    finite = ~torch.isnan(y)
    expected = torch.tanh(edges().cpu())  # exactly -1 or 1 at these inputs
    assert ((y[finite] - expected[finite]).abs() <= 2**-22).all()  # within 2 float32 steps of +-1


def test_torch_tanh_is_plus_or_minus_one_on_the_same_inputs():
    assert torch.tanh(edges()).cpu().tolist() == [-1.0] * 4 + [1.0] * 6
# --8<-- [end:test-pitfall]


# --8<-- [start:test-interpreter]
@pytest.mark.interpreter
@NUMPY_OVERFLOW
def test_interpreter_gives_exactly_numpys_float32_answer():
    y = launch(tanh_kernel, edges()).numpy()
    x = np.array(EDGES, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        by_numpy = (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1)
    assert by_numpy.dtype == np.float32
    np.testing.assert_array_equal(y, by_numpy)  # NaN where NaN, bit for bit elsewhere
    nan = math.nan
    np.testing.assert_array_equal(y, [-1.0, -1.0, -1.0, -1.0, 1.0, 1.0, nan, nan, nan, nan])


@pytest.mark.interpreter
def test_interpreter_warns_where_exp_overflows():
    with pytest.warns(RuntimeWarning, match="overflow encountered in exp"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "invalid value encountered in divide", RuntimeWarning)
            launch(tanh_kernel, edges())


def pitfall_warnings() -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        launch(tanh_kernel, edges())
    return caught


@pytest.mark.interpreter
def test_both_warnings_point_into_triton_not_at_the_kernel():
    caught = pitfall_warnings()
    assert {(w.category, str(w.message)) for w in caught} == {
        (RuntimeWarning, "overflow encountered in exp"),  # exp(2x) = inf
        (RuntimeWarning, "invalid value encountered in divide"),  # inf / inf = NaN
    }
    assert all(Path(w.filename).parts[-3:] == ("triton", "runtime", "interpreter.py") for w in caught)
# --8<-- [end:test-interpreter]


def reproduce_numpy_warnings_on_the_interpreter() -> str:
    """The warnings the pitfall prints under TRITON_INTERPRET=1, formatted as Python prints them."""
    return "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in pitfall_warnings())


# --8<-- [start:inputs]
def hard_inputs() -> torch.Tensor:
    """Fresh random values scaled by 30, plus huge and infinite ones."""
    largest = torch.finfo(torch.float32).max
    specials = [0.0, 44.4, -44.4, 45.0, -45.0, 100.0, -100.0, 1e30, -1e30, largest, -largest, math.inf, -math.inf]
    return torch.cat([fresh_randn(1000) * 30, torch.tensor(specials, device=DEVICE)])
# --8<-- [end:inputs]


# --8<-- [start:test-fix]
@pytest.mark.filterwarnings("ignore:overflow encountered in multiply:RuntimeWarning")  # -2 * 3.4e38 = -inf
def test_stable_tanh_matches_float64_everywhere():
    wide = hard_inputs()
    assert (wide.abs() > 44.4).sum() > 50  # plenty of inputs past the edge
    for x in (fresh_randn(1000), wide):
        y = launch(tanh_stable_kernel, x)
        assert not torch.isnan(y).any()
        assert_matches_float64(y, torch.tanh(x.double()))
        assert (y.double() - torch.tanh(x.double())).abs().max().item() < 1e-6


def test_stable_tanh_is_plus_or_minus_one_where_the_hand_written_one_was_nan():
    y = launch(tanh_stable_kernel, edges()).cpu()
    assert ((y - torch.tanh(edges().cpu())).abs() <= 2**-22).all()
# --8<-- [end:test-fix]


# --8<-- [start:test-small]
def test_stable_tanh_loses_relative_accuracy_near_zero():
    x = torch.tensor([1e-7], device=DEVICE)
    y = launch(tanh_stable_kernel, x).double().cpu()
    reference = torch.tanh(x.double()).cpu()
    assert (y - reference).abs().item() < 1e-6  # tiny in absolute terms ...
    assert ((y - reference).abs() / reference).item() > 0.01  # ... but more than 1% of the answer


@pytest.mark.gpu
def test_libdevice_tanh_keeps_relative_accuracy_near_zero_on_gpu():
    x = torch.tensor([1e-7, -1e-7, 1e-5, 1e-3, 0.1], device=DEVICE)
    y = launch(tanh_libdevice_kernel, x).double().cpu()
    reference = torch.tanh(x.double()).cpu()
    assert ((y - reference).abs() / reference.abs()).max().item() < 1e-6
# --8<-- [end:test-small]


VARIANTS = {  # name in the evidence tables: its Triton kernel
    "hand_written_formula": tanh_kernel,
    "stable_formula": tanh_stable_kernel,
    "libdevice_tanh": tanh_libdevice_kernel,
}


def as_json_number(value: float):
    """A float for the data file, with NaN and infinities as the strings "nan", "inf" and "-inf"."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


@gpu_evidence("tanh-edge-values")
def observe_edge_values():
    """What each tanh returns on the GPU on both sides of the 44.36 edge, from -inf to +inf."""
    x = edges()
    outputs = {name: launch(kernel, x).cpu().tolist() for name, kernel in VARIANTS.items()}
    outputs["torch_tanh"] = torch.tanh(x).cpu().tolist()
    rows = [[as_json_number(value)] + [as_json_number(outputs[name][i]) for name in outputs]
            for i, value in enumerate(x.cpu().tolist())]
    return table([label("x", "x", "x")] + [label(name, name, name) for name in outputs], rows)


N_BENCH = 2**28  # 1 GiB of float32 in, 1 GiB out: far beyond the L2 cache
N_SAMPLE = 2**20  # the first elements, compared with float64
BENCH_BLOCK = 1024


def torch_tanh(x):
    return torch.tanh(x)


@gpu_evidence("tanh-variants")
def benchmark_variants():
    """Time, accuracy and NaN count of each tanh on 2**28 values of randn * 4."""
    import torch._dynamo

    ceiling = copy_ceiling_gbps()
    x = torch.randn(N_BENCH, device=DEVICE).mul_(4)
    out = torch.empty_like(x)
    reference = torch.tanh(x[:N_SAMPLE].double())
    grid = (triton.cdiv(N_BENCH, BENCH_BLOCK),)

    def triton_run(kernel):
        def run():
            kernel[grid](x, out, N_BENCH, BLOCK_SIZE=BENCH_BLOCK)
            return out
        return run

    compiled = torch.compile(torch_tanh, fullgraph=True)
    runs = {name: triton_run(kernel) for name, kernel in VARIANTS.items()}
    runs["torch_tanh"] = lambda: torch.tanh(x, out=out)
    runs["torch_compile_tanh"] = lambda: compiled(x)
    rows = []
    with torch._dynamo.config.patch(suppress_errors=False):  # a torch.compile failure raises
        for name, run in runs.items():
            run()  # compiles
            timing = median_ms(run)
            y = run()
            error = (y[:N_SAMPLE].double() - reference).abs().max().item()
            nan_count = int(torch.isnan(y).sum().item())
            rows.append([name, *memory_bound_cells(timing, 2 * 4 * N_BENCH, ceiling), as_json_number(error), nan_count])
    columns = [label("implementation", "实现", "implementation"), *memory_bound_columns(),
               label(f"max abs error vs float64 (first {N_SAMPLE:,})", f"与 float64 的最大绝对误差（前 {N_SAMPLE:,} 个）",
                     "max_abs_error"),
               label(f"NaN count (of {N_BENCH:,})", f"NaN 个数（共 {N_BENCH:,} 个）", "nan_count")]
    return table(columns, rows, ceiling_gbps=ceiling, n_elements=N_BENCH, sample_elements=N_SAMPLE, block=BENCH_BLOCK)


def main():
    print(describe())
    x = edges()
    with np.errstate(over="ignore", invalid="ignore"):
        hand_written = launch(tanh_kernel, x).cpu().tolist()
    stable = launch(tanh_stable_kernel, x).cpu().tolist()
    print(f"{'x':>8} {'hand-written':>13} {'stable':>8} {'torch.tanh':>10}")
    for xi, h, s, r in zip(EDGES, hand_written, stable, torch.tanh(x).cpu().tolist()):
        print(f"{xi:>8} {h:>13} {s:>8} {r:>10}")


if __name__ == "__main__":
    main()
