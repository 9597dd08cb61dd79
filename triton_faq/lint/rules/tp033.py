"""TP033: a kernel reads a module-level global that is not a tl.constexpr."""

import ast

from ..core import Rule
from ._common import kernels

RULE = Rule("TP033", "compilation/global-variable-in-jit", True,
            "a kernel reads a module-level global that is not a tl.constexpr: NameError at compile time")


ANNOTATION_REFUSED = (3, 3)  # `X: tl.constexpr = 1` is accepted by 3.2 and refused from 3.3 (Triton PR 5961; the matrix)


def check(f):
    plain = f.globals_plain
    if f.triton_version is not None and f.triton_version < ANNOTATION_REFUSED:
        plain = {name: stmt for name, stmt in plain.items() if not isinstance(stmt, ast.AnnAssign)}
    if not plain:
        return
    for s in kernels(f):
        told = set()
        for node in s.names:
            if node.id in plain and node.id not in s.locals and node.id not in told:
                told.add(node.id)
                yield node, (f"the kernel reads the global {node.id!r}, a plain Python value: Triton refuses it "
                             f"(NameError); pass it as a tl.constexpr argument or define {node.id} = tl.constexpr(...)")


BAD = ['''
SCALE = 0.5

@triton.jit
def k(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) * SCALE)
''']
GOOD = ['''
SCALE = tl.constexpr(0.5)

@triton.jit
def k(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) * SCALE)
''']
