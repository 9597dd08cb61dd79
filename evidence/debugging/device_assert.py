"""TP014's GPU evidence (`triton-faq bench`): how a failing device assert ends, per way of asking for debug mode."""

import os
import subprocess
import sys
from pathlib import Path

from triton_faq.evidence import gpu_evidence, label, table

ROOT = Path(__file__).resolve().parents[2]

# A failed device assert leaves the CUDA context unusable, so each case runs in a child process.
CHILD = """
import sys, torch
from snippets.debugging import device_assert as entry
mode = sys.argv[1]
if mode in ("tail", "tail-mask"):
    x = torch.ones(3, device="cuda")  # every element passes `x > 0`; the padding lane does not
    kernel = entry.add_one_tail_masked_assert if mode == "tail-mask" else entry.add_one_tail
    kernel[(1,)](x, 3, BLOCK=4)
else:
    x = torch.zeros(4, device="cuda")
    kernel = entry.add_one_checked_debug if mode == "jit-debug" else entry.add_one_checked
    if mode == "launch-debug":
        kernel[(1,)](x, BLOCK=4, debug=True)  # debug mode asked for at the launch
    else:
        kernel[(1,)](x, BLOCK=4)
torch.cuda.synchronize()  # a device assert surfaces here as a CUDA error
print("kernel finished:", x.cpu().tolist(), flush=True)
"""


def run_child(mode, **env):
    environ = {k: v for k, v in os.environ.items() if k not in ("TRITON_DEBUG", "TRITON_INTERPRET")}
    return subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**environ, "PYTHONPATH": str(ROOT), **env},
    )


def first_line_with(text, output):
    """The first line of `output` that contains `text`, without this repository's path; "" if none."""
    line = next((line for line in output.splitlines() if text in line), "")
    return f"`` {line.strip().replace(str(ROOT) + os.sep, '')} ``" if line else ""  # may hold a backtick


@gpu_evidence("device-assert-outcomes")
def observe_device_assert_outcomes():
    """How a failing device assert ends in a child process on the GPU, per way of asking for debug mode."""
    rows = []
    cases = [("@triton.jit", "plain", {}), ("@triton.jit + TRITON_DEBUG=1", "plain", {"TRITON_DEBUG": "1"}),
             ("@triton.jit(debug=True)", "jit-debug", {}),
             ("@triton.jit, debug=True at the launch", "launch-debug", {}),
             ("TRITON_DEBUG=1, masked load, assert without mask=", "tail", {"TRITON_DEBUG": "1"}),
             ("TRITON_DEBUG=1, masked load, assert with mask=", "tail-mask", {"TRITON_DEBUG": "1"})]
    for how, mode, env in cases:
        result = run_child(mode, **env)
        rows.append([f"`{how}`", result.returncode, first_line_with("kernel finished", result.stdout),
                     first_line_with("Assertion", result.stdout + result.stderr),
                     first_line_with("device-side assert", result.stderr)])
    return table(
        [label("debug mode", "调试模式"), label("return code", "返回码"),
         label("stdout: kernel finished", "stdout：kernel finished"),
         label("first line quoting the assertion (stdout, stderr)", "第一行引用断言的输出（stdout、stderr）"),
         label("first stderr line with \"device-side assert\"", "stderr 中第一行含 \"device-side assert\" 的")],
        rows,
    )
