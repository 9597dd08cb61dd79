"""TP024's GPU evidence (`triton-faq bench`): where the wrapped block goes, and what TRITON_DEBUG=1 prints."""

import os
from pathlib import Path

from snippets.out_of_bounds import int32_offset_overflow as entry
from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(entry.__file__).resolve().parents[2]


def first_line_with(text: str, output: str) -> str:
    """The first line of `output` containing `text`, without this repository's path, as inline code."""
    line = next((line for line in output.splitlines() if text in line), "")
    return f"`` {line.strip().replace(str(ROOT) + os.sep, '')} ``" if line else ""


@gpu_evidence("beyond-2-31")
def observe_beyond_2_31():
    """Where each kernel's last block went on float16 tensors of 2**31 + 1024 elements."""
    import torch

    rows = []
    for name in ["scale_pitfall", "scale"]:
        r = entry.launch_big(getattr(entry, name))
        last = r["y_tail"][-entry.BLOCK:]
        rows.append([f"`{name}`", int((~torch.isnan(last)).sum()),
                     bool(torch.equal(last, r["x_tail"][-entry.BLOCK:] * 2)),
                     int((~torch.isnan(r["y_before"])).sum()), not r["rest_before_y_is_nan"]])
    return table(
        [label("kernel", "kernel"), label("elements of y's last block written", "y 最后一个 block 写入的元素数"),
         label("y's last block = 2 * x's", "y 最后一个 block = 2 * x"),
         label("elements written in y[-2**31 : -2**31 + 1024]", "写入 y[-2**31 : -2**31 + 1024] 的元素数"),
         label("anything written further before y", "更靠前的位置也被写了")],
        rows, n_elements=entry.N_BIG,
    )


@gpu_evidence("triton-debug-overflow")
def observe_triton_debug_overflow():
    """What TRITON_DEBUG=1 prints for `pid * stride` in int32 and in int64 (child processes)."""
    rows = []
    for name, flags in [("`row_offsets`", ()), ("`row_offsets_int64`", ("--int64",))]:
        child = entry.run_child(*flags, TRITON_DEBUG="1")
        output = child.stdout + child.stderr
        rows.append([name, child.returncode, first_line_with("offsets:", child.stdout),
                     first_line_with("Assertion", output), first_line_with("device-side assert", child.stderr)])
    return table(
        [label("kernel", "kernel"), label("return code", "返回码"), label("printed offsets", "打印的偏移"),
         label("first line quoting the assertion", "第一行引用断言的输出"),
         label("first stderr line with \"device-side assert\"", "stderr 中第一行含 \"device-side assert\" 的")],
        rows,
    )
