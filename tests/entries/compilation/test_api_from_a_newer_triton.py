"""TP072's claims, one test each: snippets/compilation/api_from_a_newer_triton.py.

The version matrix runs these on Triton 3.2-3.9: the claims about 3.2 are checked there.
"""

import os
import tempfile
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from snippets.compilation import api_from_a_newer_triton as entry
from triton_faq.fresh import run_python_once
from triton_faq.testing import assert_matches_float64, fresh_randn, in_fresh_process_by_case

OLD = not hasattr(tl, "gather")  # Triton 3.2 and older


def inputs(block=64):
    x = fresh_randn(block)
    idx = torch.randperm(block, dtype=torch.int64).to(torch.int32).to(x.device)
    return x, idx


ROOT = Path(__file__).resolve().parents[3]


def reproduce_gather_on_an_older_triton():
    """The reader's file run with Triton 3.2 (from .cache/matrix) on the interpreter: its output."""
    folder = ROOT / ".cache" / "matrix" / "triton-3.2.0"
    if not folder.is_dir():
        pytest.skip("Triton 3.2.0 is not in .cache/matrix (run `triton-faq matrix` once to fetch it)")
    env = dict(os.environ, PYTHONPATH=str(folder), TRITON_INTERPRET="1")
    done = run_python_once([entry.__file__], env, timeout=120)  # once per test run: its test asks for it too
    return done.stdout + done.stderr


def test_the_reader_file_on_triton_3_2_says_it_has_no_gather():
    output = reproduce_gather_on_an_older_triton()
    assert "Triton 3.2.0 has tl.gather: False" in output
    assert "tl.gather kernel: InterpreterError AttributeError(\"module 'triton.language' has no attribute 'gather'\")" in output
    assert "chosen kernel:    [17.0, 16.0, 15.0, 14.0, 13.0, 12.0, 11.0, 10.0]" in output


def offline_case(has_gather):
    """Compile the constexpr-if kernel for sm_90 (no GPU) with HAS_GATHER given; "compiled" or the error."""
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    signature = {"x_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32"}
    constexprs = {"BLOCK": 64, "HAS_GATHER": has_gather}
    if not triton.__version__.startswith("3.2."):
        signature.update({name: "constexpr" for name in constexprs})
    source = triton.compiler.ASTSource(JITFunction(entry.permute_constexpr_if.fn), signature, constexprs)
    try:
        triton.compile(source, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    except Exception as error:
        return f"{type(error).__name__}: {str(error).strip().splitlines()[-1]}"
    return "compiled"


# the first release (of 3.2-3.9) whose triton.language has the name: the page's table
ADDED = {"gather": (3, 3), "topk": (3, 4), "make_tensor_descriptor": (3, 4), "map_elementwise": (3, 5),
         "squeeze": (3, 7), "unsqueeze": (3, 7), "atomic_load": (3, 9)}


def test_names_exist_from_the_release_the_table_says():
    installed = tuple(int(part) for part in triton.__version__.split(".")[:2])
    assert {name: hasattr(tl, name) for name in ADDED} == {name: installed >= first for name, first in ADDED.items()}


def test_gather_exists_from_triton_3_3():
    """The matrix row of this test is the answer to 'since which release': fails on 3.2, passes after."""
    assert hasattr(tl, "gather")


def test_pitfall_an_older_triton_has_no_gather():
    if not OLD:
        pytest.skip(f"Triton {triton.__version__} has tl.gather; the matrix runs this on 3.2")
    with pytest.raises(Exception, match="module 'triton.language' has no attribute 'gather'"):
        entry.run(entry.permute_gather, *inputs())


def test_a_constexpr_if_does_not_hide_the_missing_name_when_compiled():
    result = in_fresh_process_by_case(Path(__file__), "offline_case", [False], compile_ready=True)[False]
    if OLD:
        assert "module 'triton.language' has no attribute 'gather'" in result["value"]
    else:
        assert result["value"] == "compiled"


@pytest.mark.parametrize("block", [8, 64, 256])
def test_fix_matches_float64_on_every_release(block):
    x, idx = inputs(block)
    assert_matches_float64(entry.run(entry.permute, x, idx), x.double()[idx.long()])
    assert_matches_float64(entry.run(entry.permute_load, x, idx), x.double()[idx.long()])
