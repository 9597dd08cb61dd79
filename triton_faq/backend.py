"""The one place that decides where kernels run.

Import this module before ``triton``. It picks

* ``cuda`` when PyTorch sees a CUDA GPU, otherwise
* ``interpreter``: Triton's CPU interpreter (``TRITON_INTERPRET=1``) on CPU tensors.

``TRITON_FAQ_BACKEND=cuda|interpreter`` overrides the choice; ``TRITON_INTERPRET=1`` set by
hand also means ``interpreter``.
"""

from __future__ import annotations

import os
import sys

import torch

OVERRIDE_VARIABLE = "TRITON_FAQ_BACKEND"
BACKENDS = ("cuda", "interpreter")


class BackendError(RuntimeError):
    """The backend asked for cannot be used on this machine."""


def choose(environ=os.environ, cuda_available=torch.cuda.is_available) -> str:
    """Return the backend name for this process, from the environment and the hardware."""
    asked = environ.get(OVERRIDE_VARIABLE, "").strip().lower()
    if asked and asked not in BACKENDS:
        raise BackendError(
            f"{OVERRIDE_VARIABLE}={asked!r} is not a backend; use one of: {', '.join(BACKENDS)}"
        )
    if asked == "cuda" and not cuda_available():
        raise BackendError(
            f"{OVERRIDE_VARIABLE}=cuda but PyTorch sees no CUDA GPU; unset it to use the interpreter"
        )
    if asked:
        return asked
    if environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        return "interpreter"
    return "cuda" if cuda_available() else "interpreter"


def _activate(name: str) -> None:
    if name == "interpreter":
        if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
            # Kernels decorated before this point were compiled for a GPU: refuse loudly.
            raise BackendError("import triton_faq.backend before triton to use the interpreter")
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)


try:
    BACKEND = choose()
    _activate(BACKEND)
except BackendError as error:  # a clear line, not a traceback
    raise SystemExit(f"triton-faq: {error}") from None
DEVICE = "cuda" if BACKEND == "cuda" else "cpu"


MARKERS = {  # test marker -> the one backend its tests run on, and why they are skipped elsewhere
    "gpu": ("cuda", "gpu: needs the CUDA backend (run on a machine with an NVIDIA GPU)"),
    "interpreter": ("interpreter", "interpreter: needs TRITON_FAQ_BACKEND=interpreter"),
}


def skip_reason(markers) -> str | None:
    """Why a test carrying these marker names cannot run on this process's backend, or None."""
    for name in markers:
        if name in MARKERS and MARKERS[name][0] != BACKEND:
            return MARKERS[name][1]
    return None


def describe() -> str:
    """One line naming the backend, the GPU and the library versions."""
    import triton

    gpu = torch.cuda.get_device_name(0) if BACKEND == "cuda" else "none (CPU tensors)"
    return f"backend: {BACKEND}; GPU: {gpu}; torch {torch.__version__}; triton {triton.__version__}"


if os.environ.get("TRITON_FAQ_CHECKED", "").strip():
    from triton_checked import CheckedModeUnavailable, from_environment

    try:
        from_environment(variable="TRITON_FAQ_CHECKED")
    except CheckedModeUnavailable as error:  # a clear line, not a traceback
        raise SystemExit(f"triton-faq: {error}") from None
