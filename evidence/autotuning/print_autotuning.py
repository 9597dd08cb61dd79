"""TP019's GPU evidence (`triton-faq bench`): what TRITON_PRINT_AUTOTUNING=1 prints on the GPU."""

import contextlib
import functools
import io
import os
import re

from snippets.autotuning import print_autotuning as entry
from triton_faq.evidence import gpu_evidence, label, table

RESOURCE_WORDS = re.compile(r"regist|shared|occupan|spill|smem", re.IGNORECASE)


@functools.lru_cache(maxsize=None)
def run_with_print_autotuning():
    """entry.print_demo()'s output with TRITON_PRINT_AUTOTUNING=1, split at its marker line (once per process)."""
    printed = io.StringIO()
    os.environ["TRITON_PRINT_AUTOTUNING"] = "1"
    try:
        with contextlib.redirect_stdout(printed):
            entry.print_demo()
    finally:
        os.environ.pop("TRITON_PRINT_AUTOTUNING", None)
    bare, tuned = printed.getvalue().split(entry.MARKER + "\n")
    return bare, tuned


@gpu_evidence("print-autotuning-output")
def observe_printed_lines():
    """The first 20 lines printed after the marker, with TRITON_PRINT_AUTOTUNING=1."""
    _, tuned = run_with_print_autotuning()
    return table([label("printed line", "打印的行")], [[line] for line in tuned.splitlines()[:20]])


@gpu_evidence("print-autotuning-counts")
def count_printed_lines():
    """How much the same run printed, and whether any of it names a resource."""
    bare, tuned = run_with_print_autotuning()
    lines = tuned.splitlines()
    row = [
        len(bare.splitlines()),
        len(lines),
        sum(line.startswith("Autotuning kernel") for line in lines),
        sum(line.startswith("Triton autotuning for function") for line in lines),
        sum(bool(RESOURCE_WORDS.search(line)) for line in lines),
    ]
    return table(
        [label("lines, bare @triton.jit", "裸 @triton.jit 的行数"),
         label("lines, @triton.autotune", "@triton.autotune 的行数"),
         label('lines "Autotuning kernel …"', "“Autotuning kernel …” 行数"),
         label('lines "Triton autotuning for function …"', "“Triton autotuning for function …” 行数"),
         label("lines naming regist, shared, occupan, spill or smem",
               "匹配 regist、shared、occupan、spill、smem 的行数")],
        [row],
    )
