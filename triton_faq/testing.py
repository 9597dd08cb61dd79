"""Helpers shared by every snippet's tests: poisoned outputs and float64 references."""

from __future__ import annotations

import torch

from .backend import DEVICE

POISON = float("nan")


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


def in_fresh_process(snippet, function: str, calls: list[tuple]) -> list[dict]:
    """Call ``function`` of ``snippet`` once per argument tuple, in one new Python process.

    For code that must not share a process with interpreted kernels: the interpreter patches
    ``triton.language`` in place, which breaks Triton's real compiler later in the same process.
    Each result is ``{"value": ...}`` (JSON-able; sets become sorted lists) or
    ``{"error": "<exception class>", "message": "<text>"}``.
    """
    import json
    import subprocess
    import sys

    program = (
        "import json, runpy, sys\n"
        "namespace = runpy.run_path(sys.argv[1])\n"
        "results = []\n"
        "for args in json.loads(sys.argv[3]):\n"
        "    try:\n"
        "        value = namespace[sys.argv[2]](*args)\n"
        "        results.append({'value': sorted(value) if isinstance(value, set) else value})\n"
        "    except Exception as error:\n"
        "        results.append({'error': type(error).__name__, 'message': str(error)})\n"
        "print(json.dumps(results))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(snippet), function, json.dumps(calls)],
        capture_output=True, text=True, timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"fresh process for {function} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])
