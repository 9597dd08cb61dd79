"""TP004's GPU evidence (`triton-faq bench`): how each overrun ends in a child process on the GPU."""

from snippets.out_of_bounds import what_an_overrun_does as entry
from triton_faq.evidence import gpu_evidence, label, table


def after(prefix: str, lines: list[str]) -> str:
    """What follows `prefix` on the first line that starts with it, or "" when no line does."""
    return next((line.removeprefix(prefix) for line in lines if line.startswith(prefix)), "")


def code(text: str) -> str:
    """`text` as inline code for a table cell (a captured line may hold brackets or a backtick)."""
    return f"`` {text} ``" if text else ""


@gpu_evidence("overrun-outcomes")
def observe_overrun_outcomes():
    """How each overrun ends in a child process on the GPU, with and without CUDA_LAUNCH_BLOCKING=1."""
    rows = []
    for distance, offset in [("near", code(f"NEAR = {entry.NEAR}")), ("far", code(f"FAR = {entry.FAR}"))]:
        for blocking in [False, True]:
            child = entry.run_child(distance, CUDA_LAUNCH_BLOCKING="1") if blocking else entry.run_child(distance)
            lines = child.stdout.splitlines()
            failed_at = after("failed at: ", lines)
            runtime_error = after("is a RuntimeError: ", lines)
            rows.append([offset, blocking, child.returncode, "launch returned" in lines,
                         "finished without an error" in lines, code(failed_at),
                         runtime_error == "True" if runtime_error else "", code(after("error: ", lines))])
    return table(
        [label("offset (elements)", "偏移（元素数）"), label("CUDA_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=1"),
         label("return code", "返回码"), label("printed \"launch returned\"", "打印了 \"launch returned\""),
         label("printed \"finished without an error\"", "打印了 \"finished without an error\""),
         label("failed at", "出错的语句"), label("a RuntimeError", "是 RuntimeError"),
         label("error text (first line)", "错误信息（第一行）")],
        rows,
    )
