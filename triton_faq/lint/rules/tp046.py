"""TP046: Python's max / min / abs on blocks inside a kernel."""

import ast

from ..core import Rule
from ..values import is_block
from ._common import kernels

RULE = Rule("TP046", "language/builtin-min-max-abs", True,
            "Python's max / min / abs on a block in a kernel: wrong in the interpreter (abs fails compiled too)")

FIX = {"max": "tl.maximum", "min": "tl.minimum", "abs": "tl.abs"}


def check(f):
    for s in kernels(f):
        for call in s.calls:
            func = call.func
            if not isinstance(func, ast.Name) or func.id not in FIX or func.id in s.locals \
                    or func.id in f.aliases or func.id in f.functions or func.id in f.kernels:
                continue
            if any(is_block(f, s, arg) for arg in call.args):
                what = ("fails on a block: NameError compiled, TypeError interpreted" if func.id == "abs" else
                        "on blocks is Python's own under TRITON_INTERPRET=1 and returns its second argument whole")
                yield call, f"Python's {func.id}() {what}; use {FIX[func.id]}"


BAD = ['''
@triton.jit
def relu(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, max(x, 0.0), mask=offs < n)
''']
GOOD = ['''
@triton.jit
def relu(x_ptr, n, K, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    steps = max(K, 1)
    tl.store(x_ptr + offs, tl.maximum(x, 0.0) * steps, mask=offs < n)
''']
