"""GPU evidence: what a snippet measures or observes on a real GPU, for the pages to render.

A snippet marks a function with ``@gpu_evidence("name")``. ``triton-faq bench`` runs every such
function on a CUDA GPU and stores what it returns in ``data/``; pages show it through the
marker ``<!-- gpu-data: name -->``. A function returns a table::

    {"columns": [label("block", "block"), label("GB/s", "GB/s")], "rows": [[128, 2710.5], ...]}

where each column label carries both languages, and cells are numbers, strings or booleans.
"""

from __future__ import annotations

from typing import Callable

import torch

ATTRIBUTE = "__gpu_evidence__"


def gpu_evidence(name: str) -> Callable:
    """Register the decorated zero-argument function as the evidence called ``name``."""

    def mark(function: Callable) -> Callable:
        setattr(function, ATTRIBUTE, name)
        return function

    return mark


def label(en: str, zh: str) -> dict:
    """A column label in both languages."""
    return {"en": en, "zh": zh}


def table(columns: list[dict], rows: list[list], **extra) -> dict:
    """Check and build an evidence table: every row as wide as the header."""
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row {row!r} has {len(row)} cells for {len(columns)} columns")
    return {"columns": columns, "rows": rows, **extra}


def median_ms(fn: Callable[[], object]) -> dict:
    """p20, median and p80 of ``fn`` in milliseconds (CUDA events through do_bench)."""
    import triton.testing

    p20, p50, p80 = triton.testing.do_bench(fn, warmup=25, rep=200, quantiles=[0.2, 0.5, 0.8])
    return {"p20_ms": p20, "median_ms": p50, "p80_ms": p80}


def copy_ceiling_gbps(n_bytes: int = 2**30) -> float:
    """Device-to-device copy bandwidth (bytes read plus written per second), measured now."""
    src = torch.empty(n_bytes // 4, dtype=torch.float32, device="cuda").normal_()
    dst = torch.empty_like(src)
    timing = median_ms(lambda: dst.copy_(src))
    return 2 * n_bytes / (timing["median_ms"] * 1e-3) / 1e9
