"""Facts about values in a kernel that several rules share: a block's rank, a masked load's unset
lanes, a program id, an int64 cast, the pointer parameter an address is at. Each follows names to
their assignments through :meth:`Scope.value` (a few steps, no more)."""

from __future__ import annotations

import ast

from .core import DEPTH, FileFacts, Scope, argument, dotted

ELEMENTWISE = {"exp", "exp2", "log", "log2", "abs", "sqrt", "rsqrt", "sigmoid", "cos", "sin", "maximum", "minimum",
               "where", "fma", "cast", "erf", "floor", "ceil", "clamp", "fdiv", "div_rn", "tanh", "softmax"}


def dims(f: FileFacts, s: Scope, node: ast.AST, depth: int = DEPTH) -> int | None:
    """The rank of a block (0 for a scalar), None when not known."""
    if isinstance(node, ast.Name):
        if node.id in s.params:
            return 0
        value = s.value(node) if depth > 0 else None
        return None if value is None else dims(f, s, value, depth - 1)
    if isinstance(node, ast.Constant):
        return 0
    if isinstance(node, ast.Subscript):
        index = node.slice
        elts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(e, ast.Constant) and e.value is None for e in elts):
            return len([e for e in elts if not (isinstance(e, ast.Constant) and e.value is Ellipsis)])
        return None
    if isinstance(node, ast.BinOp):
        left, right = dims(f, s, node.left, depth), dims(f, s, node.right, depth)
        return None if left is None or right is None else max(left, right)
    if isinstance(node, ast.UnaryOp):
        return dims(f, s, node.operand, depth)
    if isinstance(node, ast.Compare):
        found = [dims(f, s, n, depth) for n in [node.left, *node.comparators]]
        return None if None in found else max(found)
    if isinstance(node, ast.Call):
        name = f.tl(node.func, s)
        if name == "arange":
            return 1
        if name in ("program_id", "num_programs"):
            return 0
        if name in ("zeros", "full", "empty") and node.args and isinstance(node.args[0], (ast.Tuple, ast.List)):
            return len(node.args[0].elts)
        if name in ("reshape", "view", "broadcast_to") and len(node.args) > 1 \
                and isinstance(node.args[1], (ast.Tuple, ast.List)):
            return len(node.args[1].elts)
        if name == "dot":
            return 2
        if name == "load" and node.args:
            return dims(f, s, node.args[0], depth)
        if name in ELEMENTWISE:
            found = [dims(f, s, a, depth) for a in node.args]
            return None if not found or None in found else max(found)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
            return dims(f, s, node.func.value, depth)
        return None
    return None


def is_block(f: FileFacts, s: Scope, node: ast.AST) -> bool:
    """Known to be a block (rank >= 1), or of unknown rank with a tl.arange / tl.zeros / tl.dot flowing into it
    (a load is a block when its address is)."""
    rank = dims(f, s, node)
    if rank is not None:
        return rank >= 1
    for sub in s.subtree(node):
        if isinstance(sub, ast.Call) and f.tl(sub.func, s) in ("arange", "zeros", "full", "dot", "make_block_ptr"):
            return True
    return False


def masked_load(f: FileFacts, s: Scope, call: ast.AST) -> bool:
    if not f.is_tl_call(call, s, "load"):
        return False
    mask, other = argument(call, 1, "mask"), argument(call, 2, "other")
    return mask is not None and other is None and not isinstance(mask, ast.Constant)


def tainted(f: FileFacts, s: Scope, node: ast.AST, through_abs: bool = False, depth: int = DEPTH) -> str:
    """'raw' or 'abs' when ``node`` carries a masked load's unset lanes, '' when not (or not known)."""
    if isinstance(node, ast.Name):
        value = s.value(node) if depth > 0 and node.id not in s.params else None
        return "" if value is None else tainted(f, s, value, through_abs, depth - 1)
    if isinstance(node, ast.Call):
        name = f.tl(node.func, s)
        if name == "load":
            return ("abs" if through_abs else "raw") if masked_load(f, s, node) else ""
        if name in ("where", "max", "min", "sum", "argmax", "argmin", "reduce", "store", "atomic_add", "dot",
                    "xor_sum", "cumsum", "cumprod"):
            return ""
        if name == "abs":
            return _any(f, s, node.args, True, depth)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
            return tainted(f, s, node.func.value, through_abs, depth)
        if name:
            return _any(f, s, node.args, through_abs, depth)
        return ""
    if isinstance(node, ast.BinOp):
        return _any(f, s, [node.left, node.right], through_abs, depth)
    if isinstance(node, ast.UnaryOp):
        return tainted(f, s, node.operand, through_abs, depth)
    return ""


def _any(f, s, nodes, through_abs, depth) -> str:
    kinds = {tainted(f, s, n, through_abs, depth) for n in nodes} - {""}
    return "raw" if "raw" in kinds else ("abs" if kinds else "")


def has_pid(f: FileFacts, s: Scope, node: ast.AST) -> bool:
    """A program id flows into ``node``."""
    return any(isinstance(sub, ast.Call) and f.tl(sub.func, s) == "program_id" for sub in s.subtree(node))


def is_int64(f: FileFacts, s: Scope, node: ast.AST) -> bool:
    """An int64 cast (or an int64 dtype) flows into ``node``."""
    return any(isinstance(sub, ast.Attribute) and sub.attr in ("int64", "uint64") for sub in s.subtree(node))


def has_arange(f: FileFacts, s: Scope, node: ast.AST) -> bool:
    return any(isinstance(sub, ast.Call) and f.tl(sub.func, s) == "arange" for sub in s.subtree(node))


def integer_params(f: FileFacts, s: Scope) -> set[str]:
    """Parameters the kernel uses as integers: multiplied, divided, compared, a range's bound. A pointer is
    none of these."""
    cached = getattr(s, "_integer_params", None)
    if cached is not None:
        return cached
    found: set[str] = set(s.constexpr)
    params = set(s.params)
    for node in s.binops:
        if isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Mod, ast.Div)):
            found |= {n.id for n in (node.left, node.right) if isinstance(n, ast.Name) and n.id in params}
    for node in s.compares:
        found |= {n.id for n in [node.left, *node.comparators] if isinstance(n, ast.Name) and n.id in params}
    for call in s.calls:
        name = dotted(call.func).rsplit(".", 1)[-1]
        if name in ("range", "static_range", "arange", "cdiv", "multiple_of") or f.tl(call.func, s) in ("range", "arange"):
            found |= {a.id for a in call.args if isinstance(a, ast.Name) and a.id in params}
    s._integer_params = found  # type: ignore[attr-defined]
    return found


def pointer_bases(f: FileFacts, s: Scope, node: ast.AST, depth: int = DEPTH) -> set[str]:
    """The pointer parameters an address is at: ``x_ptr + offs`` -> {x_ptr}. Names are followed to their
    values (``ptr += BLOCK`` keeps the base); a parameter used as an integer is not a pointer; of the two
    sides of ``+``, the left one is the pointer when both could be."""
    if isinstance(node, ast.Name):
        if node.id in s.params and node.id not in s.assigns:
            return set() if node.id in integer_params(f, s) else {node.id}
        value = s.value(node) if depth > 0 else None
        if value is None:
            return {node.id} if node.id in s.params and node.id not in integer_params(f, s) else set()
        return pointer_bases(f, s, value, depth - 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left = pointer_bases(f, s, node.left, depth)
        if left or isinstance(node.op, ast.Sub):
            return left
        return pointer_bases(f, s, node.right, depth)
    if isinstance(node, ast.Call):
        name = f.tl(node.func, s)
        if name in ("make_block_ptr", "advance", "multiple_of", "max_contiguous", "make_tensor_descriptor") and node.args:
            return pointer_bases(f, s, node.args[0], depth)
        if name == "make_block_ptr" and argument(node, 0, "base") is not None:
            return pointer_bases(f, s, argument(node, 0, "base"), depth)
    if isinstance(node, ast.Subscript):
        return pointer_bases(f, s, node.value, depth)
    return set()
