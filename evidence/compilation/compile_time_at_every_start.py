"""TP070's GPU evidence (`triton-faq bench`): what a process start pays with an empty cache and with a kept one."""

import tempfile

from snippets.compilation import compile_time_at_every_start as entry
from triton_faq.evidence import gpu_evidence, label, table


@gpu_evidence("start-costs")
def start_costs():
    """New Python processes, one after another, on one cache folder that starts empty: the first launches' seconds."""
    rows = []
    for what, function in (("Triton kernel + autotuned kernel (6 configs)", "timed_job"),
                           ("torch.compile'd softmax", "timed_torch_compile")):
        with tempfile.TemporaryDirectory() as cache:
            for start in ("1st start, empty cache", "2nd start, same cache", "3rd start, same cache"):
                result = entry.fresh_process(function, cache)
                rows.append([what, start, result["first"], result["again"], result.get("benchmarked", "")])
    columns = [label("what the process runs", "进程运行的内容", "what"), label("start", "启动", "start"),
               label("first call, s", "首次调用（秒）", "first_s"), label("second call, s", "第二次调用（秒）", "again_s"),
               label("autotuner benchmarked", "autotuner 是否跑了基准", "benchmarked")]
    return table(columns, rows)
