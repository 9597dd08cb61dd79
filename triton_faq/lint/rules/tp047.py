"""TP047: Python a compiled kernel does not take (dict, set, try, lambda, generator, walrus, item
assignment), and the comprehension whose `if` is dropped."""

import ast

from ..core import Rule
from ._common import kernels

RULE = Rule("TP047", "language/unsupported-python-in-kernels", True,
            "Python a compiled kernel refuses (dict, set, try, lambda, generator, walrus, item assignment), or a "
            "comprehension whose `if` is silently dropped")

REFUSED = {ast.Dict: "a dict", ast.DictComp: "a dict comprehension", ast.Set: "a set", ast.SetComp: "a set "
           "comprehension", ast.Try: "try", ast.Lambda: "a lambda", ast.GeneratorExp: "a generator",
           ast.NamedExpr: "the walrus operator"}


FILTER_FIXED = (3, 9)  # the release whose compiler honours a comprehension's `if` (Triton PR 10888; the version matrix)


def check(f):
    filter_dropped = f.triton_version is None or f.triton_version < FILTER_FIXED
    for s in kernels(f):
        for node in (sub for stmt in s.node.body for sub in ast.walk(stmt)):
            what = REFUSED.get(type(node))
            if what is not None:
                yield node, (f"{what} in a kernel: refused when compiled ('unsupported AST node type'), run as Python "
                             "by the interpreter")
            elif isinstance(node, ast.comprehension) and node.ifs and filter_dropped:
                yield node.ifs[0], ("a comprehension's `if` in a kernel compiles and is dropped: every element is "
                                    "kept; filter with a constexpr `if` in a tl.static_range loop")
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Subscript):
                        yield target, ("item assignment in a kernel: blocks are values, refused when compiled; "
                                       "build the block with tl.where")


BAD = ['''
@triton.jit
def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    rows = [r for r in (0, 1, 2, 3) if r % 2 == 0]
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(len(rows)):
        acc += tl.load(x_ptr + rows[i] * BLOCK + cols)
    tl.store(out_ptr + cols, acc)
''', '''
@triton.jit
def k(x_ptr, MODE: tl.constexpr):
    scale = {"a": 1.0, "b": 2.0}[MODE]
    tl.store(x_ptr, tl.load(x_ptr) * scale)
''']
GOOD = ['''
@triton.jit
def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for r in tl.static_range(4):
        if r % 2 == 0:
            acc += tl.load(x_ptr + r * BLOCK + cols)
    tl.store(out_ptr + cols, acc)
''']
