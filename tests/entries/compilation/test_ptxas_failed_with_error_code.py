"""TP086's claims, one test each: snippets/compilation/ptxas_failed_with_error_code.py.

The compiles for sm_90 need no GPU; they run in one fresh process (`in_fresh_process_by_case`) with an
empty kernel cache, ptxas being the one the installed Triton bundles. Windows cannot run here: the
Windows case runs the same real ptxas and changes only the exit status Triton receives, from the 8 bits
Linux keeps of ptxas's -1 (255) to the 32 bits Windows reports (4294967295), so Triton's own code
words the message.
"""

import os
import shlex
import subprocess
from pathlib import Path

import pytest
import torch
import triton

from snippets.compilation import ptxas_failed_with_error_code as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
PREFIX = "" if RELEASE < (3, 3) else "PTXAS error: "  # PTXASError from 3.3; a RuntimeError on 3.2
TYPE = "RuntimeError" if RELEASE < (3, 3) else "PTXASError"
CAUSE = ["error: Unknown modifier '.f32x'", "error: Unexpected instruction types specified for 'add'",
         "fatal: Ptx assembly aborted due to errors"]
WINDOWS_STATUS = 2**32 - 1  # -1 as Windows reports a process's exit status (32 bits); Linux keeps 8: 255


def compile_case(case):
    """What compiling for sm_90 gives (run by `compiled`, in a fresh process)."""
    if case == "fixed":
        error, _ = entry.compile_for_sm_90(entry.add_one_fixed)
        return "compiled" if error is None else str(error)
    if case == "pitfall, as on Windows":
        real_run = subprocess.run

        def as_windows_reports_it(command, *args, **kwargs):
            try:
                return real_run(command, *args, **kwargs)
            except subprocess.CalledProcessError as failed:
                assert failed.returncode == 255, failed.returncode  # ptxas's -1, as Linux keeps it
                raise subprocess.CalledProcessError(WINDOWS_STATUS, failed.cmd) from None

        subprocess.run = as_windows_reports_it
        try:
            error, printed = entry.compile_for_sm_90(entry.add_one_pitfall)
        finally:
            subprocess.run = real_run
    else:
        error, printed = entry.compile_for_sm_90(entry.add_one_pitfall)
    message = str(error)
    repro = next((line for line in message.splitlines() if line.startswith("Repro command: ")), None)
    status = None
    if repro and case == "pitfall":  # the command Triton prints, run again: ptxas's own exit status
        command = shlex.split(repro[len("Repro command: "):])
        status = subprocess.run(command, capture_output=True).returncode
        for made in (command[-3], command[-1]):  # the .ptx Triton left for it, and the .o it did not write
            if os.path.exists(made):
                os.remove(made)
    return {"type": type(error).__name__, "first_line": entry.what_the_app_shows(error),
            "cause": entry.ptxas_errors(error), "has_log": "`ptxas` stderr:" in message,
            "repro": repro, "status": status, "printed": printed}


def compiled(case):
    cases = ["pitfall", "pitfall, as on Windows", "fixed"]
    return in_fresh_process_by_case(Path(__file__), "compile_case", cases, compile_ready=True)[case]["value"]


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_internal_codegen_error():
    return compiled("pitfall")["first_line"]


def reproduce_windows_error_code():
    return compiled("pitfall, as on Windows")["first_line"]


# -- the pitfall: the first line says only that ptxas failed

def test_pitfall_the_first_line_on_linux_is_internal_triton_ptx_codegen_error():
    result = compiled("pitfall")
    assert (result["type"], result["first_line"]) == (TYPE, f"{PREFIX}Internal Triton PTX codegen error")


def test_pitfall_the_same_failure_on_windows_is_failed_with_error_code_4294967295():
    result = compiled("pitfall, as on Windows")
    assert (result["type"], result["first_line"]) == (TYPE, f"{PREFIX}`ptxas` failed with error code 4294967295")


def test_pitfall_ptxas_exits_with_255_when_it_refuses_the_ptx():
    result = compiled("pitfall")
    assert "--gpu-name=sm_90a" in result["repro"] and "/nvidia/bin/ptxas" in result["repro"]
    assert result["status"] == 255 == (-1) & 0xFF


# -- the fix: ptxas's log, in the same message

def test_fix_the_log_follows_the_first_line_on_both_systems():
    for case in ("pitfall", "pitfall, as on Windows"):
        result = compiled(case)
        assert result["has_log"] and result["cause"] == CAUSE, case


def test_from_3_5_triton_also_prints_the_log_to_stdout():
    printed = compiled("pitfall")["printed"]
    if RELEASE >= (3, 5):
        assert "`ptxas` stderr:" in printed and "please share the reproducer above with Triton project" in printed
    else:
        assert printed == ""


def test_fix_ptxas_errors_reads_an_older_gpus_log_too():
    # the lines of a Windows report with a bf16 kernel on an sm_75 GPU (TP066's message), as ptxas writes them
    message = ("`ptxas` failed with error code 4294967295: \n"
               "ptxas C:\\Users\\me\\AppData\\Local\\Temp\\tmpumohz431.ptx, line 387; error   : "
               "Feature '.bf16' requires .target sm_80 or higher\n"
               "ptxas fatal   : Ptx assembly aborted due to errors\n")
    assert entry.ptxas_errors(message) == ["error: Feature '.bf16' requires .target sm_80 or higher",
                                           "fatal: Ptx assembly aborted due to errors"]


def test_fix_the_corrected_ptx_compiles():
    assert compiled("fixed") == "compiled"


@pytest.mark.skipif(entry.DEVICE != "cpu", reason="the interpreter's behaviour")
def test_the_interpreter_cannot_run_inline_ptx():
    x = torch.randn(8)
    with pytest.raises(Exception) as caught:
        entry.add_one(entry.add_one_fixed, x)
    assert "inline_asm not supported in interpreter mode" in str(caught.value) + repr(caught.value.__cause__)


# -- on a GPU: the launch raises the same message, and the fix computes x + 1

@pytest.mark.gpu
def test_gpu_a_launch_of_the_pitfall_raises_the_message():
    with pytest.raises(Exception) as caught:
        entry.add_one(entry.add_one_pitfall, torch.randn(8, device="cuda"))
    assert str(caught.value).splitlines()[0] == f"{PREFIX}Internal Triton PTX codegen error"
    assert entry.ptxas_errors(caught.value) == CAUSE


@pytest.mark.gpu
def test_gpu_fix_matches_float64():
    x = fresh_randn(3000)
    assert_matches_float64(entry.add_one(entry.add_one_fixed, x), x.double() + 1)
