"""``triton-faq lint``: a static checker whose rules are the handbook's entries.

Python files are read as source with :mod:`ast` (nothing is imported, no GPU, no Triton needed).
Each rule is named after the entry that explains its pitfall (``TP001`` is the entry TP001) and
exists only because that entry does. A rule looks at ``@triton.jit`` functions (kernel rules),
at their launches, or at the host code around them (timers, ``do_bench``, ``triton.autotune``).

Rules that cannot decide statically say in their message what they assumed. Rules on by default
found no false positive on a body of real kernels (Liger-Kernel, FlagGems); the others are opt-in
with ``--select``.

Standard library only, one pass per file, so a tree of a hundred files lints in well under a second.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from . import handbook



@dataclass(frozen=True)
class Rule:
    id: str
    page: str  # the entry's page under docs/<language>/, without .md
    default: bool  # on without --select
    summary: str  # one line, English (the page's strings are in triton_faq/ui_text.py, key lint.rule.<id>)

    def url(self, language: str | None = None) -> str:
        """The entry's page on the site (default: in the site's default language)."""
        return handbook.load_site(handbook.ROOT).url_of(self.page, language)


RULES: dict[str, Rule] = {rule.id: rule for rule in (
    Rule("TP001", "garbage-values/masked-load-without-other", True,
         "masked tl.load without other feeds tl.max / tl.min / a product: masked lanes read as 0"),
    Rule("TP003", "out-of-bounds/missing-tail-mask", False,
         "tl.load / tl.store at pid * BLOCK + tl.arange(...) without a mask: the last block runs past the end"),
    Rule("TP006", "reductions/max-without-axis", True,
         "tl.max / tl.min / tl.argmax / tl.argmin without axis on a 2-D block reduces the whole tile"),
    Rule("TP009", "performance/block-size-power-of-two", True,
         "tl.arange range (or the block size a launch passes to it) is not a power of two"),
    Rule("TP013", "debugging/device-print", False,
         "tl.device_print outside an `if` on the program id: every program prints"),
    Rule("TP014", "debugging/device-assert", False,
         "tl.device_assert in a kernel without debug=True: compiled out unless TRITON_DEBUG=1"),
    Rule("TP017", "timing/timer-lambda-trap", True,
         "a timer is handed a launch's return value: the kernel ran once, before the timer started"),
    Rule("TP018", "timing/host-timer-without-sync", True,
         "host timer around a launch with no synchronize before the timer is read again"),
    Rule("TP021", "math-functions/where-is-tanh", True,
         "tl.math.tanh: not in Triton 3.x; use libdevice.tanh"),
    Rule("TP022", "math-functions/hand-written-tanh-overflow", True,
         "(exp(2x) - 1) / (exp(2x) + 1): exp overflows to inf and the ratio is NaN"),
    Rule("TP024", "out-of-bounds/int32-offset-overflow", False,
         "program_id (int32) multiplied without an int64 cast: the offset can wrap (heuristic)"),
    Rule("TP028", "autotuning/in-place-kernel-autotuning", True,
         "autotuned kernel stores to a pointer it also loads (or adds atomically) with no restore_value / "
         "reset_to_zero"),
    Rule("TP031", "timing/do-bench-pitfalls", True,
         "do_bench(fast_flush=...) is a TypeError; do_bench without quantiles / return_mode returns the mean"),
    Rule("TP032", "compilation/block-pointers-and-tensor-descriptors", True,
         "tl.make_block_ptr: warns from Triton 3.7, block-pointer kernels fail from 3.9"),
    Rule("TP033", "compilation/global-variable-in-jit", True,
         "a kernel reads a module-level global that is not a tl.constexpr: NameError at compile time"),
    Rule("TP034", "reductions/argmax-ties", False,
         "tl.argmax / tl.argmin with tie_break_left=False: which of tied indices is unspecified"),
    Rule("TP035", "matmul/float32-dot-runs-as-tf32", False,
         "tl.dot without input_precision: float32 inputs run as TF32 on NVIDIA GPUs (assumes float32)"),
)}
DEFAULT = tuple(rule_id for rule_id, rule in RULES.items() if rule.default)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int  # 1-based
    rule: str
    message: str

    @property
    def url(self) -> str:
        return RULES[self.rule].url()

    def text(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.rule} {self.message} [{self.url}]"


# ---------------------------------------------------------------- small helpers on the AST

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


TL_PREFIXES = ("tl.", "triton.language.", "language.")


def tl_name(node: ast.AST) -> str:
    """``load`` for ``tl.load`` / ``triton.language.load``; '' otherwise."""
    name = dotted(node)
    for prefix in TL_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return ""


def is_tl_call(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and tl_name(node.func) in names


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The argument passed by keyword ``name`` or at ``position``."""
    found = keyword(call, name)
    if found is None and len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        found = call.args[position]
    return found


_WALKED: dict[int, list[ast.AST]] = {}  # id(node) -> its subtree, for the file being linted


def walk(node: ast.AST) -> list[ast.AST]:
    """``ast.walk`` as a list, kept for the file being linted (rules look at small expressions many times)."""
    found = _WALKED.get(id(node))
    if found is None:
        found = _WALKED[id(node)] = list(ast.walk(node))
    return found


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def is_jit_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return dotted(target) in ("triton.jit", "jit")


def is_autotune(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func) in ("triton.autotune", "autotune")


def is_constexpr_annotation(node: ast.expr | None) -> bool:
    return node is not None and (dotted(node).endswith("constexpr") or
                                 (isinstance(node, ast.Constant) and "constexpr" in str(node.value)))


def const_int(node: ast.AST, env: dict[str, int]) -> int | None:
    """The integer value of a constant expression, with names from ``env``; None when unknown."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = const_int(node.operand, env)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        left, right = const_int(node.left, env), const_int(node.right, env)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        return left // right if right else None
    if isinstance(node, ast.Call) and dotted(node.func) in ("tl.constexpr", "triton.language.constexpr", "constexpr") \
            and len(node.args) == 1:
        return const_int(node.args[0], env)
    return None


def power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def is_launch(call: ast.AST) -> bool:
    """``kernel[grid](...)``."""
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Subscript)


def launched_kernel(call: ast.Call) -> str:
    return dotted(call.func.value).rsplit(".", 1)[-1]


REDUCTIONS = ("max", "min", "sum", "argmax", "argmin", "reduce", "xor_sum", "cumsum", "cumprod")


# ---------------------------------------------------------------- one module

@dataclass
class Kernel:
    node: ast.FunctionDef
    params: list[str]
    constexpr: set[str]
    autotune: list[ast.Call]  # the triton.autotune(...) calls that wrap it
    debug: bool


class Module:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.kernels: dict[str, Kernel] = {}
        self.globals_plain: dict[str, ast.AST] = {}  # module-level names bound to plain (non-constexpr) values
        self.globals_ok: set[str] = set()  # imported, jit, constexpr, functions, classes
        self.constexpr_values: dict[str, int] = {}
        self._read_module()

    def _read_module(self) -> None:
        bad: set[str] = set()
        for stmt in self._module_statements(self.tree.body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    self.globals_ok.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.globals_ok.add(stmt.name)
                if isinstance(stmt, ast.FunctionDef) and any(is_jit_decorator(d) for d in stmt.decorator_list):
                    params = [a.arg for a in stmt.args.posonlyargs + stmt.args.args + stmt.args.kwonlyargs]
                    constexpr = {a.arg for a in stmt.args.posonlyargs + stmt.args.args + stmt.args.kwonlyargs
                                 if is_constexpr_annotation(a.annotation)}
                    debug = any(isinstance(d, ast.Call) and is_jit_decorator(d) and
                                isinstance(keyword(d, "debug"), ast.Constant) and keyword(d, "debug").value
                                for d in stmt.decorator_list)
                    self.kernels[stmt.name] = Kernel(stmt, params, constexpr,
                                                     [d for d in stmt.decorator_list if is_autotune(d)], debug)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                value = stmt.value
                for target in targets:
                    for name in ([target] if isinstance(target, ast.Name) else
                                 [e for e in getattr(target, "elts", []) if isinstance(e, ast.Name)]):
                        if value is None:
                            continue
                        if isinstance(target, ast.Name) and self._is_constexpr_value(value) \
                                and not isinstance(stmt, ast.AnnAssign):
                            self.globals_ok.add(name.id)
                            number = const_int(value, self.constexpr_values)
                            if number is not None:
                                self.constexpr_values[name.id] = number
                        elif isinstance(target, ast.Name) and self._is_plain_literal(value):
                            self.globals_plain.setdefault(name.id, stmt)
                        else:
                            bad.add(name.id)
            elif isinstance(stmt, (ast.For, ast.With, ast.AugAssign)):
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        bad.add(node.id)
        for name in bad | self.globals_ok:
            self.globals_plain.pop(name, None)
        # name = triton.autotune(...)(kernel), name = triton.jit(fn)
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 1 \
                    and isinstance(stmt.value.args[0], ast.Name):
                wrapped = self.kernels.get(stmt.value.args[0].id)
                if wrapped is not None and is_autotune(stmt.value.func):
                    self.kernels[stmt.targets[0].id] = Kernel(wrapped.node, wrapped.params, wrapped.constexpr,
                                                              [stmt.value.func], wrapped.debug)

    @staticmethod
    def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
        for stmt in body:
            if isinstance(stmt, ast.If):
                yield from Module._module_statements(stmt.body)
                yield from Module._module_statements(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                for block in (stmt.body, stmt.orelse, stmt.finalbody, *[h.body for h in stmt.handlers]):
                    yield from Module._module_statements(block)
            else:
                yield stmt

    @staticmethod
    def _is_constexpr_value(value: ast.AST) -> bool:
        return isinstance(value, ast.Call) and dotted(value.func) in (
            "tl.constexpr", "triton.language.constexpr", "constexpr", "language.constexpr")

    @staticmethod
    def _is_plain_literal(value: ast.AST) -> bool:
        """A number, string, bool or a tuple/list of them, or arithmetic on numbers: certainly not constexpr."""
        if isinstance(value, ast.Constant):
            return value.value is not None and not isinstance(value.value, bytes)
        if isinstance(value, (ast.Tuple, ast.List)):
            return all(Module._is_plain_literal(e) for e in value.elts)
        if isinstance(value, ast.UnaryOp):
            return Module._is_plain_literal(value.operand)
        if isinstance(value, ast.BinOp):
            return Module._is_plain_literal(value.left) and Module._is_plain_literal(value.right)
        return False


# ---------------------------------------------------------------- kernel rules

class KernelChecker:
    """One pass over a kernel's statements, in source order, tracking a few facts per local name."""

    def __init__(self, module: Module, kernel: Kernel, report: Callable[[ast.AST, str, str], None]):
        self.module, self.kernel, self.report = module, kernel, report
        self.ndim: dict[str, int | None] = {}
        self.taint: dict[str, str] = {}  # name -> "raw" | "abs": a masked load without other
        self.pid: set[str] = set()  # names holding an int32 program id (or arithmetic on one)
        self.tile: set[str] = set()  # names holding pid * BLOCK + tl.arange(...) offsets (or pointers at them)
        self.ints: dict[str, int] = dict(module.constexpr_values)
        self.locals: set[str] = set(kernel.params)
        self.bases: dict[str, set[str]] = {p: {p} for p in kernel.params}  # pointer name -> parameters it is at
        self.loaded: set[str] = set()
        self.stored: dict[str, ast.AST] = {}
        self.atomic: dict[str, ast.AST] = {}
        self.origin: dict[str, set[str]] = {}  # name -> pointer parameters its value was loaded from
        defaults = kernel.node.args.defaults
        positional = kernel.node.args.posonlyargs + kernel.node.args.args
        for arg, default in zip(positional[len(positional) - len(defaults):], defaults):
            value = const_int(default, self.ints)
            if value is not None and arg.arg in kernel.constexpr:
                self.ints[arg.arg] = value
        self.reads: list[ast.Name] = []
        for node in ast.walk(kernel.node):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    self.locals.add(node.id)
                elif module.globals_plain and node.id in module.globals_plain:
                    self.reads.append(node)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not kernel.node:
                self.locals.update(a.arg for a in node.args.args)
            elif isinstance(node, ast.comprehension):
                self.locals.update(names_in(node.target))
        for param in kernel.params:  # a parameter's own int value is not known
            self.ints.pop(param, None) if param not in kernel.constexpr else None

    def run(self) -> None:
        self.block(self.kernel.node.body, guards=())
        self.check_globals()

    # -- statements
    def block(self, body: list[ast.stmt], guards: tuple[ast.expr, ...]) -> None:
        for stmt in body:
            self.statement(stmt, guards)

    def statement(self, stmt: ast.stmt, guards: tuple[ast.expr, ...]) -> None:
        if isinstance(stmt, ast.If):
            self.expression(stmt.test, guards)
            self.block(stmt.body, guards + (stmt.test,))
            self.block(stmt.orelse, guards + (stmt.test,))
            return
        if isinstance(stmt, (ast.For, ast.While)):
            self.expression(stmt.iter if isinstance(stmt, ast.For) else stmt.test, guards)
            if isinstance(stmt, ast.For):
                for name in names_in(stmt.target):
                    self.forget(name)
            self.block(stmt.body, guards)
            self.block(stmt.orelse, guards)
            return
        if isinstance(stmt, ast.With):
            self.block(stmt.body, guards)
            return
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                self.expression(child, guards)
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self.assign(target, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, stmt.value)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            self.assign(stmt.target, ast.BinOp(stmt.target, stmt.op, stmt.value))

    def forget(self, name: str) -> None:
        for table in (self.ndim, self.taint, self.ints, self.bases, self.origin):
            table.pop(name, None)
        self.pid.discard(name)
        self.tile.discard(name)

    def assign(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):
                    self.assign(t, v)
            else:
                for name in names_in(target):
                    self.forget(name)
            return
        if not isinstance(target, ast.Name):
            return
        name = target.id
        self.forget(name)
        self.ndim[name] = self.dims(value)
        taint = self.tainted(value)
        if taint:
            self.taint[name] = taint
        if self.is_pid(value):
            self.pid.add(name)
        if self.is_tile(value):
            self.tile.add(name)
        number = const_int(value, self.ints)
        if number is not None:
            self.ints[name] = number
        bases = self.pointer_bases(value)
        if bases:
            self.bases[name] = bases
        origin = self.loaded_from(value)
        if origin:
            self.origin[name] = origin

    # -- facts about expressions
    def dims(self, node: ast.AST) -> int | None:
        if isinstance(node, ast.Name):
            return self.ndim.get(node.id, 0 if node.id in self.kernel.params else None)
        if isinstance(node, ast.Constant):
            return 0
        if isinstance(node, ast.Subscript):
            index = node.slice
            elts = index.elts if isinstance(index, ast.Tuple) else [index]
            if any(isinstance(e, ast.Constant) and e.value is None for e in elts):
                return len([e for e in elts if not (isinstance(e, ast.Constant) and e.value is Ellipsis)])
            return None
        if isinstance(node, ast.BinOp):
            left, right = self.dims(node.left), self.dims(node.right)
            return None if left is None or right is None else max(left, right)
        if isinstance(node, ast.UnaryOp):
            return self.dims(node.operand)
        if isinstance(node, ast.Compare):
            dims = [self.dims(n) for n in [node.left, *node.comparators]]
            return None if None in dims else max(dims)
        if isinstance(node, ast.Call):
            name = tl_name(node.func)
            if name == "arange":
                return 1
            if name == "program_id" or name == "num_programs":
                return 0
            if name in ("zeros", "full", "empty") and node.args and isinstance(node.args[0], (ast.Tuple, ast.List)):
                return len(node.args[0].elts)
            if name in ("reshape", "view", "broadcast_to") and len(node.args) > 1 \
                    and isinstance(node.args[1], (ast.Tuple, ast.List)):
                return len(node.args[1].elts)
            if name == "dot":
                return 2
            if name == "load" and node.args:
                return self.dims(node.args[0])
            if name in ("exp", "exp2", "log", "log2", "abs", "sqrt", "rsqrt", "sigmoid", "cos", "sin",
                        "maximum", "minimum", "where", "fma", "cast", "erf", "floor", "ceil"):
                dims = [self.dims(a) for a in node.args]
                return None if not dims or None in dims else max(dims)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
                return self.dims(node.func.value)
            return None
        return None

    def tainted(self, node: ast.AST, through_abs: bool = False) -> str:
        """'raw' or 'abs' when ``node`` carries a masked load's unset lanes, '' when not (or not known)."""
        if isinstance(node, ast.Name):
            kind = self.taint.get(node.id, "")
            return "abs" if kind and through_abs else kind
        if isinstance(node, ast.Call):
            name = tl_name(node.func)
            if name == "load":
                mask = argument(node, 1, "mask")
                other = argument(node, 2, "other")
                if mask is not None and other is None and not isinstance(mask, ast.Constant):
                    return "abs" if through_abs else "raw"
                return ""
            if name in ("where",) or name in REDUCTIONS or name in ("load", "store", "atomic_add", "dot"):
                return ""
            if name == "abs":
                return self._tainted_any(node.args, True)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
                return self.tainted(node.func.value, through_abs)
            if name:
                return self._tainted_any(node.args, through_abs)
            return ""
        if isinstance(node, ast.BinOp):
            return self._tainted_any([node.left, node.right], through_abs)
        if isinstance(node, ast.UnaryOp):
            return self.tainted(node.operand, through_abs)
        return ""

    def _tainted_any(self, nodes: Iterable[ast.AST], through_abs: bool) -> str:
        kinds = {self.tainted(n, through_abs) for n in nodes} - {""}
        return "raw" if "raw" in kinds else ("abs" if kinds else "")

    def is_pid(self, node: ast.AST) -> bool:
        """An int32 program id, or integer arithmetic on one, with no int64 cast anywhere in it."""
        if self._is_int64(node):
            return False
        for sub in walk(node):
            if isinstance(sub, ast.Call) and tl_name(sub.func) not in ("program_id", "minimum", "maximum", "cdiv"):
                return False
        return self._has_pid(node)

    def _has_pid(self, node: ast.AST) -> bool:
        return any((isinstance(s, ast.Name) and s.id in self.pid) or
                   (isinstance(s, ast.Call) and tl_name(s.func) == "program_id") for s in walk(node))

    def is_tile(self, node: ast.AST) -> bool:
        """pid * BLOCK + tl.arange(...), or an expression built on such offsets."""
        if self.tile and any(isinstance(s, ast.Name) and s.id in self.tile for s in walk(node)):
            return True
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Add):
            return False
        terms = self._add_terms(node)
        scaled = any(isinstance(t, ast.BinOp) and isinstance(t.op, ast.Mult) and self._has_pid(t) for t in terms)
        lanes = any(is_tl_call(t, "arange") for t in terms)
        return scaled and lanes

    def _add_terms(self, node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._add_terms(node.left) + self._add_terms(node.right)
        return [node]

    def pointer_bases(self, node: ast.AST) -> set[str]:
        """The pointer parameters an address expression is at: x_ptr + offs -> {x_ptr}."""
        if isinstance(node, ast.Name):
            return set(self.bases.get(node.id, set()))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self.pointer_bases(node.left) | (self.pointer_bases(node.right) if isinstance(node.op, ast.Add) else set())
        if is_tl_call(node, "make_block_ptr", "advance") and node.args:
            return self.pointer_bases(node.args[0])
        if is_tl_call(node, "make_block_ptr") and keyword(node, "base") is not None:
            return self.pointer_bases(keyword(node, "base"))
        return set()

    def loaded_from(self, node: ast.AST) -> set[str]:
        """The addresses (``ast.dump`` of a load's pointer, loaded before any store to its parameter) whose
        values flow, changed, into ``node``."""
        if isinstance(node, ast.Name):
            return set(self.origin.get(node.id, set()))
        if is_tl_call(node, "load") and node.args:
            return {ast.dump(node.args[0])} if not self.pointer_bases(node.args[0]) & set(self.stored) else set()
        if is_tl_call(node, "where") and len(node.args) == 3:
            # a loaded value passed through unchanged is idempotent: where(fill, value, old) stored back is not
            # an update that a second run repeats
            return self.loaded_from(node.args[0]) | {
                address for branch in node.args[1:] if not isinstance(branch, ast.Name) and not is_tl_call(branch, "load")
                for address in self.loaded_from(branch)}
        found: set[str] = set()
        for child in ast.iter_child_nodes(node):
            found |= self.loaded_from(child)
        return found

    # -- expressions: the rules that fire on calls and operators
    def expression(self, node: ast.AST, guards: tuple[ast.expr, ...]) -> None:
        for sub in walk(node):
            if isinstance(sub, ast.Call):
                self.call(sub, guards)
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mult):
                self.multiply(sub)
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div):
                self.divide(sub)

    def call(self, call: ast.Call, guards: tuple[ast.expr, ...]) -> None:
        name = tl_name(call.func)
        if name in ("max", "min", "argmax", "argmin", "reduce", "cumprod") and call.args:
            self.check_masked_reduction(call, name)
        if name in ("max", "min", "argmax", "argmin") and call.args:
            if argument(call, 1, "axis") is None and self.dims(call.args[0]) is not None \
                    and self.dims(call.args[0]) >= 2:
                self.report(call, "TP006", f"tl.{name} without axis on a {self.dims(call.args[0])}-D block "
                                           "reduces the whole tile to one value; name the axis (axis=1: one per row)")
        if name in ("argmax", "argmin"):
            tie = keyword(call, "tie_break_left")
            if isinstance(tie, ast.Constant) and tie.value is False:
                self.report(call, "TP034", f"tl.{name}(..., tie_break_left=False) returns any of the tied indices; "
                                           "the default (True) returns the first")
        if name == "arange" and len(call.args) >= 2:
            start, end = const_int(call.args[0], self.ints), const_int(call.args[1], self.ints)
            if start is not None and end is not None and not power_of_two(end - start):
                self.report(call, "TP009", f"tl.arange({start}, {end}) spans {end - start} lanes, not a power of two: "
                                           "Triton rejects it; round up with triton.next_power_of_2 and mask")
        if name in ("load", "store") and call.args:
            self.check_tail_mask(call, name, guards)
            bases = self.pointer_bases(call.args[0])
            value = argument(call, 1, "value") if name == "store" else None
            if value is not None:
                if ast.dump(call.args[0]) in self.loaded_from(value):  # in place: loaded from here, changed, stored back
                    self.loaded.update(bases)
                for base in bases:
                    self.stored.setdefault(base, call)
        if name == "atomic_add" and call.args:
            for base in self.pointer_bases(call.args[0]):
                self.atomic.setdefault(base, call)
        if dotted(call.func) in ("tl.math.tanh", "triton.language.math.tanh"):
            self.report(call, "TP021", "tl.math.tanh does not exist in Triton 3.x (AttributeError at compile time); "
                                       "use triton.language.extra.libdevice.tanh")
        if name == "make_block_ptr":
            self.report(call, "TP032", "tl.make_block_ptr warns from Triton 3.7 and block-pointer kernels fail from "
                                       "3.9; use a tensor descriptor or plain pointers with masks")
        if name == "device_print" and not any(self._has_pid(g) for g in guards):
            self.report(call, "TP013", "tl.device_print in every program: guard it with `if tl.program_id(0) == 0:`")
        if name == "device_assert" and not self.kernel.debug:
            self.report(call, "TP014", "tl.device_assert is compiled out unless the kernel has @triton.jit(debug=True) "
                                       "(assumed TRITON_DEBUG is not set)")
        if name == "dot" and keyword(call, "input_precision") is None and keyword(call, "allow_tf32") is None:
            self.report(call, "TP035", "tl.dot without input_precision runs float32 inputs as TF32 on NVIDIA GPUs "
                                       "(assumed float32 inputs; pass input_precision=\"ieee\" for full precision)")

    def check_masked_reduction(self, call: ast.Call, name: str) -> None:
        if name == "reduce":
            combine = argument(call, 2, "combine_fn")
            label = dotted(combine) if combine is not None else ""
            if not re.search(r"mul|prod", label, re.IGNORECASE):
                return
        kind = self.tainted(call.args[0])
        if kind == "raw" or (kind == "abs" and name not in ("max", "argmax")):
            what = "a product" if name in ("reduce", "cumprod") else f"tl.{name}"
            identity = {"max": "-float('inf')", "argmax": "-float('inf')", "min": "float('inf')",
                        "argmin": "float('inf')"}.get(name, "1")
            self.report(call, "TP001", f"a masked tl.load without other feeds {what}: its masked lanes read as 0 and "
                                       f"take part; pass other={identity} (the reduction's identity)")

    def check_tail_mask(self, call: ast.Call, name: str, guards: tuple[ast.expr, ...]) -> None:
        mask = argument(call, 1 if name == "load" else 2, "mask")
        if mask is not None or keyword(call, "boundary_check") is not None:
            return
        if not self.is_tile(call.args[0]):
            return
        if any(names_in(g) & self.kernel.constexpr for g in guards):
            return  # under `if EVEN_N:` and the like: assumed the constexpr says the blocks divide evenly
        self.report(call, "TP003", f"tl.{name} at pid * BLOCK + tl.arange(...) offsets without a mask: the last "
                                   "block reaches past the end unless the size is a multiple of BLOCK (assumed it "
                                   "need not be)")

    def multiply(self, node: ast.BinOp) -> None:
        for side, other in ((node.left, node.right), (node.right, node.left)):
            pid_side = (isinstance(side, ast.Name) and side.id in self.pid) or \
                       (isinstance(side, ast.Call) and tl_name(side.func) == "program_id")
            if pid_side and not self._is_int64(other):
                if isinstance(other, ast.Constant):
                    return
                self.report(node, "TP024", f"{ast.unparse(node)}: the program id is int32, so this product wraps past "
                                           "2**31 - 1 (heuristic: assumed the tensor can be that large); "
                                           "cast first: tl.program_id(0).to(tl.int64)")
                return

    @staticmethod
    def _is_int64(node: ast.AST) -> bool:
        return any(isinstance(s, ast.Attribute) and s.attr in ("int64", "uint64") for s in walk(node))

    def divide(self, node: ast.BinOp) -> None:
        def exp_arg(side: ast.AST, op: type) -> str | None:
            if isinstance(side, ast.BinOp) and isinstance(side.op, op) and isinstance(side.right, ast.Constant) \
                    and side.right.value == 1 and is_tl_call(side.left, "exp") and side.left.args:
                return ast.dump(side.left.args[0])
            return None
        top, bottom = exp_arg(node.left, ast.Sub), exp_arg(node.right, ast.Add)
        if top is not None and top == bottom:
            self.report(node, "TP022", "(exp(2x) - 1) / (exp(2x) + 1) is inf / inf = NaN once exp overflows (x > 44 "
                                       "in float32); use libdevice.tanh or exp(-2|x|) with the sign restored")

    def check_globals(self) -> None:
        plain = self.module.globals_plain
        if not plain:
            return
        body = (self.kernel.node.body[0].lineno, self.kernel.node.end_lineno)
        for node in self.reads:
            if body[0] <= node.lineno <= body[1] and node.id in plain and node.id not in self.locals:
                self.report(node, "TP033", f"the kernel reads the global {node.id!r}, a plain Python value: Triton "
                                           f"refuses it (NameError); pass it as a tl.constexpr argument or define "
                                           f"{node.id} = tl.constexpr(...)")
                plain = {k: v for k, v in plain.items() if k != node.id}  # once per name and kernel

    def check_autotune(self) -> list[tuple[ast.AST, str]]:
        """TP028 for each autotune wrapper of this kernel."""
        found = []
        for tuner in self.kernel.autotune:
            configs = keyword(tuner, "configs") or (tuner.args[0] if tuner.args else None)
            if isinstance(configs, (ast.List, ast.Tuple)) and len(configs.elts) == 1:
                continue  # one config: the autotuner does not benchmark
            restore = keyword(tuner, "restore_value")
            reset = keyword(tuner, "reset_to_zero")
            if restore is not None and not isinstance(restore, (ast.List, ast.Tuple)):
                continue  # not a literal list: assumed it covers the pointer
            restored = {e.value for e in getattr(restore, "elts", []) if isinstance(e, ast.Constant)}
            zeroed = {e.value for e in getattr(reset, "elts", []) if isinstance(e, ast.Constant)}
            if reset is not None and not isinstance(reset, (ast.List, ast.Tuple)):
                zeroed = set(self.kernel.params)
            for param in self.kernel.params:
                if param in restored:
                    continue
                if param in self.stored and param in self.loaded:
                    found.append((tuner, f"autotuned kernel {self.kernel.node.name} stores back to {param} what it "
                                         f"loaded from it: every benchmark run updates it again; add "
                                         f"restore_value=[{param!r}] to triton.autotune"))
                elif param in self.atomic and param not in zeroed:
                    found.append((tuner, f"autotuned kernel {self.kernel.node.name} adds atomically into {param}: "
                                         f"every benchmark run adds again; add reset_to_zero=[{param!r}] (or "
                                         f"restore_value) to triton.autotune"))
        return found


# ---------------------------------------------------------------- host rules

TIMERS = ("time.perf_counter", "time.time", "time.monotonic", "time.perf_counter_ns", "time.time_ns",
          "time.monotonic_ns", "perf_counter", "perf_counter_ns", "timeit.default_timer", "default_timer")
SYNCS = ("synchronize", "item", "cpu", "tolist", "numpy", "elapsed_time", "wait")
TIMER_CALLEE = re.compile(r"bench|time|measure|profil", re.IGNORECASE)


def host_checks(module: Module, report: Callable[[ast.AST, str, str], None]) -> None:
    jit_nodes = {id(k.node) for k in module.kernels.values()}
    for scope, own_calls in _calls_by_scope(module.tree, jit_nodes):
        calls = sorted(own_calls, key=lambda n: (n.lineno, n.col_offset))
        params = set()
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = {a.arg for a in scope.args.posonlyargs + scope.args.args + scope.args.kwonlyargs}
        for call in calls:
            last = call.func.attr if isinstance(call.func, ast.Attribute) else (
                call.func.id if isinstance(call.func, ast.Name) else "")
            # TP017: timer(kernel[grid](...))
            if last and TIMER_CALLEE.search(last) and any(is_launch(a) for a in call.args):
                launch = next(a for a in call.args if is_launch(a))
                report(launch, "TP017", f"{last}() is handed what {ast.unparse(launch.func)}(...) returned: the "
                                        "kernel already ran, once, untimed; pass `lambda: ...` instead")
            # TP031
            if last in ("do_bench", "do_bench_cudagraph"):
                if keyword(call, "fast_flush") is not None:
                    report(call, "TP031", f"{last}(fast_flush=...) was removed from Triton (TypeError); drop it")
                elif last == "do_bench" and keyword(call, "quantiles") is None and keyword(call, "return_mode") is None \
                        and len(call.args) < 4 and not any(kw.arg is None for kw in call.keywords):
                    report(call, "TP031", "do_bench without quantiles or return_mode returns the mean, which one slow "
                                          "run moves; ask for return_mode=\"median\" or quantiles=[0.2, 0.5, 0.8]")
            # TP009 at a launch
            if is_launch(call):
                launch_block_sizes(module, call, report)
        # TP018: host timer pairs
        timers = [c for c in calls if dotted(c.func) in TIMERS]
        for first, second in zip(timers, timers[1:]):
            inside = [c for c in calls if (first.lineno, first.col_offset) < (c.lineno, c.col_offset)
                      < (second.lineno, second.col_offset) and c is not first]
            work = [c for c in inside if is_launch(c) or (isinstance(c.func, ast.Name) and
                                                          (c.func.id in params or c.func.id in module.kernels))]
            if not work:
                continue
            last_work = work[-1]
            synced = any(dotted(c.func).rsplit(".", 1)[-1] in SYNCS and
                         (c.lineno, c.col_offset) > (last_work.lineno, last_work.col_offset) for c in inside)
            if not synced:
                what = ast.unparse(last_work.func)
                assumed = "" if is_launch(last_work) else f" (assumed {what}() queues GPU work)"
                report(second, "TP018", f"the timer is read after {what}(...) with no synchronize in between: on a "
                                        f"GPU it times the launch, not the kernel{assumed}; call "
                                        "torch.cuda.synchronize() first")


def _calls_by_scope(tree: ast.Module, skip: set[int]) -> list[tuple[ast.AST, list[ast.Call]]]:
    """The calls of the module and of each function (kernels in ``skip`` left out), in one walk.

    The walk reads each node's fields directly (``ast.iter_child_nodes`` costs a generator per node,
    most of the linter's time on a large file)."""
    scopes: list[tuple[ast.AST, list[ast.Call]]] = [(tree, [])]
    stack: list[tuple[ast.AST, list[ast.Call]]] = [(tree, scopes[0][1])]
    functions, call, node_type, context = (ast.FunctionDef, ast.AsyncFunctionDef), ast.Call, ast.AST, ast.expr_context
    while stack:
        node, calls = stack.pop()
        kind = type(node)
        if kind in functions and node is not tree:
            if id(node) in skip:
                continue
            scopes.append((node, []))
            calls = scopes[-1][1]
        elif kind is call:
            calls.append(node)
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type) and not isinstance(item, context):
                        stack.append((item, calls))
            elif isinstance(value, node_type) and not isinstance(value, context):
                stack.append((value, calls))
    return scopes


_ARANGE: dict[int, set[str]] = {}


def arange_params(kernel: Kernel) -> set[str]:
    """The kernel's parameters that are an end of a tl.arange."""
    if id(kernel.node) in _ARANGE:
        return _ARANGE[id(kernel.node)]
    found = set()
    for node in ast.walk(kernel.node):
        if is_tl_call(node, "arange"):
            found |= {a.id for a in node.args if isinstance(a, ast.Name)}
    _ARANGE[id(kernel.node)] = found = found & set(kernel.params)
    return found


BLOCK_NAME = re.compile(r"^BLOCK(_|$)|BLOCK_SIZE$")


def launch_block_sizes(module: Module, call: ast.Call, report: Callable[[ast.AST, str, str], None]) -> None:
    name = launched_kernel(call)
    kernel = module.kernels.get(name)
    passed: list[tuple[str, ast.expr]] = [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
    if kernel is not None:
        passed += list(zip(kernel.params, [a for a in call.args if not isinstance(a, ast.Starred)]))
        sizes = arange_params(kernel)
    for param, value in passed:
        if not (isinstance(value, ast.Constant) and type(value.value) is int) or power_of_two(value.value):
            continue
        if kernel is not None and param in sizes:
            report(value, "TP009", f"{param}={value.value} at this launch sizes a tl.arange in {name}: not a power "
                                   "of two, so Triton rejects it; pass triton.next_power_of_2(...) and mask")
        elif kernel is None and BLOCK_NAME.search(param):
            report(value, "TP009", f"{param}={value.value} is not a power of two (assumed it sizes a tl.arange in "
                                   f"{name}, which is not in this file); pass triton.next_power_of_2(...) and mask")


# ---------------------------------------------------------------- driver

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def noqa_lines(source: str) -> dict[int, set[str] | None]:
    """{line: codes silenced there, or None for a bare ``# noqa``}."""
    found: dict[int, set[str] | None] = {}
    if "noqa" not in source:
        return found
    for number, line in enumerate(source.splitlines(), 1):
        if "noqa" not in line:
            continue
        comment = _comment(line)
        match = NOQA.search(comment) if comment else None
        if match:
            codes = match["codes"]
            found[number] = None if not codes else {c.upper() for c in re.split(r"[\s,]+", codes) if c}
    return found


def _comment(line: str) -> str:
    """The comment that ends a line of code, if any (a '#' outside string quotes)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[index:]
    return ""


def lint_source(source: str, path: str = "<string>", select: Iterable[str] | None = None,
                host: bool = False) -> list[Finding]:
    """The findings in one file's source. ``select``: rule IDs (default: the rules on by default).

    ``host`` lints top-level code as host code even without a kernel in the file (always done;
    kept for callers that lint a snippet section).
    """
    chosen = set(DEFAULT if select is None else select)
    tree = ast.parse(source, filename=path)
    _WALKED.clear()
    _ARANGE.clear()
    module = Module(tree)
    findings: list[Finding] = []
    seen: set[tuple[int, int, str]] = set()

    def report(node: ast.AST, rule: str, message: str) -> None:
        if rule not in chosen:
            return
        key = (node.lineno, node.col_offset, rule)
        if key in seen:
            return
        seen.add(key)
        findings.append(Finding(path, node.lineno, node.col_offset + 1, rule, message))

    done: set[int] = set()
    for kernel in module.kernels.values():
        checker = KernelChecker(module, kernel, report)
        if id(kernel.node) not in done:
            done.add(id(kernel.node))
            checker.run()
        else:
            checker.block(kernel.node.body, ())
        for node, message in checker.check_autotune():
            report(node, "TP028", message)
    host_checks(module, report)
    _WALKED.clear()
    _ARANGE.clear()
    silenced = noqa_lines(source)
    kept = []
    for finding in findings:
        codes = silenced.get(finding.line, set())
        if finding.line in silenced and (codes is None or finding.rule in codes):
            continue
        kept.append(finding)
    return sorted(kept, key=lambda f: (f.line, f.col, f.rule))


SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".nox", "build", "dist"}


def python_files(paths: Iterable[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for file in sorted(files):
                    if file.endswith(".py"):
                        yield Path(folder) / file
        else:
            yield path


def lint_paths(paths: Iterable[str], select: Iterable[str] | None = None) -> tuple[list[Finding], list[str]]:
    """Findings in every Python file under ``paths``, and the files that could not be read or parsed."""
    findings, errors = [], []
    for file in python_files(paths):
        try:
            source = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            errors.append(f"{file}: not read: {error}")
            continue
        if "triton" not in source and "tl." not in source and "time" not in source:
            continue  # nothing any rule looks at
        try:
            findings += lint_source(source, str(file), select)
        except SyntaxError as error:
            errors.append(f"{file}:{error.lineno or 0}:{error.offset or 0}: not linted: {error.msg}")
    return findings, errors


def choose(select: str | None, ignore: str | None) -> list[str]:
    def split(text: str | None) -> list[str]:
        return [part.strip().upper() for part in (text or "").split(",") if part.strip()]

    chosen = list(DEFAULT)
    picked = split(select)
    if picked:
        chosen = [rule for rule in RULES if rule in picked or "ALL" in picked or any(
            rule.startswith(p) for p in picked if p != "ALL")]
    unknown = [p for p in picked + split(ignore) if p != "ALL" and not any(r.startswith(p) for r in RULES)]
    if unknown:
        raise ValueError(f"no such rule: {', '.join(unknown)} (rules: {', '.join(RULES)})")
    ignored = split(ignore)
    return [rule for rule in chosen if not any(rule.startswith(p) for p in ignored)]


def sarif(findings: list[Finding], rules: list[str]) -> dict:
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "triton-faq lint",
                "informationUri": handbook.load_site(handbook.ROOT).url_of("lint"),
                "rules": [{"id": r, "name": RULES[r].page.rsplit("/", 1)[-1],
                           "shortDescription": {"text": RULES[r].summary},
                           "helpUri": RULES[r].url(),
                           "defaultConfiguration": {"level": "warning", "enabled": RULES[r].default}}
                          for r in rules],
            }},
            "results": [{
                "ruleId": f.rule,
                "ruleIndex": rules.index(f.rule),
                "level": "warning",
                "message": {"text": f"{f.message} ({f.url})"},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": Path(f.path).as_posix()},
                    "region": {"startLine": f.line, "startColumn": f.col}}}],
            } for f in findings],
        }],
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="Python files or folders to check")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format")
    parser.add_argument("--select", help="comma-separated rule IDs (or prefixes, or ALL) to run instead of the "
                                         "defaults, e.g. --select ALL or --select TP003,TP024")
    parser.add_argument("--ignore", help="comma-separated rule IDs to skip")
    parser.add_argument("--list", action="store_true", help="list the rules and exit")


def run(args: argparse.Namespace) -> int:
    if args.list:
        for rule in RULES.values():
            print(f"{rule.id}  {'on ' if rule.default else 'opt'}  {rule.summary}  [{rule.url()}]")
        return 0
    try:
        rules = choose(args.select, args.ignore)
    except ValueError as error:
        print(f"triton-faq lint: {error}", file=sys.stderr)
        return 2
    if not args.paths:
        print("triton-faq lint: name at least one file or folder", file=sys.stderr)
        return 2
    findings, errors = lint_paths(args.paths, rules)
    for error in errors:
        print(f"triton-faq lint: {error}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps([dict(asdict(f), url=f.url) for f in findings], indent=1))
    elif args.format == "sarif":
        print(json.dumps(sarif(findings, rules), indent=1))
    else:
        for finding in findings:
            print(finding.text())
    return 1 if findings else 0
