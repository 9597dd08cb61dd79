"""TP019's claims, one test each: snippets/autotuning/print_autotuning.py."""

import contextlib
import functools
import io
import os
import re

import pytest
import torch
import triton

from snippets.autotuning import print_autotuning as entry

RESOURCE_WORDS = re.compile(r"regist|shared|occupan|spill|smem", re.IGNORECASE)


@functools.lru_cache(maxsize=None)
def run_with_print_autotuning():
    """What entry.print_demo() prints with TRITON_PRINT_AUTOTUNING=1: (bare kernel's part, autotuned part).

    Once per process: the autotuner keeps its choice per key, so a second run would not tune.
    """
    printed = io.StringIO()
    before = os.environ.get("TRITON_PRINT_AUTOTUNING")
    os.environ["TRITON_PRINT_AUTOTUNING"] = "1"
    try:
        with contextlib.redirect_stdout(printed):
            entry.print_demo()
    finally:
        if before is None:
            os.environ.pop("TRITON_PRINT_AUTOTUNING")
        else:
            os.environ["TRITON_PRINT_AUTOTUNING"] = before
    bare, tuned = printed.getvalue().split(entry.MARKER + "\n")
    return bare, tuned


def test_bare_jit_prints_nothing():
    bare, _ = run_with_print_autotuning()
    assert bare == ""


def test_autotune_prints_each_config_tried():
    _, tuned = run_with_print_autotuning()
    for config in entry.CONFIGS:
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
    assert RESOURCE_WORDS.search(tuned) is None
    lines = tuned.splitlines()
    assert len(lines) == 2 * len(entry.CONFIGS) + 2 * 4  # two configs tried and a 4-line summary, per key


@pytest.mark.interpreter
def test_interpreter_autotunes_with_its_own_benchmarker():
    tuned = triton.autotune(configs=entry.CONFIGS, key=["n"], do_bench=entry.wall_clock_bench)(entry.add_one)
    x = torch.zeros(100, device=entry.DEVICE)
    tuned[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, 100)
    assert tuned.best_config in entry.CONFIGS
    # every config was run 3 times by wall_clock_bench, then the best once more:
    assert torch.equal(x.cpu(), torch.full((100,), 7.0))
