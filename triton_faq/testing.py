"""Helpers shared by every snippet's tests: poisoned outputs, float64 references, compiles without a GPU."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch

import triton_checked

from .backend import DEVICE
from .fresh import in_fresh_process, in_fresh_process_by_case  # noqa: F401  (the proofs import them from here)

POISON = float("nan")


def checked_error(launch, kind: type[Exception]) -> Exception:
    """The ``kind`` of report (``triton_checked.DataRace``, ``OutOfBounds``) that ``launch()`` raises under
    ``triton_checked.checked()``; AssertionError when the checks let it through."""
    try:
        with triton_checked.checked():
            launch()
    except kind as report:
        return report
    raise AssertionError(f"triton_checked.checked() raised no {kind.__name__}")


def poisoned(*shape: int, dtype=torch.float32, value: float = POISON) -> torch.Tensor:
    """An output buffer filled with a value no kernel writes, so unwritten elements show."""
    return torch.full(shape, value, dtype=dtype, device=DEVICE)


def fresh_randn(*shape: int, dtype=torch.float32, seed: int | None = None) -> torch.Tensor:
    """Fresh random inputs on the active backend's device (a new seed on every call)."""
    generator = torch.Generator().manual_seed(seed if seed is not None else torch.seed())
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype).to(DEVICE)


def assert_matches_float64(actual: torch.Tensor, reference: torch.Tensor, rtol: float = 1e-5) -> None:
    """Assert every element was written and ``‖actual − ref‖ / ‖ref‖ <= rtol`` in float64."""
    actual64 = actual.detach().to("cpu", torch.float64)
    reference64 = reference.detach().to("cpu", torch.float64)
    assert actual64.shape == reference64.shape, f"shape {tuple(actual64.shape)} != {tuple(reference64.shape)}"
    unwritten = torch.isnan(actual64) & ~torch.isnan(reference64)
    assert not unwritten.any(), f"{int(unwritten.sum())} output elements were never written (still poisoned)"
    finite = torch.isfinite(reference64)
    a, r = actual64[~finite], reference64[~finite]
    same = (a == r) | (torch.isnan(a) & torch.isnan(r))
    assert same.all(), "non-finite elements (inf, NaN) differ from the reference"
    error = torch.linalg.vector_norm(actual64[finite] - reference64[finite])
    scale = torch.linalg.vector_norm(reference64[finite]).clamp_min(torch.finfo(torch.float64).tiny)
    assert error / scale <= rtol, f"relative error {float(error / scale):.3e} > {rtol:.1e}"


@dataclass
class OfflineCompile:
    """What compiling a kernel without a GPU gave: the compiled kernel or the exception raised, and
    what the process wrote meanwhile to its stdout and stderr (file descriptors 1 and 2, where MLIR's
    diagnostics and IR dumps go, not Python's ``sys.stderr``)."""
    compiled: object
    error: BaseException | None
    stdout: str
    stderr: str


def compile_offline(kernel, signature: dict, constants: dict, target=None, options=None) -> OfflineCompile:
    """Compile ``kernel`` (a ``@triton.jit`` function, or its interpreted form) for ``target``, sm_90 by
    default, with the launch ``options`` (``{"enable_fp_fusion": False}``), in a new empty kernel cache,
    with no GPU and no launch. Run it in a fresh process that imported triton before
    ``TRITON_INTERPRET`` applied (``in_fresh_process(..., compile_ready=True)``)."""
    import triton

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    source = triton.compiler.ASTSource(triton.runtime.jit.JITFunction(kernel.fn), signature, constants)
    target = target or triton.backends.compiler.GPUTarget("cuda", 90, 32)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            compiled, error = triton.compile(source, target=target, options=options), None
        except Exception as raised:  # what the compile raised is the result
            compiled, error = None, raised
        finally:
            sys.stdout.flush()  # what Python printed (3.5's dump of the IR) goes where the compile wrote
            sys.stderr.flush()
            for fd, kept in zip((1, 2), saved):
                os.dup2(kept, fd)
                os.close(kept)
        written = []
        for stream in (out, err):
            stream.seek(0)
            written.append(stream.read().decode("utf-8", "replace"))
    return OfflineCompile(compiled, error, *written)


def triton_language_restorer():
    """A function that puts ``triton.language`` back as it is now (call this before any kernel runs).

    Triton 3.6's interpreter patches ``triton.language`` in place on every launch and undoes that
    when the grid finishes, except for the patches a nested ``@triton.jit`` call makes (``tl.sum``,
    ``tl.max``, any helper): those stay, and Triton's real compiler later in the same process then
    fails with errors such as ``'ir.value' object has no attribute 'dtype'``. The test suite calls the
    returned function before every test, so no test depends on which file ran before it in its worker.
    """
    import triton.language as tl

    names = ("tensor", "dtype", "tensor_descriptor_base")  # the last one is Triton 3.4's and later's
    owners = [tl, tl.core, tl.math, *(getattr(tl.core, name) for name in names if hasattr(tl.core, name))]
    saved = [(owner, dict(vars(owner))) for owner in owners]

    def restore() -> None:
        for owner, attributes in saved:
            current = vars(owner)
            for name in [name for name in current if name not in attributes]:
                delattr(owner, name)
            for name, value in attributes.items():
                if current.get(name, value) is not value or name not in current:
                    setattr(owner, name, value)

    return restore


@functools.cache
def on_release(version: str, snippet: str, code: str) -> list[str]:
    """The lines ``code`` prints when run by Triton ``version`` (the version matrix's copy in
    .cache/matrix/, fetched once from PyPI) on the interpreter, in a subprocess with that release first
    on the path; ``code`` finds the reader's file ``snippet`` run as ``m`` (a dict of its names). One run
    per test session for the same arguments, so a proof and the error gate share it; the test is
    skipped when the release cannot be fetched."""
    import pytest

    from .fresh import run_python_once
    from .matrix import MatrixError, install

    root = Path(__file__).resolve().parent.parent
    try:
        folder = install(root, version)
    except MatrixError as why:
        pytest.skip(str(why))
    prelude = ("import os, warnings; os.environ['TRITON_INTERPRET'] = '1'; import runpy, torch, triton\n"
               f"m = runpy.run_path({str(Path(snippet).resolve())!r})\n")
    done = run_python_once(["-c", prelude + code], {"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"})
    return list(done.stdout.splitlines())


@functools.cache
def pypi_reachable() -> bool:
    """Whether pypi.org answers here: a pip with no index, or a mirror of its own, finds no triton for any
    platform, which a test would take for PyPI's answer."""
    try:
        socket.create_connection(("pypi.org", 443), timeout=10).close()
        return True
    except OSError:
        return False


def needs_pypi() -> None:
    """Skip the calling test where PyPI cannot be reached (the claims are PyPI's answers)."""
    import pytest

    if not pypi_reachable():
        pytest.skip("no PyPI here: pypi.org does not answer")


# where `pip download` would write: pip creates the folder even when it finds nothing, and the tests only ask
# for what PyPI does not have; the folder is removed after each call
NO_DOWNLOAD = os.path.join(tempfile.gettempdir(), "triton-faq-pip-downloads-nothing")


@functools.cache
def pip(*arguments: str) -> list[str]:
    """The lines this Python's pip prints for ``arguments`` (warnings left out); skips without PyPI."""
    import pytest

    needs_pypi()
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *arguments],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip("pip timed out: no PyPI here")
    if NO_DOWNLOAD in arguments:
        shutil.rmtree(NO_DOWNLOAD, ignore_errors=True)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("WARNING")]
    if any("Network is unreachable" in line or "NewConnectionError" in line for line in lines):
        pytest.skip("no PyPI here")
    return lines
