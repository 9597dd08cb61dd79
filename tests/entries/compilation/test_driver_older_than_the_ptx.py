"""TP065's claims, one test each: snippets/compilation/driver_older_than_the_ptx.py.

Compiles run without a GPU in a fresh process with an empty kernel cache. An older ptxas is Triton 3.2's own (CUDA 12.4),
from the version matrix's copy in .cache/matrix/ (fetched once from PyPI; without PyPI those tests skip). The driver's
messages are produced on a GPU through Triton's own loader: we cannot install an older driver there, so the test hands
the driver PTX one version newer than it supports. (A cubin cut in half, tried as a stand-in for an image the driver
cannot read, crashed the process on the H200 instead of raising: "device kernel image is invalid" is not reproduced.)
"""

import functools
import re
from pathlib import Path

import pytest
import torch

from snippets.compilation import driver_older_than_the_ptx as entry
from triton_faq.testing import fresh_randn, in_fresh_process, poisoned

ROOT = Path(__file__).resolve().parents[3]
UNSUPPORTED_PTX = "Triton Error [CUDA]: the provided PTX was compiled with an unsupported toolchain."


def older_ptxas():
    from triton_faq.matrix import MatrixError, install

    try:
        return str(install(ROOT, "3.2.0") / "triton" / "backends" / "nvidia" / "bin" / "ptxas")
    except MatrixError as why:
        pytest.skip(str(why))


def compile_case(ptxas=None):
    import os

    if ptxas:
        os.environ["TRITON_PTXAS_PATH"] = ptxas  # the fix, before the first compile
    kernel = entry.compile_for(90)
    return {"ptxas": entry.ptxas_cuda_version(), "ptx": entry.ptx_isa(kernel), "cubin": len(kernel.asm["cubin"]) > 0}


@functools.cache
def compiles():
    results = in_fresh_process(Path(__file__), "compile_case", [(None,), (older_ptxas(),)])
    return {"bundled": results[0].get("value", results[0]), "older": results[1].get("value", results[1])}


# -- which PTX Triton writes

def test_triton_writes_the_ptx_isa_of_its_ptxas_cuda_release():
    """Triton's own table (ptx_get_version): the PTX ISA of a CUDA release; 12.5 and 12.6 share 8.5."""
    from triton.backends.nvidia.compiler import ptx_get_version

    table = {release: ptx_get_version(release) for release in ("11.8", "12.0", "12.4", "12.6", "12.8", "12.9", "13.0")}
    assert table == {"11.8": 78, "12.0": 80, "12.4": 84, "12.6": 85, "12.8": 87, "12.9": 88, "13.0": 90}


def test_bundled_ptxas_is_cuda_12_8_and_writes_ptx_8_7_for_sm_90():
    assert compiles()["bundled"] == {"ptxas": "12.8", "ptx": "8.7", "cubin": True}


def test_fix_triton_ptxas_path_to_an_older_ptxas_writes_its_older_ptx():
    assert compiles()["older"] == {"ptxas": "12.4", "ptx": "8.4", "cubin": True}


@pytest.mark.interpreter
def test_no_driver_here_reads_as_none():
    assert entry.driver_cuda_version() is None


# -- on a GPU: the driver's version, and the driver's messages through Triton's loader

def newest_ptx_of_this_driver():
    from triton.backends.nvidia.compiler import ptx_get_version

    return ptx_get_version(entry.driver_cuda_version())


def ptx_label(isa):
    return f"{isa // 10}.{isa % 10}"


def reproduce_unsupported_ptx_version():
    kernel = entry.compile_for(90)
    entry.load(entry.ptx_with_version(kernel, ptx_label(newest_ptx_of_this_driver() + 1)))


@pytest.mark.gpu
def test_gpu_driver_cuda_version_reads_major_and_minor():
    version = entry.driver_cuda_version()
    assert re.fullmatch(r"\d+\.\d", version), version
    assert int(version.split(".")[0]) >= 12  # CUDA 12 or newer: the major of Triton 3.6's ptxas


@pytest.mark.gpu
def test_gpu_ptx_newer_than_the_driver_is_refused_with_unsupported_toolchain():
    with pytest.raises(RuntimeError) as error:
        reproduce_unsupported_ptx_version()
    assert str(error.value) == UNSUPPORTED_PTX


@pytest.mark.gpu
def test_gpu_the_same_ptx_at_the_drivers_version_loads():
    kernel = entry.compile_for(90)
    module, function, *_ = entry.load(entry.ptx_with_version(kernel, ptx_label(newest_ptx_of_this_driver())))
    assert module and function


@pytest.mark.gpu
def test_gpu_check_driver_is_silent_when_the_driver_has_the_ptxas_major(capsys):
    driver, ptxas = entry.check_driver()
    assert capsys.readouterr().out == "" and driver and ptxas == "12.8"


@pytest.mark.gpu
def test_gpu_kernel_runs_and_copies_exactly():
    x = fresh_randn(1000)
    y = poisoned(1000)
    entry.copy[(8,)](x, y, 1000, BLOCK=128)
    assert torch.equal(y, x)
