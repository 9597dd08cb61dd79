"""TP024: an int32 offset built on the program id, multiplied by a size with no int64 cast."""

import ast

from ..core import Rule
from ..values import has_pid, is_int64
from ._common import kernels

RULE = Rule("TP024", "out-of-bounds/int32-offset-overflow", False,
            "program_id (int32) multiplied without an int64 cast: the offset can wrap (heuristic)")


def check(f):
    for s in kernels(f):
        reported = set()
        for node in s.binops:
            if not isinstance(node.op, ast.Mult):
                continue
            stmt = s.stmt_of.get(id(node))
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(other, ast.Constant) or not has_pid(f, s, side):
                    continue
                if is_int64(f, s, side) or is_int64(f, s, other):
                    continue
                key = (node.lineno, id(stmt))
                if key not in reported:
                    reported.add(key)
                    yield node, (f"{ast.unparse(node)}: the program id is int32, so this product wraps past 2**31 - 1 "
                                 "(heuristic: assumed the tensor can be that large); cast first: "
                                 "tl.program_id(0).to(tl.int64)")
                break


BAD = ['''
@triton.jit
def k(w_ptr, out_ptr, K, BLOCK_M: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    w = tl.load(w_ptr + offs_m[:, None] * K)
    tl.store(out_ptr + offs_m, tl.sum(w, axis=1))
''']
GOOD = ['''
@triton.jit
def k(w_ptr, out_ptr, K, BLOCK_M: tl.constexpr):
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    w = tl.load(w_ptr + offs_m[:, None] * K)
    tl.store(out_ptr + offs_m, tl.sum(w, axis=1))
''']
