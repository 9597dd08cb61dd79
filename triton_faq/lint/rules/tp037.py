"""TP037: a launch whose grid axis 1 or 2 is a count that can pass 65535."""

import ast

from ..core import Rule, const_int, dotted, is_launch
from ._common import hosts

RULE = Rule("TP037", "launching/grid-axis-above-65535", False,
            "grid axis 1 or 2 is a data size (rows, batch * heads), not a count of blocks: above 65535 the launch "
            "fails (heuristic)")

LIMIT = 65535


def grid_elements(f, s, grid) -> list[ast.expr] | None:
    grid = s.resolve(grid)
    if isinstance(grid, ast.Lambda):
        grid = grid.body
    if isinstance(grid, (ast.Tuple, ast.List)):
        return list(grid.elts)
    return None


def is_count_of_blocks(f, s, node) -> bool:
    """cdiv(n, BLOCK), n // BLOCK, a number of SMs, min(...): assumed small."""
    node = s.resolve(node, 2)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and dotted(sub.func).rsplit(".", 1)[-1] in ("cdiv", "min", "minimum",
                                                                                   "next_power_of_2"):
            return True
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.FloorDiv, ast.Div, ast.RShift)):
            return True
    return False


def is_size(f, s, node) -> bool:
    """A data size: x.shape[0], x.size(0), a name bound to one, n_rows, batch * heads."""
    resolved = s.resolve(node, 2)
    for sub in ast.walk(resolved):
        if isinstance(sub, ast.Attribute) and sub.attr in ("shape", "numel"):
            return True
        if isinstance(sub, ast.Call) and dotted(sub.func).rsplit(".", 1)[-1] in ("size", "numel"):
            return True
    return isinstance(resolved, ast.BinOp) and isinstance(resolved.op, ast.Mult) \
        or (isinstance(node, ast.Name) and any(word in node.id.lower() for word in ("row", "token", "seq", "batch")))


def check(f):
    for s in hosts(f):
        for call in s.calls:
            if not is_launch(call):
                continue
            elements = grid_elements(f, s, call.func.slice)
            if not elements:
                continue
            for axis, element in enumerate(elements[1:3], 1):
                value = const_int(s.resolve(element), f.constexpr_values)
                if value is not None:
                    if value > LIMIT:
                        yield element, f"grid axis {axis} is {value}: CUDA runs at most {LIMIT} programs on axes 1 and 2"
                    continue
                if is_count_of_blocks(f, s, element) or not is_size(f, s, element):
                    continue
                yield element, (f"grid axis {axis} is {ast.unparse(element)}, a data size: above {LIMIT} the launch "
                                "fails with 'invalid argument' (assumed it can grow that large); put it on axis 0")


BAD = ['''
def run(x, s):
    n_rows, n_cols = x.shape
    k[(triton.cdiv(n_cols, 128), n_rows)](x, s, n_cols, BLOCK=128)
''']
GOOD = ['''
def run(x, s):
    n_rows, n_cols = x.shape
    k[(n_rows, triton.cdiv(n_cols, 128))](x, s, n_cols, BLOCK=128)
''']
