"""TP034: tl.argmax / tl.argmin with tie_break_left=False."""

import ast

from ..core import Rule, keyword
from ._common import kernels

RULE = Rule("TP034", "reductions/argmax-ties", False,
            "tl.argmax / tl.argmin with tie_break_left=False: which of tied indices is unspecified")


def check(f):
    for s in kernels(f):
        for call in s.calls:
            name = f.tl(call.func, s)
            tie = keyword(call, "tie_break_left")
            if name in ("argmax", "argmin") and isinstance(tie, ast.Constant) and tie.value is False:
                yield call, (f"tl.{name}(..., tie_break_left=False) returns any of the tied indices; the default "
                             "(True) returns the first")


BAD = ['''
@triton.jit
def k(x_ptr, o_ptr, B: tl.constexpr):
    tl.store(o_ptr, tl.argmax(tl.load(x_ptr + tl.arange(0, B)), 0, tie_break_left=False))
''']
GOOD = ['''
@triton.jit
def k(x_ptr, o_ptr, B: tl.constexpr):
    tl.store(o_ptr, tl.argmax(tl.load(x_ptr + tl.arange(0, B)), 0))
''']
