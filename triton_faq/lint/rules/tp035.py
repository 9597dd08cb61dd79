"""TP035: tl.dot with no input_precision, on operands that may be float32."""

import ast

from ..core import Rule, keyword
from ._common import kernels

RULE = Rule("TP035", "matmul/float32-dot-runs-as-tf32", False,
            "tl.dot without input_precision: float32 inputs run as TF32 on NVIDIA GPUs (assumes float32)")

NARROW = ("bfloat16", "float16", "float8e4nv", "float8e5", "float8e4b15", "int8", "uint8", "float8e4b8", "float8e5b16")


def narrow(f, s, node) -> bool:
    """A cast to (or a dtype of) 16 bits or fewer flows into the operand."""
    return any(isinstance(sub, ast.Attribute) and sub.attr in NARROW for sub in s.subtree(node))


def check(f):
    for s in kernels(f):
        for call in s.calls:
            if f.tl(call.func, s) != "dot" or keyword(call, "input_precision") is not None \
                    or keyword(call, "allow_tf32") is not None or len(call.args) < 2:
                continue
            if narrow(f, s, call.args[0]) or narrow(f, s, call.args[1]):
                continue
            yield call, ("tl.dot without input_precision runs float32 inputs as TF32 on NVIDIA GPUs (assumed float32 "
                         "inputs; pass input_precision=\"ieee\" for full precision)")


BAD = ['''
@triton.jit
def k(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    a = tl.load(a_ptr + i[:, None] * B + i[None, :])
    b = tl.load(b_ptr + i[:, None] * B + i[None, :])
    tl.store(c_ptr + i[:, None] * B + i[None, :], tl.dot(a, b))
''']
GOOD = ['''
@triton.jit
def k(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    i = tl.arange(0, B)
    a = tl.load(a_ptr + i[:, None] * B + i[None, :]).to(tl.bfloat16)
    b = tl.load(b_ptr + i[:, None] * B + i[None, :]).to(tl.bfloat16)
    tl.store(c_ptr + i[:, None] * B + i[None, :], tl.dot(a, b))
''']
