"""GPU evidence: what a snippet measures or observes on a real GPU, for the pages to render.

A snippet marks a function with ``@gpu_evidence("name")``. ``triton-faq bench`` runs every such
function on a CUDA GPU and stores what it returns in ``data/``; pages show it through the
marker ``<!-- gpu-data: name -->``. A function returns a table::

    {"columns": [label("block", "block"), label("GB/s", "GB/s")], "rows": [[128, 2710.5], ...]}

where each column label carries both languages, and cells are numbers, strings or booleans.
"""

from __future__ import annotations

import re
from typing import Callable

ATTRIBUTE = "__gpu_evidence__"


def gpu_evidence(name: str) -> Callable:
    """Register the decorated zero-argument function as the evidence called ``name``."""

    def mark(function: Callable) -> Callable:
        setattr(function, ATTRIBUTE, name)
        return function

    return mark


def label(en: str, zh: str, key: str | None = None) -> dict:
    """A column label in both languages; ``key`` names the column for checks and charts."""
    column = {"en": en, "zh": zh}
    if key is not None:
        column["key"] = key
    return column


BANDWIDTH_KEYS = ("gbps", "fraction_of_ceiling")
"""The columns that make a table memory-bound: such a table records a ``ceiling_gbps`` of the same run
(torch's copy measured in that run: the reference the fraction is of, not a physical ceiling). A table
of times alone (an atomic's cost against torch's op) needs none."""


def memory_bound_columns() -> list[dict]:
    """The standard timing columns of a memory-bound benchmark, in both languages."""
    return [
        label("p20 ms", "p20 毫秒", "p20_ms"),
        label("median ms", "中位数 毫秒", "median_ms"),
        label("p80 ms", "p80 毫秒", "p80_ms"),
        label("GB/s", "GB/s", "gbps"),
        label("fraction of torch's copy (reference)", "占 torch 拷贝（参考值）的比例", "fraction_of_ceiling"),
    ]


def memory_bound_cells(timing: dict, bytes_moved: int, ceiling_gbps: float) -> list[float]:
    """Cells for ``memory_bound_columns`` from a ``median_ms`` timing and the bytes one run moves."""
    gbps = bytes_moved / (timing["median_ms"] * 1e-3) / 1e9
    return [timing["p20_ms"], timing["median_ms"], timing["p80_ms"], gbps, gbps / ceiling_gbps]


LINK_LIKE = re.compile(r"\]\(")  # kernel[grid](...) is a link to "..." in Markdown


def table(columns: list[dict], rows: list[list], chart: dict | None = None, **extra) -> dict:
    """Check and build an evidence table: every row as wide as the header.

    ``chart={"x": key, "y": key, "series": key, "mark": key}`` asks the page for an SVG line chart
    of column ``y`` against column ``x``, one line per value of column ``series``, with the rows
    whose boolean column ``mark`` is true circled. Extra keywords (``ceiling_gbps``,
    ``n_elements``...) are stored beside the table.
    """
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row {row!r} has {len(row)} cells for {len(columns)} columns")
        for value in row:
            if isinstance(value, str) and LINK_LIKE.search(value) and not value.startswith("``"):
                raise ValueError(f"cell {value!r} would render as a Markdown link: write it as code, "
                                 f"'`` {value} ``'")
    keys = {column.get("key") for column in columns}
    if any(key in keys for key in BANDWIDTH_KEYS) and "ceiling_gbps" not in extra:
        raise ValueError("a memory-bound table records the copy ceiling of its run as ceiling_gbps")
    if chart is not None:
        missing = {v for v in chart.values() if v is not None} - keys
        if missing:
            raise ValueError(f"chart names columns {sorted(missing)} that the table lacks")
        extra["chart"] = chart
    return {"columns": columns, "rows": rows, **extra}


def median_ms(fn: Callable[[], object]) -> dict:
    """p20, median and p80 of ``fn`` in milliseconds (CUDA events through do_bench)."""
    import triton.testing

    p20, p50, p80 = triton.testing.do_bench(fn, warmup=25, rep=200, quantiles=[0.2, 0.5, 0.8])
    return {"p20_ms": p20, "median_ms": p50, "p80_ms": p80}


def copy_ceiling_gbps(n_bytes: int = 2**30) -> float:
    """torch's device-to-device copy (bytes read plus written per second), measured now.

    A measured reference, not a bound: a plain elementwise kernel can beat it by a few percent.
    The physical limit of the H200's memory is HBM3e's 4.8 TB/s (NVIDIA's datasheet).
    """
    import torch  # here, not at the top: the site's hooks import this package and need no torch

    src = torch.empty(n_bytes // 4, dtype=torch.float32, device="cuda").normal_()
    dst = torch.empty_like(src)
    timing = median_ms(lambda: dst.copy_(src))
    return 2 * n_bytes / (timing["median_ms"] * 1e-3) / 1e9
