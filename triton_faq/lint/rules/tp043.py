"""TP043: return inside a for / while loop of a kernel."""

from ..core import Rule
from ._common import kernels

RULE = Rule("TP043", "language/return-inside-loop", True,
            "return inside a for / while loop of a kernel: refused when compiled")


def check(f):
    for s in kernels(f):
        for node, loops in s.returns:
            if loops:
                yield node, ("return inside a loop: Triton refuses it when compiling ('Cannot have `return` statements "
                             "inside `while` or `for` statements'); end the loop through its condition instead")


BAD = ['''
@triton.jit
def k(x_ptr, out_ptr, n):
    for i in range(0, n):
        if tl.load(x_ptr + i) > 0:
            tl.store(out_ptr, i)
            return
''']
GOOD = ['''
@triton.jit
def k(x_ptr, out_ptr, n):
    if n == 0:
        return
    for i in range(0, n):
        tl.store(out_ptr + i, tl.load(x_ptr + i))
''']
