"""TP003: tl.load / tl.store at pid * BLOCK + tl.arange(...) with no mask."""

import ast

from ..core import Rule, argument, keyword
from ..values import has_pid
from ._common import kernels

RULE = Rule("TP003", "out-of-bounds/missing-tail-mask", False,
            "tl.load / tl.store at pid * BLOCK + tl.arange(...) without a mask: the last block runs past the end")


def _terms(s, node, depth=4) -> list[ast.AST]:
    """The terms of a sum, names followed to their values: block_start + tl.arange(0, B) with
    block_start = pid * B gives [pid * B, tl.arange(0, B)]."""
    node = s.resolve(node, depth)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _terms(s, node.left, depth) + _terms(s, node.right, depth)
    if isinstance(node, ast.Subscript):  # offs[:, None]
        return _terms(s, node.value, depth)
    return [node]


def _factors(s, node, depth=4) -> list[ast.AST]:
    node = s.resolve(node, depth)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(s, node.left, depth) + _factors(s, node.right, depth)
    return [node]


def is_tile(f, s, address) -> bool:
    """Offsets of a program's block of a dimension, ``pid * BLOCK + tl.arange(0, BLOCK)``: the program id
    times the very size that ends the tl.arange (names followed); not wrapped (% n), clamped, or a block
    pointer (whose bounds are boundary_check's)."""
    for sub in s.subtree(address):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod):
            return False
        if isinstance(sub, ast.Call) and f.tl(sub.func, s) in ("minimum", "make_block_ptr", "advance",
                                                                "make_tensor_descriptor", "where"):
            return False
    for sub in s.subtree(address):
        if not (isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Add)):
            continue
        terms = _terms(s, sub)
        ends = {ast.dump(t.args[1]) for t in terms
                if isinstance(t, ast.Call) and f.tl(t.func, s) == "arange" and len(t.args) >= 2}
        if not ends:
            continue
        for term in terms:
            factors = _factors(s, term)
            if len(factors) >= 2 and any(f.is_tl_call(x, s, "program_id") for x in factors) \
                    and any(ast.dump(x) in ends for x in factors):
                return True
    return False


def check(f):
    for s in kernels(f):
        for call in s.calls:
            name = f.tl(call.func, s)
            if name not in ("load", "store") or not call.args:
                continue
            if argument(call, 1 if name == "load" else 2, "mask") is not None \
                    or keyword(call, "boundary_check") is not None:
                continue
            if any({n.id for n in ast.walk(g) if isinstance(n, ast.Name)} & s.constexpr for g in s.guards[id(call)]):
                continue  # under `if EVEN_N:` and the like: assumed the constexpr says the blocks divide evenly
            if is_tile(f, s, call.args[0]):
                yield call, (f"tl.{name} at pid * BLOCK + tl.arange(...) offsets without a mask: the last block "
                             "reaches past the end unless the size is a multiple of BLOCK (assumed it need not be)")


BAD = ['''
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    block_start = pid * BLOCK
    offs = block_start + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))
''']
GOOD = ['''
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
''', '''
@triton.jit
def k(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    rm = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) % M
    tl.store(y_ptr + rm, tl.load(x_ptr + rm))
''']
