"""TP061's claims, one test each: snippets/compilation/ptxas_does_not_know_the_gpu.py.

Compiling for sm_90 ... sm_121 needs no GPU. Every group of compiles runs in a fresh process
(`in_fresh_process`: Triton 3.3 remembers which ptxas it found for an architecture for the rest of the
process), each compile with a new, empty kernel cache (`compile_for` makes one). Which environment
variable Triton reads for which GPU is seen through a stand-in for ptxas, a shell script that logs
its arguments and runs Triton's own ptxas. The fix's tests use CUDA 13.0's ptxas, fetched once from
PyPI (the wheel nvidia-cuda-nvcc==13.0.88) into .cache/ptxas-cuda-13.0.88/; without PyPI they skip.

The per-target tests are separate functions so that the version matrix shows, release by release,
which GPUs the bundled ptxas knows.
"""

import contextlib
import functools
import io
import os
import re
import shlex
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
import torch
import triton

from snippets.compilation import ptxas_does_not_know_the_gpu as entry
from triton_faq.fetch import FetchError, fetched_once
from triton_faq.testing import fresh_randn, in_fresh_process

ROOT = Path(__file__).resolve().parents[3]
CUDA_13 = "13.0.88"
CUDA_13_FOLDER = ROOT / ".cache" / f"ptxas-cuda-{CUDA_13}"
UNKNOWN_SM_110 = "ptxas-blackwell fatal   : Value 'sm_110a' is not defined for option 'gpu-name'"
FINGERPRINT = re.compile(r"Value 'sm_\d+a?' is not defined for option 'gpu-name'")  # the page's errors: entry
TARGETS = (90, 100, 103, 110, 120, 121)
HYPHENATED = "TRITON_PTXAS-BLACKWELL_PATH"  # the name Triton 3.3 reads; a shell cannot export it
STAND_INS = (*entry.VARIABLES, HYPHENATED)


# -- what runs in the fresh processes

def compile_case(capability, variables=None, reader_fix=None):
    """Compile `copy` for `capability` with these environment variables set (and the reader's fix, if a
    path is given); the PTX's .version and .target lines, or the error (in_fresh_process records it)."""
    saved = {name: os.environ.pop(name) for name in STAND_INS if name in os.environ}
    os.environ.update(variables or {})
    if reader_fix:
        entry.use_toolkit_ptxas(reader_fix)
    try:
        kernel = entry.compile_for(capability)
    finally:
        for name in STAND_INS:
            os.environ.pop(name, None)
        os.environ.update(saved)
    assert kernel.asm["cubin"], "no cubin"
    return [line for line in kernel.asm["ptx"].splitlines() if line.startswith((".version", ".target"))]


def printed_case(capability):
    """What Triton prints on stdout when ptxas fails (compile_for(quiet=False))."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            entry.compile_for(capability, quiet=False)
        except Exception:  # the error itself: the compile cases
            pass
    return printed.getvalue()


def stand_ins_case(capabilities):
    """Point each variable at its own logging stand-in for ptxas, compile for each capability; per variable,
    the --gpu-name values its stand-in was asked to assemble for."""
    folder = Path(tempfile.mkdtemp())
    real = next(path for path in (Path(entry.BIN) / "ptxas-blackwell", Path(entry.BIN) / "ptxas") if path.is_file())
    stand_ins = {}
    for name in STAND_INS:
        stand_ins[name] = folder / name / "ptxas"
        stand_ins[name].parent.mkdir()
        stand_ins[name].write_text(f'#!/bin/sh\necho "$@" >> {shlex.quote(str(folder / name / "calls"))}\n'
                                   f'exec {shlex.quote(str(real))} "$@"\n')
        stand_ins[name].chmod(0o755)
    for capability in capabilities:
        try:
            compile_case(capability, {name: str(path) for name, path in stand_ins.items()})
        except Exception:  # whether the real ptxas knows the GPU does not matter here
            pass
    asked = {}
    for name in STAND_INS:
        calls = folder / name / "calls"
        names = set(re.findall(r"--gpu-name=(\S+)", calls.read_text() if calls.is_file() else ""))
        asked[name] = sorted(names, key=lambda gpu: int(re.sub(r"\D", "", gpu)))
    shutil.rmtree(folder, ignore_errors=True)
    return asked


def launch_case(ptxas, n):
    """On a GPU: the reader's fix with `ptxas`, then `copy` launched on fresh random inputs, output NaN first."""
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache  # the launch compiles: a new, empty kernel cache
        entry.use_toolkit_ptxas(ptxas)
        x = fresh_randn(n)
        y = torch.full_like(x, float("nan"))
        entry.copy[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
    return {"equal": bool(torch.equal(y, x)), "nan": int(y.isnan().sum()),
            "capability": torch.cuda.get_device_capability()}


def case(kind, *args):
    """One call in a fresh process: `kind` picks the function above."""
    return {"compile": compile_case, "printed": printed_case, "stand-ins": stand_ins_case,
            "launch": launch_case}[kind](*args)


# -- the groups, one fresh process each, asked once per test run

@functools.cache
def bundled():
    """Every target with Triton's own ptxas, no variable set; then what Triton printed for sm_110."""
    results = in_fresh_process(Path(__file__), "case", [("compile", capability) for capability in TARGETS]
                               + [("printed", 110)])
    return {**dict(zip(TARGETS, results)), "printed": results[-1]["value"]}


STAND_IN_TARGETS = (80, 90, 100, 110, 120, 121)


@functools.cache
def stand_ins():
    """The variables set at once, each to its own stand-in: which targets went to which."""
    return in_fresh_process(Path(__file__), "case", [("stand-ins", list(STAND_IN_TARGETS))])[0]["value"]


@functools.cache
def with_cuda_13():
    """CUDA 13.0's ptxas: in TRITON_PTXAS_BLACKWELL_PATH alone, in TRITON_PTXAS_PATH alone (sm_110 each), then
    set by the reader's fix (every target)."""
    ptxas = cuda_13_ptxas()
    calls = [("compile", 110, {"TRITON_PTXAS_BLACKWELL_PATH": ptxas}), ("compile", 110, {"TRITON_PTXAS_PATH": ptxas})]
    calls += [("compile", capability, None, ptxas) for capability in TARGETS]
    results = in_fresh_process(Path(__file__), "case", calls)
    return {"blackwell path": results[0], "ptxas path": results[1], "fix": dict(zip(TARGETS, results[2:]))}


_NO_CUDA_13 = []  # why the download failed, once a test run: the other tests skip at once


def cuda_13_ptxas() -> str:
    """CUDA 13.0's ptxas, from PyPI's nvidia-cuda-nvcc wheel into .cache/ (once, atomically); skips without PyPI."""
    if _NO_CUDA_13:
        pytest.skip(_NO_CUDA_13[0])

    def keep_only_ptxas(folder):
        [wheel] = (folder / "wheel").glob("*.whl")
        with zipfile.ZipFile(wheel) as archive, archive.open("nvidia/cu13/bin/ptxas") as member, \
                open(folder / "ptxas", "wb") as out:
            shutil.copyfileobj(member, out)
        (folder / "ptxas").chmod(0o755)
        shutil.rmtree(folder / "wheel")

    try:
        folder = fetched_once(CUDA_13_FOLDER, lambda folder: [
            "download", "--quiet", "--timeout", "30", "--retries", "1", "--no-deps", "--only-binary=:all:",
            "-d", str(folder / "wheel"), f"nvidia-cuda-nvcc=={CUDA_13}"], finish=keep_only_ptxas)
    except FetchError as why:
        _NO_CUDA_13.append(f"cannot download nvidia-cuda-nvcc=={CUDA_13} from PyPI for its ptxas ({why})")
        pytest.skip(_NO_CUDA_13[0])
    return str(folder / "ptxas")


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_sm_110_unknown_to_the_bundled_ptxas():
    result = bundled()[110]
    return f"{result.get('error')}: {result.get('message')}"


# -- the pitfall: the bundled ptxas and the names it knows

def test_pitfall_sm_110_fails_in_the_bundled_ptxas_blackwell():
    result = bundled()[110]
    assert result["error"] == "PTXASError"
    lines = result["message"].splitlines()
    assert lines[:3] == ["PTXAS error: Internal Triton PTX codegen error", "`ptxas` stderr:", UNKNOWN_SM_110]
    repro = next(line for line in lines if line.startswith("Repro command: "))
    assert repro.startswith(f"Repro command: {Path(entry.BIN) / 'ptxas-blackwell'} ")
    assert "--gpu-name=sm_110a" in repro.split()


def test_pitfall_bundled_ptxas_does_not_know_sm_110_thor():
    """The page's fingerprint: any release whose bundled ptxas does not know sm_110 (the matrix shows which)."""
    result = bundled()[110]
    assert "error" in result and FINGERPRINT.search(result["message"]), result


def test_triton_prints_the_ptx_and_asks_for_a_report():
    out = bundled()["printed"]
    assert UNKNOWN_SM_110 in out
    assert ".target sm_110a" in out  # the whole PTX
    assert "please share the reproducer above with Triton project." in out


def test_bundled_ptxas_compiles_for_sm_90_h100_h200():
    assert "value" in bundled()[90] and ".target sm_90a" in bundled()[90]["value"]


def test_bundled_ptxas_compiles_for_sm_100_b200():
    assert "value" in bundled()[100] and ".target sm_100a" in bundled()[100]["value"]


def test_bundled_ptxas_compiles_for_sm_103_b300():
    assert "value" in bundled()[103] and ".target sm_103a" in bundled()[103]["value"]


def test_bundled_ptxas_compiles_for_sm_120_rtx_50xx():
    assert "value" in bundled()[120] and ".target sm_120a" in bundled()[120]["value"]


def test_bundled_ptxas_compiles_for_sm_121_gb10():
    assert "value" in bundled()[121] and ".target sm_121a" in bundled()[121]["value"]


def test_bundled_ptxas_files_and_their_cuda_releases():
    assert entry.bundled_ptxas() == {"ptxas": "release 12.8, V12.8.93", "ptxas-blackwell": "release 12.9, V12.9.86"}


def test_triton_ships_a_second_ptxas_for_blackwell():
    assert sorted(name for name in os.listdir(entry.BIN) if name.startswith("ptxas")) == ["ptxas", "ptxas-blackwell"]


def test_sm_90_is_assembled_by_ptxas_and_sm_100_and_newer_by_ptxas_blackwell():
    """The PTX version Triton writes follows the CUDA release of the ptxas it runs: 8.7 for 12.8, 8.8 for 12.9."""
    from triton.backends.nvidia.compiler import ptx_get_version

    assert (ptx_get_version("12.8"), ptx_get_version("12.9")) == (87, 88)
    assert ".version 8.7" in bundled()[90]["value"]
    for capability in (100, 103, 120, 121):
        assert ".version 8.8" in bundled()[capability]["value"], capability


def test_gpu_names_the_bundled_ptxas_know():
    """CUDA 12.8's ptxas: no sm_103, sm_110 or sm_121; CUDA 12.9's adds sm_103 and sm_121, still no sm_110
    (Thor is sm_101 there); neither knows a plain name where it lacks the 'a' one."""
    old, blackwell = (set(entry.gpu_names(str(Path(entry.BIN) / name))) for name in ("ptxas", "ptxas-blackwell"))
    for name in ("sm_90a", "sm_100a", "sm_120a", "sm_101a"):
        assert name in old and name in blackwell
    for name in ("sm_103", "sm_103a", "sm_110", "sm_110a", "sm_121", "sm_121a"):
        assert name not in old
    for name in ("sm_103a", "sm_121", "sm_121a"):
        assert name in blackwell
    assert "sm_110" not in blackwell and "sm_110a" not in blackwell


# -- which variable names the ptxas for which GPU (Triton 3.6)

def test_triton_ptxas_blackwell_path_names_the_ptxas_for_sm_100_and_newer():
    asked = stand_ins()["TRITON_PTXAS_BLACKWELL_PATH"]
    assert {"sm_100a", "sm_110a", "sm_120a", "sm_121a"} <= set(asked), asked


def test_triton_ptxas_path_names_the_ptxas_below_sm_100():
    asked = stand_ins()["TRITON_PTXAS_PATH"]
    assert {"sm_80", "sm_90a"} <= set(asked), asked


def test_triton_ptxas_path_is_not_read_for_sm_100_and_newer():
    asked = stand_ins()["TRITON_PTXAS_PATH"]
    assert [name for name in asked if int(re.sub(r"\D", "", name)) >= 100] == [], asked


def test_the_hyphenated_name_is_not_read():
    """TRITON_PTXAS-BLACKWELL_PATH (the matrix shows the release that read it)."""
    assert stand_ins()[HYPHENATED] == []



# -- the fix: a ptxas that knows the GPU (CUDA 13.0's)

def test_triton_knows_cuda_13():
    """The PTX ISA version Triton writes for a ptxas of CUDA 13.0 (Triton 3.4 and older have none: the matrix)."""
    from triton.backends.nvidia.compiler import ptx_get_version

    assert ptx_get_version("13.0") == 90


def test_cuda_13_ptxas_knows_every_target_here():
    names = entry.gpu_names(cuda_13_ptxas())
    assert {f"sm_{capability}a" for capability in TARGETS} <= set(names)
    assert "sm_101a" not in names  # renumbered sm_110 in CUDA 13.0


def test_fix_triton_ptxas_blackwell_path_compiles_for_sm_110():
    result = with_cuda_13()["blackwell path"]
    assert result == {"value": [".version 9.0", ".target sm_110a"]}


def test_triton_ptxas_path_alone_leaves_sm_110_failing():
    result = with_cuda_13()["ptxas path"]
    assert result["error"] == "PTXASError" and UNKNOWN_SM_110 in result["message"].splitlines()


def test_fix_use_toolkit_ptxas_compiles_for_every_target():
    results = with_cuda_13()["fix"]
    for capability in TARGETS:
        assert results[capability] == {"value": [".version 9.0", f".target sm_{capability}a"]}, capability


@pytest.mark.gpu
def test_gpu_kernel_assembled_by_cuda_13_ptxas_runs_and_copies_exactly():
    ptxas = cuda_13_ptxas()
    results = in_fresh_process(Path(__file__), "case", [("launch", ptxas, 1000)])
    assert results == [{"value": {"equal": True, "nan": 0, "capability": list(torch.cuda.get_device_capability())}}]


def test_main_prints_the_bundled_releases_and_the_sm_110_line():
    out = io.StringIO()
    saved = {name: os.environ.pop(name) for name in entry.VARIABLES if name in os.environ}
    try:
        with contextlib.redirect_stdout(out):
            entry.main()
    finally:
        os.environ.update(saved)
    lines = out.getvalue().splitlines()
    assert lines[1].split()[:4] == ["ptxas", "release", "12.8,", "V12.8.93"]
    assert lines[3] == f"sm_110 (Jetson Thor), Triton's own ptxas: {UNKNOWN_SM_110}"
