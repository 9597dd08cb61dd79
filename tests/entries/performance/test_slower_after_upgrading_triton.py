"""TP073's claims, one test each: snippets/performance/slower_after_upgrading_triton.py.

Registers and stack are read from the cubin that each release compiles for sm_90 (no GPU), with that
release's own ptxas and cuobjdump. The version matrix runs `test_the_installed_release_*` on every
release 3.2-3.9, which checks the whole table below; the other tests use two releases fetched into
.cache/matrix by `triton-faq matrix`.
"""

from pathlib import Path

import pytest
import triton

from snippets.performance import slower_after_upgrading_triton as entry
from triton_faq.testing import assert_matches_float64, fresh_randn

ROOT = Path(__file__).resolve().parents[3]
WIDE = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_warps=4, num_stages=3)
EIGHT_WARPS = dict(entry.TUNED, num_warps=8)

# (registers per thread, stack bytes) for sm_90, per release; the page's table
TABLE = {
    "tuned": {"3.2": (162, 0), "3.3": (168, 0), "3.4": (159, 0), "3.5": (128, 0), "3.6": (128, 0),
              "3.7": (128, 0), "3.8": (128, 0), "3.9": (128, 0)},
    "eight warps": {"3.2": (77, 0), "3.3": (102, 0), "3.4": (100, 0), "3.5": (66, 0), "3.6": (66, 0),
                    "3.7": (72, 0), "3.8": (72, 0), "3.9": (72, 0)},
    "wide": {"3.2": (255, 136), "3.3": (255, 328), "3.4": (255, 352), "3.5": (255, 112), "3.6": (255, 112),
             "3.7": (255, 104), "3.8": (255, 104), "3.9": (255, 264)},
}
CONFIGS = {"tuned": entry.TUNED, "eight warps": EIGHT_WARPS, "wide": WIDE}


def release(version):
    folder = ROOT / ".cache" / "matrix" / f"triton-{version}"
    if not folder.is_dir():
        pytest.skip(f"Triton {version} is not in .cache/matrix (run `triton-faq matrix` once to fetch it)")
    return str(folder)


def used(configs, version=None):
    got = entry.registers_for_sm_90(configs, triton_path=release(version) if version else None)
    return [(one["registers"], one["stack_bytes"]) for one in got]


def test_the_installed_release_compiles_as_the_table_says():
    minor = ".".join(triton.__version__.split(".")[:2])
    if minor not in TABLE["wide"]:
        pytest.skip(f"the table has no row for Triton {triton.__version__}")
    names = sorted(TABLE)
    assert dict(zip(names, used([CONFIGS[name] for name in names]))) == {name: TABLE[name][minor] for name in names}


def test_pitfall_3_8_to_3_9_spills_more_than_twice_as_much():
    assert used([WIDE], "3.8.0") == [(255, 104)] and used([WIDE], "3.9.0") == [(255, 264)]


@pytest.mark.parametrize("shape", [(64, 64, 64), (96, 80, 72), (257, 129, 65)])
def test_tuned_config_matches_float64(shape):
    M, K, N = shape
    a, b = fresh_randn(M, K).half(), fresh_randn(K, N).half()
    c, _ = entry.matmul(a, b, entry.TUNED)
    assert_matches_float64(c, a.double() @ b.double(), rtol=2e-3)


@pytest.mark.gpu
def test_gpu_the_launch_reports_the_registers_of_the_offline_compile():
    a, b = fresh_randn(256, 256).half(), fresh_randn(256, 256).half()
    configs = [entry.TUNED, EIGHT_WARPS, WIDE]
    offline = used(configs)
    for config, expected in zip(configs, offline):
        _, compiled = entry.matmul(a, b, config)
        assert (compiled.n_regs, compiled.n_spills * 4) == expected  # n_spills counts 4-byte words


@pytest.mark.gpu
def test_gpu_fix_autotuned_matches_float64():
    a, b = fresh_randn(512, 384).half(), fresh_randn(384, 640).half()
    c, _ = entry.matmul(a, b)
    assert_matches_float64(c, a.double() @ b.double(), rtol=2e-3)
    assert entry.matmul_autotuned.best_config is not None
