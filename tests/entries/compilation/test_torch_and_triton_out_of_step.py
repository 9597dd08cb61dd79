"""TP060's claims, one test each: snippets/compilation/torch_and_triton_out_of_step.py.

The version matrix runs the import tests against each Triton release from 3.2, which is how the
page's version table shows where `AttrsDescriptor` disappears.
"""

import importlib.metadata
import subprocess
from pathlib import Path

import pytest
import triton
import triton.language as tl

from snippets.compilation import torch_and_triton_out_of_step as entry
from triton_faq.testing import compile_offline, in_fresh_process_by_case

ATTRS_GONE = "cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'"
OPS_GONE = "No module named 'triton.ops'"
TARGET_NOT_GPU_TARGET = "target must be of GPUTarget type"


@triton.jit
def copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


def compile_case(*target):
    """triton.compile given `target` as it is ("cuda", 90), or wrapped in a GPUTarget (run in a fresh process)."""
    wrapped = triton.backends.compiler.GPUTarget(*target[1:], 32) if target[0] == "GPUTarget" else None
    done = compile_offline(copy, {"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 64},
                           target=wrapped or target)
    return "compiled" if done.error is None else f"{type(done.error).__name__}: {done.error}"


def compiled(target):
    targets = [("cuda", 90), ("GPUTarget", "cuda", 90)]
    return in_fresh_process_by_case(Path(__file__), "compile_case", targets, compile_ready=True)[target]["value"]


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_attrs_descriptor():
    entry.what_torch_2_6_imports()


def reproduce_triton_ops():
    entry.what_older_packages_import()


def reproduce_target_not_a_gpu_target():
    return compiled(("cuda", 90))


# -- the pitfall: imports of Triton internals that a release removed

def test_pitfall_attrs_descriptor_is_gone_from_triton_compiler_compiler():
    with pytest.raises(ImportError) as raised:
        entry.what_torch_2_6_imports()
    assert str(raised.value).startswith(ATTRS_GONE + " (")  # then the path of compiler.py


def test_attrs_descriptor_is_gone_from_triton_backends_compiler_too():
    """torch 2.6 tries triton.backends.compiler first, then triton.compiler.compiler: both are gone."""
    import triton.backends.compiler

    assert not hasattr(triton.backends.compiler, "AttrsDescriptor")


def test_pitfall_triton_ops_is_gone():
    with pytest.raises(ModuleNotFoundError) as raised:
        entry.what_older_packages_import()
    assert str(raised.value) == OPS_GONE


def test_pitfall_triton_compile_asserts_on_a_target_that_is_not_a_gpu_target():
    """What an Inductor older than its Triton's compile API hits: the target as a plain pair."""
    assert compiled(("cuda", 90)) == f"AssertionError: {TARGET_NOT_GPU_TARGET}"
    assert compiled(("GPUTarget", "cuda", 90)) == "compiled"


def test_torch_builds_a_plain_backend_capability_pair_for_a_triton_without_gpu_target():
    """torch 2.13's fallback when `triton.backends.compiler` has no GPUTarget: the old form of the target."""
    import inspect

    from torch._inductor.runtime import triton_compat

    source = inspect.getsource(triton_compat)
    assert "from triton.backends.compiler import GPUTarget" in source
    assert "            return (backend, arch)\n" in source


# -- reading the pin

def test_the_pin_is_read_from_requires_dist_lines():
    assert entry.triton_pin(['triton==3.6.0; platform_system == "Linux"', "sympy>=1.13.3"]) == "3.6.0"
    assert entry.triton_pin(['triton (==3.2.0) ; platform_system == "Linux" and platform_machine == "x86_64"']) \
        == "3.2.0"
    assert entry.triton_pin(["filelock", "typing-extensions>=4.10.0"]) is None
    assert entry.triton_pin(None) is None


def test_the_installed_pair_is_reported_with_the_pin_of_the_installed_torch():
    report = entry.torch_and_triton()
    assert report["triton"] == triton.__version__
    assert report["pins triton"] == entry.triton_pin(importlib.metadata.requires("torch"))
    assert report["in step"] == (report["pins triton"] in (None, triton.__version__))


@pytest.mark.interpreter
def test_interpreter_this_machines_cpu_torch_pins_no_triton():
    """The CPU build of torch requires no Triton at all: pip checks nothing when Triton changes."""
    assert "+cpu" in entry.torch.__version__
    assert entry.torch_and_triton()["pins triton"] is None


@pytest.mark.gpu
def test_gpu_the_h200s_torch_pins_the_triton_installed_beside_it():
    report = entry.torch_and_triton()
    assert report["pins triton"] == triton.__version__ and report["in step"]


@pytest.mark.slow
def test_torch_2_6_pins_triton_3_2_0_on_pypi():
    """pip reads the pin from PyPI's metadata of the torch 2.6.0 wheel, without downloading it."""
    try:
        pin = entry.pinned_triton_on_pypi("2.6.0")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"PyPI is not reachable from here: {error}")
    assert pin == "3.2.0"
