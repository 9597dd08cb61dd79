"""TP087's claims, one test each: snippets/math_functions/multiply_add_fused_or_not.py.

The compiles for sm_90 need no GPU (`compile_offline`, read by the reader's `roundings`): they run in one fresh process (`in_fresh_process_by_case`), in an
empty kernel cache, in the order of CASES, so that Triton 3.9's once-per-process warning is looked for
after the settings that must not print it (the default, the only one that may, comes last). Each compile is read twice: its PTX (fma.rn.f32, or mul.rn.f32
and add.rn.f32) and its machine code, disassembled by the nvdisasm Triton bundles (FFMA, or FMUL and
FADD). The values come from the interpreter here and from a GPU in the tests marked gpu.
"""

import os
import re
import subprocess
import tempfile
import warnings
from pathlib import Path

import pytest
import triton

from snippets.math_functions import multiply_add_fused_or_not as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case, compile_offline, on_release

RELEASE = tuple(int(part) for part in triton.__version__.split(".")[:2])
INTERPRETED = entry.DEVICE == "cpu"
EXACT = 2**-24  # a * b + c of cancelling_inputs, computed exactly
WARNING = ("TRITON_DEFAULT_FP_FUSION is unset: defaulting to FP fusion ENABLED for backward compatibility in "
           "Triton 3.9. The default will change to DISABLED in Triton 3.10; set TRITON_DEFAULT_FP_FUSION=1 to "
           "keep fusion enabled or =0 to adopt the new default early and silence this warning.")

SIGNATURE = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}

CASES = {  # case: (kernel, TRITON_DEFAULT_FP_FUSION or None for unset, launch options)
    "environment 1": ("mul_add_pitfall", "1", {}),
    "environment 0": ("mul_add_pitfall", "0", {}),
    "enable_fp_fusion=False": ("mul_add_pitfall", None, {"enable_fp_fusion": False}),
    "tl.fma, enable_fp_fusion=False": ("mul_add_fixed", None, {"enable_fp_fusion": False}),
    "tl.fma, environment 0": ("mul_add_fixed", "0", {}),
    "environment 0, enable_fp_fusion=True": ("mul_add_pitfall", "0", {"enable_fp_fusion": True}),
    "forced off, enable_fp_fusion=True": ("mul_add_pitfall", "force", {"enable_fp_fusion": True}),
    "tl.fma, forced off": ("mul_add_fixed", "force", {}),
    "default": ("mul_add_pitfall", None, {}),  # last: the only one that may print 3.9's warning
}


def machine_code(compiled):
    """The counts of FFMA / FMUL / FADD in the sm_90 machine code."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(compiled.asm["cubin"])
        cubin.flush()
        nvdisasm = Path(triton.backends.nvidia.__file__).parent / "bin" / "nvdisasm"
        sass = subprocess.run([str(nvdisasm), cubin.name], capture_output=True, text=True, check=True).stdout
    return {op: len(re.findall(rf"\b{op}\b", sass)) for op in ("FFMA", "FMUL", "FADD")}


def compile_case(case):
    """What compiling for sm_90 gives under one setting (run by `compiled`, in a fresh process)."""
    name, environment, options = CASES[case]
    os.environ.pop("TRITON_DEFAULT_FP_FUSION", None)
    os.environ.pop("TRITON_FORCE_DISABLE_FP_FUSION", None)
    if environment == "force":
        os.environ["TRITON_FORCE_DISABLE_FP_FUSION"] = "1"  # read from 3.9
    elif environment is not None:
        os.environ["TRITON_DEFAULT_FP_FUSION"] = environment
    kernel = getattr(entry, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = compile_offline(kernel, SIGNATURE, {"BLOCK": 1024}, options=options).compiled
    return {"roundings": entry.roundings(compiled.asm["ptx"]), "sass": machine_code(compiled),
            "warnings": [str(w.message) for w in caught if "FP_FUSION" in str(w.message)]}


def compiled(case):
    return in_fresh_process_by_case(Path(__file__), "compile_case", list(CASES), compile_ready=True)[case]["value"]


def warnings_of_triton_3_9():
    """The FP-fusion warnings of a compile with the default setting, by Triton 3.9."""
    return on_release("3.9.0", entry.__file__, (
        "print(triton.__version__)\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always'); m['roundings_compiled'](m['mul_add_pitfall'])\n"
        "print(*[str(w.message) for w in caught if 'FP_FUSION' in str(w.message)], sep='\\n')"))


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_fp_fusion_warning_on_triton_3_9():
    return "\n".join(warnings_of_triton_3_9())


def test_triton_3_9_prints_the_warning_at_a_compile_with_the_default():
    assert warnings_of_triton_3_9() == ["3.9.0", WARNING]


ONE = {"FFMA": 8, "FMUL": 0, "FADD": 0}  # the kernel's eight float32 lanes per thread, each one FFMA
TWO = {"FFMA": 0, "FMUL": 8, "FADD": 8}


# -- the pitfall: a * b + c is fused by default (3.2-3.9), and the default is a setting

def test_pitfall_by_default_a_times_b_plus_c_compiles_to_one_fma():
    result = compiled("default")
    assert (result["roundings"], result["sass"]) == ("one (fma)", ONE)


def test_pitfall_triton_default_fp_fusion_0_compiles_it_to_a_multiply_and_an_add():
    result = compiled("environment 0")
    assert (result["roundings"], result["sass"]) == ("two (mul, add)", TWO)


def test_triton_default_fp_fusion_1_keeps_the_fma():
    result = compiled("environment 1")
    assert (result["roundings"], result["sass"]) == ("one (fma)", ONE)


def test_enable_fp_fusion_false_at_the_launch_compiles_a_multiply_and_an_add():
    result = compiled("enable_fp_fusion=False")
    assert (result["roundings"], result["sass"]) == ("two (mul, add)", TWO)


def test_the_launch_option_wins_over_the_variable():
    result = compiled("environment 0, enable_fp_fusion=True")
    assert (result["roundings"], result["sass"]) == ("one (fma)", ONE)


def test_from_3_9_triton_force_disable_fp_fusion_wins_over_the_launch_option_but_not_tl_fma():
    forced = compiled("forced off, enable_fp_fusion=True")
    assert (forced["roundings"], forced["sass"]) == (("two (mul, add)", TWO) if RELEASE >= (3, 9) else ("one (fma)", ONE))
    fma = compiled("tl.fma, forced off")
    assert (fma["roundings"], fma["sass"]) == ("one (fma)", ONE)


def test_triton_3_9_warns_once_when_the_default_decides():
    for case in ("environment 1", "environment 0", "enable_fp_fusion=False", "environment 0, enable_fp_fusion=True",
                 "forced off, enable_fp_fusion=True", "tl.fma, forced off"):
        assert compiled(case)["warnings"] == [], case
    assert compiled("default")["warnings"] == ([WARNING] if RELEASE >= (3, 9) else [])


# -- the fix: tl.fma is one fma whatever the setting

def test_fix_tl_fma_stays_one_fma_with_fusion_off():
    for case in ("tl.fma, enable_fp_fusion=False", "tl.fma, environment 0"):
        result = compiled(case)
        assert (result["roundings"], result["sass"]) == ("one (fma)", ONE), case


def test_the_example_loses_its_only_bit_when_the_product_is_rounded_first():
    a, b, c = (t.cpu() for t in entry.cancelling_inputs())
    assert (a.double() * b.double() + c.double()).tolist() == [EXACT] * 4  # exact: the product fits in float64
    assert (a * b + c).tolist() == [0.0] * 4  # float32: a * b rounds to 1 + 2**-11 first


def test_fix_matches_float64():
    a, b, c = fresh_randn(5000), fresh_randn(5000), fresh_randn(5000)
    assert_matches_float64(entry.mul_add(entry.mul_add_fixed, a, b, c), a.double() * b.double() + c.double())


# -- the interpreter computes with NumPy

@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's arithmetic")
def test_the_interpreter_never_fuses_a_times_b_plus_c():
    a, b, c = entry.cancelling_inputs()
    assert entry.mul_add(entry.mul_add_pitfall, a, b, c).tolist() == [0.0] * 4
    assert entry.mul_add(entry.mul_add_pitfall, a, b, c, enable_fp_fusion=True).tolist() == [0.0] * 4


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's arithmetic")
def test_the_interpreters_tl_fma_rounds_twice_up_to_3_8_and_once_from_3_9():
    a, b, c = entry.cancelling_inputs()
    assert entry.mul_add(entry.mul_add_fixed, a, b, c).tolist() == [EXACT if RELEASE >= (3, 9) else 0.0] * 4


# -- on a GPU: the values

@pytest.mark.gpu
def test_gpu_the_default_gives_the_exact_value_and_fusion_off_gives_0():
    a, b, c = entry.cancelling_inputs()
    assert entry.mul_add(entry.mul_add_pitfall, a, b, c).tolist() == [EXACT] * 4  # 3.2-3.9: fused by default
    assert entry.mul_add(entry.mul_add_pitfall, a, b, c, enable_fp_fusion=False).tolist() == [0.0] * 4


@pytest.mark.gpu
def test_gpu_fix_tl_fma_gives_the_exact_value_with_fusion_off():
    a, b, c = entry.cancelling_inputs()
    assert entry.mul_add(entry.mul_add_fixed, a, b, c, enable_fp_fusion=False).tolist() == [EXACT] * 4
