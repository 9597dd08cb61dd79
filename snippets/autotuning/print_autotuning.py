"""TP019: what `TRITON_PRINT_AUTOTUNING=1` prints, and when.

Run it: ``python snippets/autotuning/print_autotuning.py``
(on a machine without a GPU it runs through Triton's interpreter).
"""

import functools
import os
import re
import subprocess
import sys
import time

import torch

from triton_faq.backend import BACKEND, DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.evidence import gpu_evidence, label, table


# --8<-- [start:kernels]
def wall_clock_bench(fn, quantiles):
    """A benchmarker for the interpreter, which has no CUDA events: the same shape as do_bench's."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return [float(torch.tensor(times).quantile(q)) for q in quantiles]


CONFIGS = [
    triton.Config({"BLOCK": 64}, num_warps=1),
    triton.Config({"BLOCK": 128}, num_warps=2),
]
BENCH = None if BACKEND == "cuda" else wall_clock_bench  # None: Triton's do_bench on the GPU


@triton.autotune(configs=CONFIGS, key=["n"], do_bench=BENCH)
@triton.jit
def add_one_tuned(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:kernels]


# --8<-- [start:demo]
MARKER = "=== above: bare @triton.jit; below: @triton.autotune ==="


def print_demo():
    """What runs in a child process started with TRITON_PRINT_AUTOTUNING=1."""
    x = torch.zeros(2000, device=DEVICE)
    add_one[(16,)](x, 1000, BLOCK=64)  # bare @triton.jit
    add_one[(16,)](x, 1000, BLOCK=64)
    print(MARKER, flush=True)
    for n in (1000, 1000, 2000):  # tunes for n=1000, reuses that choice, tunes for n=2000
        add_one_tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, n)


@functools.lru_cache(maxsize=None)
def run_with_print_autotuning():
    env = dict(os.environ, TRITON_PRINT_AUTOTUNING="1")
    child = subprocess.run([sys.executable, __file__, "--print-demo"], env=env,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    bare, tuned = child.stdout.split(MARKER + "\n")
    return bare, tuned
# --8<-- [end:demo]


# --8<-- [start:test-bare]
def test_bare_jit_prints_nothing():
    bare, _ = run_with_print_autotuning()
    assert bare == ""
# --8<-- [end:test-bare]


# --8<-- [start:test-printed]
def test_autotune_prints_each_config_tried():
    _, tuned = run_with_print_autotuning()
    for config in CONFIGS:
        assert f"Autotuning kernel add_one_tuned with config {config}\n" in tuned
    assert "Autotuning kernel add_one_tuned with config BLOCK: 64, num_warps: 1, num_ctas: 1, " \
           "num_stages: 3, maxnreg: None\n" in tuned


def test_autotune_prints_key_time_and_best_config_once_per_new_key():
    _, tuned = run_with_print_autotuning()
    summary = re.compile(
        r"Triton autotuning for function add_one_tuned,\n"
        r"with key as \((\d+), 'torch\.float32'\),\n"
        r"finished after \d+\.\d\ds,\n"
        r"best config selected: BLOCK: (64|128), num_warps: (1|2), num_ctas: 1, num_stages: 3, maxnreg: None;\n"
    )
    assert [m[1] for m in summary.finditer(tuned)] == ["1000", "2000"]  # not for the repeated key
    assert tuned.count("Triton autotuning for function") == 2


def test_autotune_prints_no_register_shared_memory_or_occupancy_count():
    _, tuned = run_with_print_autotuning()
    assert re.search(r"regist|shared|occupan|spill|smem", tuned, re.IGNORECASE) is None
    lines = tuned.splitlines()
    assert len(lines) == 2 * len(CONFIGS) + 2 * 4  # two configs tried and a 4-line summary, per key
# --8<-- [end:test-printed]


# --8<-- [start:test-interpreter]
def autotune_with_the_default_benchmarker():
    default_bench = triton.autotune(configs=CONFIGS, key=["n"])(add_one)  # no do_bench
    x = torch.zeros(100, device=DEVICE)
    default_bench[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, 100)


@pytest.mark.interpreter
def test_interpreter_without_gpu_cannot_use_the_default_benchmarker():
    if torch.cuda.is_available():
        pytest.skip("with a GPU present, the default benchmarker finds its driver")
    with pytest.raises(RuntimeError, match=re.escape("0 active drivers ([]). There should only be one.")):
        autotune_with_the_default_benchmarker()


@pytest.mark.interpreter
def test_interpreter_autotunes_with_its_own_benchmarker():
    tuned = triton.autotune(configs=CONFIGS, key=["n"], do_bench=wall_clock_bench)(add_one)
    x = torch.zeros(100, device=DEVICE)
    tuned[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, 100)
    assert tuned.best_config in CONFIGS
    # every config was run 3 times by wall_clock_bench, then the best once more:
    assert torch.equal(x.cpu(), torch.full((100,), 7.0))
# --8<-- [end:test-interpreter]


RESOURCE_WORDS = re.compile(r"regist|shared|occupan|spill|smem", re.IGNORECASE)


@gpu_evidence("print-autotuning-output")
def observe_printed_lines():
    """The first 20 lines the child process printed after the marker, with TRITON_PRINT_AUTOTUNING=1."""
    _, tuned = run_with_print_autotuning()
    return table([label("printed line", "打印的行")], [[line] for line in tuned.splitlines()[:20]])


@gpu_evidence("print-autotuning-counts")
def count_printed_lines():
    """How much the same child process printed, and whether any of it names a resource."""
    bare, tuned = run_with_print_autotuning()
    lines = tuned.splitlines()
    row = [
        len(bare.splitlines()),
        len(lines),
        sum(line.startswith("Autotuning kernel") for line in lines),
        sum(line.startswith("Triton autotuning for function") for line in lines),
        sum(bool(RESOURCE_WORDS.search(line)) for line in lines),
    ]
    return table(
        [label("lines, bare @triton.jit", "裸 @triton.jit 的行数"),
         label("lines, @triton.autotune", "@triton.autotune 的行数"),
         label('lines "Autotuning kernel …"', "“Autotuning kernel …” 行数"),
         label('lines "Triton autotuning for function …"', "“Triton autotuning for function …” 行数"),
         label("lines naming regist, shared, occupan, spill or smem",
               "匹配 regist、shared、occupan、spill、smem 的行数")],
        [row],
    )


def main():
    if "--print-demo" in sys.argv:
        print_demo()
        return
    print(describe())
    bare, tuned = run_with_print_autotuning()
    print("TRITON_PRINT_AUTOTUNING=1, bare @triton.jit printed:", repr(bare))
    print("TRITON_PRINT_AUTOTUNING=1, @triton.autotune printed:")
    print(tuned, end="")


if __name__ == "__main__":
    main()
