"""TP048: Python's and / or (or an if) on blocks, and a < M & b < N."""

import ast

from ..core import Rule
from ..values import dims, is_block
from ._common import kernels

RULE = Rule("TP048", "language/and-or-on-blocks", True,
            "Python `and` / `or` / `if` on blocks, or `a < M & b < N`: wrong in the interpreter or refused")


def check(f):
    for s in kernels(f):
        for node in s.boolops:
            if any(dims(f, s, value) is not None and dims(f, s, value) >= 1 for value in node.values) \
                    or all(is_block(f, s, value) for value in node.values):
                word = "and" if isinstance(node.op, ast.And) else "or"
                yield node, (f"Python `{word}` on blocks: compiled it is element-wise (deprecated), the interpreter "
                             f"returns one operand whole; write {'&' if word == 'and' else '|'} with each comparison "
                             "in parentheses")
        for node in s.compares:
            if len(node.ops) >= 2 and any(
                    isinstance(part, ast.BinOp) and isinstance(part.op, (ast.BitAnd, ast.BitOr))
                    for part in node.comparators[:-1]):
                yield node, ("`a < M & b < N` is a chained comparison (& binds tighter than <): refused compiled, "
                             "wrong interpreted; parenthesise each comparison")
        for node in s.ifs:
            rank = dims(f, s, node.test)
            if rank is not None and rank >= 1:
                yield node.test, ("`if` on a block: refused compiled ('Boolean value of Tensor with more than one "
                                  "value is ambiguous'); choose per element with tl.where")


BAD = ['''
@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inside = (x > 0) and (x < 10)
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=offs < n)
''']
GOOD = ['''
@triton.jit
def k(x_ptr, out_ptr, n, HAS_BIAS: tl.constexpr, EVEN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if HAS_BIAS and not EVEN:
        x = x + 1
    inside = (x > 0) & (x < 10)
    tl.store(out_ptr + offs, inside.to(tl.int32), mask=offs < n)
''']
