"""What every rule reads: one walk of a file into scopes (kernels, host functions, the module), with
their calls, operators and assignments, and a little data flow on top.

Data flow is deliberately short: a name is followed to the assignment that reaches it in the same
function (the last one above it; in a loop, the last one of the loop too), a few steps deep.
Augmented assignment keeps the value's history (``ptr += BLOCK`` is still at ``ptr``'s base), and
names bound by imports or module/function assignments to ``tl.exp``, ``triton.testing.do_bench``
and the like are read as what they alias. A call launches a kernel when it is ``kernel[grid](...)``
or calls a function of the same file that does (to any depth).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Iterator

from .model import Rule  # noqa: F401  (re-exported for rule modules)

DEPTH = 4  # how many assignments a name is followed through

# names a file need not import for the rules to read them (a section of a file linted alone)
DEFAULT_ALIASES = {"tl": "triton.language", "triton": "triton", "time": "time", "torch": "torch",
                   "libdevice": "triton.language.extra.libdevice", "timeit": "timeit"}


def dotted(node: ast.AST) -> str:
    """``tl.math.tanh`` for the attribute chain, '' for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The argument passed by keyword ``name`` or at ``position``."""
    found = keyword(call, name)
    if found is None and len(call.args) > position and not any(isinstance(a, ast.Starred)
                                                               for a in call.args[:position + 1]):
        found = call.args[position]
    return found


def const_int(node: ast.AST, env: dict[str, int]) -> int | None:
    """The integer value of a constant expression, with names from ``env``; None when unknown."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = const_int(node.operand, env)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Pow)):
        left, right = const_int(node.left, env), const_int(node.right, env)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Pow):
            return left ** right if 0 <= right < 64 else None
        return left // right if right else None
    if isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] == "constexpr" and len(node.args) == 1:
        return const_int(node.args[0], env)
    return None


def power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def is_constexpr_annotation(node: ast.expr | None) -> bool:
    return node is not None and (dotted(node).endswith("constexpr") or
                                 (isinstance(node, ast.Constant) and "constexpr" in str(node.value)))


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    args = node.args
    return args.posonlyargs + args.args + args.kwonlyargs


def is_launch(node: ast.AST) -> bool:
    """``kernel[grid](...)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)


def launched_kernel(call: ast.Call) -> str:
    return dotted(call.func.value).rsplit(".", 1)[-1]


# ---------------------------------------------------------------- scopes

@dataclass
class Scope:
    """A kernel, a host function or the module: what the shared walk found in it."""
    node: ast.AST
    kind: str  # "kernel" | "host" | "module"
    name: str
    params: list[str] = field(default_factory=list)
    constexpr: set[str] = field(default_factory=set)
    calls: list[ast.Call] = field(default_factory=list)  # in source order
    binops: list[ast.BinOp] = field(default_factory=list)
    boolops: list[ast.BoolOp] = field(default_factory=list)
    names: list[ast.Name] = field(default_factory=list)  # loads
    returns: list[tuple[ast.Return, int]] = field(default_factory=list)  # (return, loops around it)
    ifs: list[ast.If] = field(default_factory=list)
    compares: list[ast.Compare] = field(default_factory=list)
    assigns: dict[str, list[tuple[int, int, ast.expr | None]]] = field(default_factory=dict)  # name -> (line, col, value)
    guards: dict[int, tuple[ast.expr, ...]] = field(default_factory=dict)  # id(call) -> enclosing `if` tests
    blocks: dict[int, tuple[int, ...]] = field(default_factory=dict)  # id(call) -> ids of the statement lists around it
    stmt_of: dict[int, ast.stmt] = field(default_factory=dict)  # id(call) -> its statement
    loops: dict[int, int] = field(default_factory=dict)  # id(call) -> loops around it
    decorators: list[ast.expr] = field(default_factory=list)
    locals: set[str] = field(default_factory=set)
    debug: bool = False
    autotune: list[ast.Call] = field(default_factory=list)
    parent: "Scope | None" = None
    docstring: str = ""

    # -- data flow
    def value(self, name: ast.Name | str, at: ast.AST | None = None) -> ast.expr | None:
        """The value of the assignment that reaches ``name`` (at ``at``): the last one above it, else the
        last one of the function (a loop-carried name). None when it has none, or when it is a loop target."""
        key = name if isinstance(name, str) else name.id
        found = self.assigns.get(key)
        if not found:
            return None
        where = at if at is not None else (name if not isinstance(name, str) else None)
        if where is None or not hasattr(where, "lineno"):
            return found[-1][2]
        position = (where.lineno, where.col_offset)
        before = [v for line, col, v in found if (line, col) < position]
        return before[-1] if before else found[-1][2]

    def resolve(self, node: ast.AST, depth: int = DEPTH) -> ast.AST:
        """``node``, or for a name the value it was assigned, followed ``depth`` times."""
        seen = 0
        while isinstance(node, ast.Name) and seen < depth:
            value = self.value(node)
            if value is None:
                return node
            node, seen = value, seen + 1
        return node

    def subtree(self, node: ast.AST, depth: int = DEPTH) -> Iterator[ast.AST]:
        """Every node of ``node``'s expression, names followed to their values (each once)."""
        stack, seen = [(node, 0)], set()
        while stack:
            current, level = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            yield current
            if isinstance(current, ast.Name) and level < depth:
                value = self.value(current)
                if value is not None:
                    stack.append((value, level + 1))
                continue
            for child in ast.iter_child_nodes(current):
                if not isinstance(child, (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)):
                    stack.append((child, level))


@dataclass
class FileFacts:
    tree: ast.Module
    source: str
    path: str
    scopes: list[Scope]
    kernels: dict[str, Scope]  # by name (autotune(...)(kernel) and jit(fn) bindings included)
    functions: dict[str, Scope]  # host functions by name (the last of a name wins)
    aliases: dict[str, str]  # module-level: name -> the dotted name it stands for
    launchers: set[str]  # host functions of this file that launch a kernel, to any depth
    globals_plain: dict[str, ast.AST]
    constexpr_values: dict[str, int]
    triton_version: tuple[int, int] | None = None

    @property
    def module(self) -> Scope:
        return self.scopes[0]

    def canonical(self, node: ast.AST, scope: Scope | None = None) -> str:
        """The dotted name ``node`` stands for, its first part read through imports and aliases:
        ``exp`` after ``exp = tl.exp`` is ``triton.language.exp``."""
        name = dotted(node)
        if not name:
            return ""
        head, _, rest = name.partition(".")
        target = None
        if scope is not None and scope.kind != "module" and head in scope.assigns:
            value = scope.value(head, node)
            if value is not None and dotted(value) and dotted(value) != name:
                inner = self.canonical(value, None)
                target = inner or None
        if target is None:
            target = self.aliases.get(head, DEFAULT_ALIASES.get(head, head))
        return f"{target}.{rest}" if rest else target

    def tl(self, node: ast.AST, scope: Scope | None = None) -> str:
        """``load`` for ``tl.load`` (or anything that stands for ``triton.language.load``); '' otherwise."""
        name = self.canonical(node, scope)
        for prefix in ("triton.language.", "language."):
            if name.startswith(prefix):
                rest = name[len(prefix):]
                return rest[5:] if rest.startswith("math.") and rest[5:] in MATH_IN_TL else rest
        return ""

    def is_tl_call(self, node: ast.AST, scope: Scope | None, *names: str) -> bool:
        return isinstance(node, ast.Call) and self.tl(node.func, scope) in names

    def launches(self, call: ast.Call) -> bool:
        """``kernel[grid](...)``, or a call of a function of this file that launches one."""
        if is_launch(call):
            return True
        name = dotted(call.func).rsplit(".", 1)[-1]
        return bool(name) and name in self.launchers and not dotted(call.func).startswith(("tl.", "triton."))


MATH_IN_TL = {"exp", "exp2", "log", "log2", "abs", "sqrt", "rsqrt", "sin", "cos", "max", "min", "maximum",
              "minimum", "fma", "floor", "ceil", "erf", "sigmoid"}


def is_jit_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return dotted(target) in ("triton.jit", "jit")


def is_autotune(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func) in ("triton.autotune", "autotune")


# ---------------------------------------------------------------- the walk

def read(source: str, path: str = "<string>", triton_version: tuple[int, int] | None = None) -> FileFacts:
    tree = ast.parse(source, filename=path)
    module = Scope(tree, "module", "<module>")
    scopes = [module]
    aliases: dict[str, str] = {}
    _walk(tree, module, scopes, aliases)
    facts = FileFacts(tree, source, path, scopes, {}, {}, aliases, set(), {}, {}, triton_version)
    # module-level aliases: exp = tl.exp, bench = triton.testing.do_bench
    for name, found in module.assigns.items():
        value = found[-1][2]
        if len(found) == 1 and isinstance(value, ast.Attribute) and dotted(value):
            target = facts.canonical(value)
            if target.startswith(("triton.", "time.", "torch.")):
                aliases[name] = target
    for scope in scopes[1:]:
        if scope.kind == "kernel":
            facts.kernels[scope.name] = scope
        else:
            facts.functions[scope.name] = scope
    _read_globals(facts)
    # name = triton.autotune(...)(kernel), name = triton.jit(fn), name = triton.heuristics(...)(kernel)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 1 \
                and isinstance(stmt.value.args[0], ast.Name):
            inner = stmt.value.args[0].id
            if inner in facts.kernels and is_autotune(stmt.value.func):
                facts.kernels[stmt.targets[0].id] = replace(facts.kernels[inner], autotune=[stmt.value.func])
            elif inner in facts.kernels:
                facts.kernels[stmt.targets[0].id] = facts.kernels[inner]
    # which host functions launch (to any depth)
    callers = {name: {dotted(c.func).rsplit(".", 1)[-1] for c in scope.calls}
               for name, scope in facts.functions.items()}
    launching = {name for name, scope in facts.functions.items() if any(is_launch(c) for c in scope.calls)}
    changed = True
    while changed:
        changed = False
        for name, called in callers.items():
            if name not in launching and called & launching:
                launching.add(name)
                changed = True
    facts.launchers = launching
    return facts


_SKIP = (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)


def _walk(tree: ast.Module, module: Scope, scopes: list[Scope], aliases: dict[str, str]) -> None:
    """One iterative walk of the file: each node lands in its innermost function's scope."""
    # stack items: (node, scope, guards, blocks, stmt, loops)
    stack: list[tuple[ast.AST, Scope, tuple, tuple, ast.stmt | None, int]] = [(tree, module, (), (), None, 0)]
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    while stack:
        node, scope, guards, blocks, stmt, loops = stack.pop()
        kind = type(node)
        if kind in functions and node is not tree:
            for decorator in node.decorator_list:
                stack.append((decorator, scope, guards, blocks, stmt, loops))
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                stack.append((default, scope, guards, blocks, stmt, loops))
            scope.locals.add(node.name)
            jit = any(is_jit_decorator(d) for d in node.decorator_list)
            inner = Scope(node, "kernel" if jit else "host", node.name)
            params = parameters(node)
            inner.params = [a.arg for a in params]
            inner.constexpr = {a.arg for a in params if is_constexpr_annotation(a.annotation)}
            inner.decorators = list(node.decorator_list)
            inner.autotune = [d for d in node.decorator_list if is_autotune(d)]
            inner.debug = any(isinstance(d, ast.Call) and is_jit_decorator(d) and isinstance(keyword(d, "debug"), ast.Constant)
                              and keyword(d, "debug").value for d in node.decorator_list)
            inner.locals.update(inner.params)
            inner.parent = scope
            inner.docstring = ast.get_docstring(node) or ""
            scopes.append(inner)
            body_id = (id(node.body),)
            for child in reversed(node.body):
                stack.append((child, inner, (), body_id, child, 0))
            continue
        if isinstance(node, ast.stmt):
            stmt = node
        if kind is ast.Call:
            scope.calls.append(node)
            scope.guards[id(node)] = guards
            scope.blocks[id(node)] = blocks
            scope.stmt_of[id(node)] = stmt
            scope.loops[id(node)] = loops
        elif kind is ast.BinOp:
            scope.binops.append(node)
        elif kind is ast.BoolOp:
            scope.boolops.append(node)
        elif kind is ast.Name:
            if isinstance(node.ctx, ast.Load):
                scope.names.append(node)
            else:
                scope.locals.add(node.id)
        elif kind is ast.Return:
            scope.returns.append((node, loops))
        elif kind is ast.If:
            scope.ifs.append(node)
        elif kind is ast.Compare:
            scope.compares.append(node)
        elif kind is ast.Import:
            for alias in node.names:
                if alias.asname:
                    _alias(aliases, alias.asname, alias.name)
        elif kind is ast.ImportFrom and node.module and node.level == 0:
            for alias in node.names:
                _alias(aliases, alias.asname or alias.name, f"{node.module}.{alias.name}")
        elif kind is ast.Lambda:
            scope.locals.update(a.arg for a in parameters(node))
        # assignments, for the data flow
        if kind is ast.Assign:
            for target in node.targets:
                _bind(scope, target, node.value, node)
        elif kind is ast.AnnAssign and node.value is not None:
            _bind(scope, node.target, node.value, node)
        elif kind is ast.AugAssign and isinstance(node.target, ast.Name):
            previous = ast.Name(node.target.id, ast.Load(), lineno=node.lineno, col_offset=node.col_offset,
                                end_lineno=node.lineno, end_col_offset=node.col_offset)
            combined = ast.BinOp(previous, node.op, node.value, lineno=node.lineno, col_offset=node.col_offset,
                                 end_lineno=node.end_lineno, end_col_offset=node.end_col_offset)
            # the name keeps its earlier value's history: the previous value is read where it was before
            before = scope.value(node.target.id, node)
            if before is not None:
                combined.left = before
            _assign(scope, node.target.id, node, combined)
        elif kind in (ast.For, ast.AsyncFor):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    _assign(scope, name.id, node.iter, None)
        elif kind is ast.comprehension:
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    scope.locals.add(name.id)
        elif kind in (ast.With, ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    for name in ast.walk(item.optional_vars):
                        if isinstance(name, ast.Name):
                            _assign(scope, name.id, item.context_expr, None)
        # children, in reverse so that the stack pops them in source order
        if kind is ast.If:
            children = [(node.test, guards, blocks, loops)]
            children += [(c, guards + (node.test,), blocks + (id(node.body),), loops) for c in node.body]
            negated = ast.UnaryOp(ast.Not(), node.test, lineno=node.test.lineno, col_offset=node.test.col_offset,
                                  end_lineno=node.test.end_lineno, end_col_offset=node.test.end_col_offset)
            children += [(c, guards + (negated,), blocks + (id(node.orelse),), loops) for c in node.orelse]
        elif kind in (ast.For, ast.While, ast.AsyncFor):
            head = node.iter if kind is not ast.While else node.test
            children = [(head, guards, blocks, loops)]
            children += [(c, guards, blocks + (id(node.body),), loops + 1) for c in node.body]
            children += [(c, guards, blocks + (id(node.orelse),), loops) for c in node.orelse]
        elif kind in (ast.With, ast.AsyncWith, ast.Try) or (hasattr(node, "body") and isinstance(node, ast.stmt)
                                                              and kind is not ast.ClassDef):
            children = []
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    children += [(c, guards, blocks + (id(value),), loops) for c in value]
                elif isinstance(value, list):
                    children += [(c, guards, blocks, loops) for c in value if isinstance(c, ast.AST)]
                elif isinstance(value, ast.AST):
                    children.append((value, guards, blocks, loops))
        else:
            children = []
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    children += [(c, guards, blocks, loops) for c in value
                                 if isinstance(c, ast.AST) and not isinstance(c, _SKIP)]
                elif isinstance(value, ast.AST) and not isinstance(value, _SKIP):
                    children.append((value, guards, blocks, loops))
        for child, g, b, lo in reversed(children):
            stack.append((child, scope, g, b, stmt, lo))


def _alias(aliases: dict[str, str], name: str, target: str) -> None:
    """An import binds ``name``; imported from two places (``try: from a import tanh`` / ``except: from b import
    tanh``, one per release), it stands for neither: the rules cannot know which one runs."""
    if aliases.get(name, target) != target:
        target = name
    aliases[name] = target


def _assign(scope: Scope, name: str, at: ast.AST, value: ast.expr | None) -> None:
    """``name`` is bound to ``value`` from the end of ``at`` on (a use inside ``at`` still reads the old value)."""
    scope.assigns.setdefault(name, []).append((at.end_lineno, at.end_col_offset, value))


def _bind(scope: Scope, target: ast.expr, value: ast.expr, stmt: ast.stmt) -> None:
    if isinstance(target, ast.Name):
        _assign(scope, target.id, stmt, value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            for t, v in zip(target.elts, value.elts):
                _bind(scope, t, v, stmt)
        else:
            for t in target.elts:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name):
                        _assign(scope, name.id, stmt, None)


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _module_statements(stmt.body)
            yield from _module_statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody, *[h.body for h in stmt.handlers]):
                yield from _module_statements(block)
        else:
            yield stmt


def _is_constexpr_value(value: ast.AST) -> bool:
    return isinstance(value, ast.Call) and dotted(value.func).rsplit(".", 1)[-1] == "constexpr"


def _is_plain_literal(value: ast.AST) -> bool:
    """A number, string, bool or a tuple/list of them, or arithmetic on numbers: certainly not constexpr."""
    if isinstance(value, ast.Constant):
        return value.value is not None and not isinstance(value.value, bytes)
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_is_plain_literal(e) for e in value.elts)
    if isinstance(value, ast.UnaryOp):
        return _is_plain_literal(value.operand)
    if isinstance(value, ast.BinOp):
        return _is_plain_literal(value.left) and _is_plain_literal(value.right)
    return False


def _read_globals(facts: FileFacts) -> None:
    """Module-level names bound to plain values (TP033) and to tl.constexpr integers (TP009)."""
    bad: set[str] = set()
    ok: set[str] = set()
    for stmt in _module_statements(facts.tree.body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                ok.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            ok.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            for target in targets:
                for name in ([target] if isinstance(target, ast.Name) else
                             [e for e in getattr(target, "elts", []) if isinstance(e, ast.Name)]):
                    if value is None:
                        continue
                    if isinstance(target, ast.Name) and _is_constexpr_value(value) and not isinstance(stmt, ast.AnnAssign):
                        ok.add(name.id)
                        number = const_int(value, facts.constexpr_values)
                        if number is not None:
                            facts.constexpr_values[name.id] = number
                    elif isinstance(target, ast.Name) and _is_plain_literal(value):
                        facts.globals_plain.setdefault(name.id, stmt)
                    else:
                        bad.add(name.id)
        elif isinstance(stmt, (ast.For, ast.With, ast.AugAssign)):
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    bad.add(node.id)
    for name in bad | ok:
        facts.globals_plain.pop(name, None)

