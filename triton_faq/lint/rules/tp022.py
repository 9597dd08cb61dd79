"""TP022: the hand-written tanh, (exp(2x) - 1) / (exp(2x) + 1) or (e^x - e^-x) / (e^x + e^-x)."""

import ast

from ..core import Rule
from ._common import kernels

RULE = Rule("TP022", "math-functions/hand-written-tanh-overflow", True,
            "(exp(2x) - 1) / (exp(2x) + 1): exp overflows to inf and the ratio is NaN")

EXP = ("exp", "extra.libdevice.exp", "extra.cuda.libdevice.exp")


def exp_argument(f, s, node) -> str | None:
    """The dump of x when ``node`` is (or was assigned) exp(x)."""
    node = s.resolve(node)
    if isinstance(node, ast.Call) and f.tl(node.func, s) in EXP and node.args:
        return ast.dump(s.resolve(node.args[0]))
    return None


def terms(f, s, node, op):
    """(left, right) of ``node`` (names followed) when it is a ``left op right``."""
    node = s.resolve(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, op):
        return node.left, node.right
    return None


def is_one(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in (1, 1.0)


def tanh_shape(f, s, division) -> bool:
    top, bottom = terms(f, s, division.left, ast.Sub), terms(f, s, division.right, ast.Add)
    if top is None or bottom is None:
        return False
    # (E - 1) / (E + 1), E = exp(2x) or a name for it
    if is_one(top[1]) and is_one(bottom[1]):
        a, b = exp_argument(f, s, top[0]), exp_argument(f, s, bottom[0])
        return a is not None and a == b and "abs" not in a
    # (exp(x) - exp(-x)) / (exp(x) + exp(-x))
    args = [exp_argument(f, s, n) for n in (*top, *bottom)]
    return None not in args and args[0] == args[2] and args[1] == args[3] and args[0] != args[1]


def check(f):
    for s in kernels(f):
        for node in s.binops:
            if isinstance(node.op, ast.Div) and tanh_shape(f, s, node):
                yield node, ("(exp(2x) - 1) / (exp(2x) + 1) is inf / inf = NaN once exp overflows (x > 44 in "
                             "float32); use libdevice.tanh or exp(-2|x|) with the sign restored")


BAD = ['''
from triton.language import exp

@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr)
    e = exp(2 * x)
    num = e - 1
    tl.store(x_ptr, num / (e + 1))
''', '''
@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, (tl.exp(x) - tl.exp(-x)) / (tl.exp(x) + tl.exp(-x)))
''']
GOOD = ['''
@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr)
    e = tl.exp(-2 * tl.abs(x))
    t = (1 - e) / (1 + e)
    tl.store(x_ptr, tl.where(x >= 0, t, -t))
''']
