"""TP070's claims, one test each: snippets/compilation/compile_time_at_every_start.py.

Each start is a new Python process (`fresh_process`), as a job, a worker or a container start is. Without a GPU the
compile is timed for an H200 (sm_90) through triton.compile; on a GPU the first launches themselves are timed.
"""

import functools
import inspect
import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton

from snippets.compilation import compile_time_at_every_start as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned

pytestmark = pytest.mark.timing  # its GPU claims are times: they run with the GPU to themselves


@functools.cache
def compile_starts():
    """Three starts: a new empty cache; the same cache again; another new empty cache. Fastest of the runs kept."""
    with tempfile.TemporaryDirectory() as shared, tempfile.TemporaryDirectory() as other:
        cold = entry.fresh_process("timed_compile_for_h200", shared)
        warm = entry.fresh_process("timed_compile_for_h200", shared)
        cold_again = entry.fresh_process("timed_compile_for_h200", other)
        files = sorted(path.suffix for path in Path(shared).rglob("*") if path.is_file())
    return {"cold": cold, "warm": warm, "cold again": cold_again, "files": files}


@pytest.mark.slow
def test_pitfall_an_empty_cache_compiles_again_at_every_start():
    starts = compile_starts()
    fastest_cold = min(starts["cold"]["first"], starts["cold again"]["first"])
    assert fastest_cold > 3 * starts["warm"]["first"], starts


def test_fix_the_kept_cache_skips_the_compile():
    starts = compile_starts()
    assert starts["warm"]["first"] < starts["cold"]["first"] / 3, starts


def test_the_cache_holds_every_stage_and_the_binary():
    assert {".ttir", ".ttgir", ".llir", ".ptx", ".cubin", ".json"} <= set(compile_starts()["files"])


def test_the_hash_of_tritons_own_files_is_paid_at_every_start():
    starts = compile_starts()
    for start in ("cold", "warm", "cold again"):
        assert starts[start]["own_hash"] > 0.02, starts  # tens of milliseconds or more, every process, cache or not


def test_cache_dir_is_read_at_the_first_compile_not_at_import():
    """The fix sets TRITON_CACHE_DIR after `import triton`: Triton reads it when it compiles."""
    from triton import knobs

    saved = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["TRITON_CACHE_DIR"] = folder
        try:
            assert knobs.cache.dir == folder
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if saved is not None:
                os.environ["TRITON_CACHE_DIR"] = saved


def test_autotuner_keeps_its_results_on_disk_only_when_asked():
    """`cache_results` (Triton 3.4 and later; the version table shows the releases without it), off by default."""
    parameters = inspect.signature(triton.autotune).parameters
    assert "cache_results" in parameters and parameters["cache_results"].default is False


def test_fix_tuned_kernel_matches_float64():
    """Through the autotuner on a GPU; under the interpreter, which has no GPU timer for it, each config's kernel."""
    x = fresh_randn(3000)
    if torch.cuda.is_available():
        out = poisoned(3000)
        entry.scale_tuned[lambda meta: (triton.cdiv(3000, meta["BLOCK"]),)](x, out, 3000, 2.0)
        assert_matches_float64(out, x.double() * 2.0)
        return
    for config in entry.scale_tuned.configs:
        out = poisoned(3000)
        block = config.kwargs["BLOCK"]
        entry.scale_tuned.fn[(triton.cdiv(3000, block),)](x, out, 3000, 2.0, BLOCK=block)
        assert_matches_float64(out, x.double() * 2.0)


@functools.cache
def gpu_starts():
    with tempfile.TemporaryDirectory() as shared:
        cold = entry.fresh_process("timed_job", shared)
        warm = entry.fresh_process("timed_job", shared)
        warm_again = entry.fresh_process("timed_job", shared)  # another start with the cache kept
        autotune_files = [path.name for path in Path(shared).rglob("*.autotune.json")]
    return {"cold": cold, "warm": warm, "warm again": warm_again, "autotune files": autotune_files}


@pytest.mark.gpu
def test_gpu_first_launches_compile_and_autotune_with_an_empty_cache():
    starts = gpu_starts()
    assert starts["cold"]["benchmarked"] is True and starts["cold"]["nan"] == 0
    # both include the CUDA context start; the faster of two starts with the cache kept, as the suite's other
    # workers share the GPU machine and can slow any one start
    warm = min(starts["warm"]["first"], starts["warm again"]["first"])
    assert starts["cold"]["first"] > 2 * warm, starts


@pytest.mark.gpu
def test_gpu_a_kept_cache_skips_compile_and_autotune():
    starts = gpu_starts()
    assert starts["warm"]["benchmarked"] is False and starts["warm"]["nan"] == 0, starts
    assert starts["autotune files"] == ["scale_tuned.autotune.json"], starts


@pytest.mark.gpu
def test_gpu_launches_after_the_first_cost_no_compile():
    starts = gpu_starts()
    assert starts["cold"]["again"] < starts["cold"]["first"] / 10, starts


@pytest.mark.slow
def test_gpu_free_main_prints_three_starts(capsys):
    if torch.cuda.is_available():
        pytest.skip("main() times GPU launches here; the GPU tests above check those")
    entry.main()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" first launch")[0].strip() for line in lines] == [
        "a new, empty cache", "the same cache again", "the same cache, a third time"]
