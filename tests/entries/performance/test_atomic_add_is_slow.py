"""TP088's claims, one test each: snippets/performance/atomic_add_is_slow.py.

The machine-code claims compile for sm_90 (an H100 or H200) without a GPU and read the SASS that
Triton's bundled cuobjdump prints; the speed claims run on the GPU.
"""

import inspect

import pytest
import torch
import triton
import triton.language as tl

from snippets.performance import atomic_add_is_slow as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves

ADDS_PER_THREAD = 1024 // (32 * 4)  # BLOCK 1024 over 4 warps of 32 threads


def random_index(n, size):
    return torch.randint(0, size, (n,), dtype=torch.int32, device=entry.DEVICE)


# -- the machine code, compiled for sm_90 without a GPU


@pytest.fixture(scope="module")
def instructions():
    """entry.memory_instructions of both kernels, in a fresh process (the interpreter breaks the compiler)."""
    names = ["scatter_add_pitfall", "scatter_add_fixed"]
    results = in_fresh_process(entry.__file__, "memory_instructions", [(name,) for name in names])
    return {name: result["value"] for name, result in zip(names, results)}


def per_add(found: list) -> list:
    """The instructions of one add, after checking that every add has the same ones."""
    one = found[:len(found) // ADDS_PER_THREAD]
    assert found == one * ADDS_PER_THREAD, found
    return one


def test_pitfall_the_default_sem_puts_a_gpu_scope_barrier_before_every_add(instructions):
    one = per_add(instructions["scatter_add_pitfall"])
    atomic = next(i for i, name in enumerate(one) if name.startswith(("ATOMG", "REDG")))
    assert "MEMBAR.ALL.GPU" in one[:atomic], one
    assert len(one) == 5, one  # four instructions more than the relaxed add's one


def test_pitfall_the_default_sem_instructions_on_this_release(instructions):
    """From 3.4: barrier, error barriers, the atomic, then cache control. 3.2 and 3.3: a barrier at
    block and one at GPU scope, the error barriers, then the reduction."""
    one = per_add(instructions["scatter_add_pitfall"])
    if tuple(int(part) for part in triton.__version__.split(".")[:2]) >= (3, 4):
        assert one == ["MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR", "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", "CCTL.IVALL"]
    else:
        assert one == ["MEMBAR.ALL.CTA", "MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR", "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"]


def test_fix_sem_relaxed_is_one_reduction_instruction_per_add_and_nothing_else(instructions):
    assert per_add(instructions["scatter_add_fixed"]) == ["REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"]


def test_the_two_kernels_differ_only_in_sem():
    def body(kernel):  # the lines after the signature, without docstring, comments or blank lines
        lines = [line.split("#")[0].rstrip() for line in inspect.getsource(kernel.fn).splitlines()[2:]]
        return [line for line in lines if line and not line.lstrip().startswith('"""')]

    differing = [(a, b) for a, b in zip(body(entry.scatter_add_pitfall), body(entry.scatter_add_fixed)) if a != b]
    assert len(body(entry.scatter_add_pitfall)) == len(body(entry.scatter_add_fixed))
    assert differing == [("    tl.atomic_add(out_ptr + index, x, mask=mask)",
                          '    tl.atomic_add(out_ptr + index, x, mask=mask, sem="relaxed")')]


# -- results: the pitfalls are slow, not wrong; the fixes are right


@pytest.mark.parametrize("n, size", [(1, 1), (1000, 7), (5000, 256), (4099, 4096)])
def test_fix_scatter_add_matches_float64(n, size):
    x, index = fresh_randn(n), random_index(n, size)
    reference = torch.zeros(size, dtype=torch.float64, device=entry.DEVICE).index_add_(0, index.long(), x.double())
    assert_matches_float64(entry.scatter_add(entry.scatter_add_fixed, x, index, size, BLOCK=256), reference)


def test_pitfall_scatter_add_gives_the_same_sums():
    x, index = fresh_randn(5000), random_index(5000, 100)
    reference = torch.zeros(100, dtype=torch.float64, device=entry.DEVICE).index_add_(0, index.long(), x.double())
    assert_matches_float64(entry.scatter_add(entry.scatter_add_pitfall, x, index, 100, BLOCK=256), reference)


@pytest.mark.parametrize("n, bins", [(1, 16), (1000, 16), (5000, 64), (3001, 256)])
def test_fix_histogram_equals_bincount(n, bins):
    index = random_index(n, bins)
    got = entry.histogram(entry.histogram_fixed, index, bins, BLOCK=512)
    assert torch.equal(got.long(), torch.bincount(index.long(), minlength=bins))


def test_pitfall_histogram_gives_the_same_counts():
    index = random_index(3001, 16)
    got = entry.histogram(entry.histogram_pitfall, index, 16, BLOCK=512)
    assert torch.equal(got.long(), torch.bincount(index.long(), minlength=16))


# -- what the documentation and torch.compile say


def test_docstring_quoted_on_the_page():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(tl.atomic_add.__doc__.split())
    assert ('Specifies the memory semantics for the operation. Acceptable values are "acquire", "release", '
            '"acq_rel" (stands for "ACQUIRE_RELEASE"), and "relaxed". If not provided, the function defaults to '
            'using "acq_rel" semantics.') in doc


def test_inductor_emits_relaxed_atomic_adds():
    """torch's Inductor writes every atomic_add it generates with sem='relaxed'."""
    from torch._inductor.codegen import triton as inductor_triton

    source = inspect.getsource(inductor_triton)
    emitted = [line.strip() for line in source.splitlines() if 'f"tl.atomic_add(' in line]
    assert emitted and all("sem='relaxed'" in line for line in emitted), emitted


# -- on the GPU: what each costs


@pytest.fixture(scope="module")
def speeds():
    return entry.compare_speed(2**24)


def timings_of(speeds, workload_start):
    return {name: ms for (workload, name), ms in speeds.items() if workload.startswith(workload_start)}


@pytest.mark.gpu
def test_gpu_relaxed_scatter_add_into_many_rows_is_faster_than_the_default(speeds):
    got = timings_of(speeds, "scatter-add of 16,777,216 values into 1,048,576 rows")
    assert got["sem='relaxed'"] * 1.2 < got["default sem"], got


@pytest.mark.gpu
def test_gpu_the_same_relaxed_adds_into_256_rows_take_far_longer_than_into_many(speeds):
    """The same kernel and the same number of adds: only how many land on each address differs."""
    many = timings_of(speeds, "scatter-add of 16,777,216 values into 1,048,576 rows")["sem='relaxed'"]
    few = timings_of(speeds, "scatter-add of 16,777,216 values into 256 rows")["sem='relaxed'"]
    assert few > 3 * many, (few, many)


@pytest.mark.gpu
def test_gpu_adds_to_few_addresses_are_slow_even_relaxed_and_counting_in_the_program_first_is_far_faster(speeds):
    got = timings_of(speeds, "histogram of 16,777,216 values into 16 bins")
    assert got["tl.histogram, one add per bin"] * 10 < got["one add per element"], got
