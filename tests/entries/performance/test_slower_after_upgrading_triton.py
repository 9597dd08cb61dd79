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
BIG = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3)
EIGHT_WARPS = dict(entry.TUNED, num_warps=8)

# (registers per thread, stack bytes) for sm_90, per release, as a launch on float16 matrices whose
# sizes are multiples of 16 specializes the kernel: the page's table
TABLE = {
    "tuned": {"3.2": (58, 0), "3.3": (64, 0), "3.4": (64, 0), "3.5": (59, 0), "3.6": (59, 0),
              "3.7": (58, 0), "3.8": (58, 0), "3.9": (58, 0)},
    "eight warps": {"3.2": (42, 0), "3.3": (42, 0), "3.4": (44, 0), "3.5": (42, 0), "3.6": (42, 0),
                    "3.7": (42, 0), "3.8": (42, 0), "3.9": (42, 0)},
    "big tile": {"3.2": (194, 0), "3.3": (206, 0), "3.4": (205, 0), "3.5": (191, 0), "3.6": (191, 0),
                 "3.7": (206, 0), "3.8": (206, 0), "3.9": (194, 0)},
}
CONFIGS = {"tuned": entry.TUNED, "eight warps": EIGHT_WARPS, "big tile": BIG}


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
    if minor not in TABLE["tuned"]:
        pytest.skip(f"the table has no row for Triton {triton.__version__}")
    names = sorted(TABLE)
    assert dict(zip(names, used([CONFIGS[name] for name in names]))) == {name: TABLE[name][minor] for name in names}


def test_3_6_to_3_7_the_big_tile_needs_8_percent_more_registers_and_nothing_spills():
    assert used([BIG], "3.6.0") == [(191, 0)] and used([BIG], "3.7.1") == [(206, 0)]


def test_no_config_spills_or_crosses_an_occupancy_step_on_any_release():
    """Blocks per SM that the registers allow (65536 registers, allocated 8 per thread at a time)."""
    for name, per_release in TABLE.items():
        warps = CONFIGS[name]["num_warps"]
        blocks = {65536 // (-(-regs // 8) * 8 * 32 * warps) for regs, _ in per_release.values()}
        assert len(blocks) == 1 and all(stack == 0 for _, stack in per_release.values()), name


@pytest.mark.parametrize("shape", [(64, 64, 64), (96, 80, 72), (257, 129, 65)])
def test_tuned_config_matches_float64(shape):
    M, K, N = shape
    a, b = fresh_randn(M, K).half(), fresh_randn(K, N).half()
    c, _ = entry.matmul(a, b, entry.TUNED)
    assert_matches_float64(c, a.double() @ b.double(), rtol=2e-3)


@pytest.mark.gpu
def test_gpu_the_launch_reports_the_registers_of_the_offline_compile():
    a, b = fresh_randn(256, 256).half(), fresh_randn(256, 256).half()
    configs = [entry.TUNED, EIGHT_WARPS, BIG]
    offline = used(configs)
    for config, expected in zip(configs, offline):
        _, compiled = entry.matmul(a, b, config)
        assert (compiled.n_regs, compiled.n_spills * 4) == expected  # n_spills counts 4-byte words


@pytest.mark.gpu
def test_gpu_fix_autotuned_matches_float64():
    a, b = fresh_randn(512, 384).half(), fresh_randn(384, 640).half()
    c, _ = entry.matmul(a, b)
    assert_matches_float64(c, a.double() @ b.double(), rtol=2e-3)
    assert entry.autotuned().best_config is not None
