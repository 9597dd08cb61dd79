"""TP028: an autotuned kernel that updates memory in place, with nothing that restores it between runs."""

import ast

from ..core import Rule, argument, keyword, dotted
from ..values import pointer_bases
from ._common import kernels  # noqa: F401

RULE = Rule("TP028", "autotuning/in-place-kernel-autotuning", True,
            "autotuned kernel stores to a pointer it also loads (or adds atomically) with no restore_value / "
            "reset_to_zero")

ATOMIC_ADDS = ("atomic_add", "atomic_sub")


def loaded_addresses(f, s, node, depth=4) -> set[str]:
    """The addresses (as written) of the loads whose values flow, changed, into ``node``. A load passed through
    tl.where unchanged is left out: storing it back is idempotent."""
    if isinstance(node, ast.Name):
        value = s.value(node) if depth > 0 else None
        return set() if value is None else loaded_addresses(f, s, value, depth - 1)
    if f.is_tl_call(node, s, "load") and node.args:
        return {ast.dump(node.args[0])}
    if f.is_tl_call(node, s, "where") and len(node.args) == 3:
        found = loaded_addresses(f, s, node.args[0], depth)
        for branch in node.args[1:]:
            plain = f.is_tl_call(s.resolve(branch), s, "load")
            if not plain:
                found |= loaded_addresses(f, s, branch, depth)
        return found
    found: set[str] = set()
    for child in ast.iter_child_nodes(node):
        found |= loaded_addresses(f, s, child, depth)
    return found


def names(node) -> set[str]:
    return {e.value for e in getattr(node, "elts", []) if isinstance(e, ast.Constant)}


def config_expressions(f, configs) -> list[ast.AST]:
    """The configs expression, with every module-level value of the names in it."""
    found = [configs]
    for node in ast.walk(configs):
        if isinstance(node, ast.Name):
            found += [v for _, _, v in f.module.assigns.get(node.id, []) if v is not None]
    return found


def has_pre_hook(f, tuner) -> bool:
    """autotune(pre_hook=...) or a Config(pre_hook=...) among its configs (written there, or in a function of
    this file that builds them): assumed to reset the buffers."""
    if keyword(tuner, "pre_hook") is not None:
        return True
    configs = keyword(tuner, "configs") or (tuner.args[0] if tuner.args else None)
    if configs is None:
        return False
    for expression in config_expressions(f, configs):
        for node in ast.walk(expression):
            if not isinstance(node, ast.Call):
                continue
            if keyword(node, "pre_hook") is not None:
                return True
            builder = f.functions.get(dotted(node.func).rsplit(".", 1)[-1])
            if builder is not None and any(keyword(c, "pre_hook") is not None for c in builder.calls):
                return True
    return False


def literal_configs(f, tuner) -> list[dict[str, object]] | None:
    """The meta-parameters of each config, when the configs are a literal list of Config({...}); else None."""
    configs = keyword(tuner, "configs") or (tuner.args[0] if tuner.args else None)
    if not isinstance(configs, (ast.List, ast.Tuple)):
        return None
    found = []
    for element in configs.elts:
        if not (isinstance(element, ast.Call) and element.args and isinstance(element.args[0], ast.Dict)):
            return None
        table = {}
        for key, value in zip(element.args[0].keys, element.args[0].values):
            if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
                table[key.value] = value.value
        found.append(table)
    return found


def evaluate(node, values: dict[str, object]):
    """A guard's truth with the config's meta-parameters, or None when it depends on anything else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values.get(node.id, None)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = evaluate(node.operand, values)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = evaluate(node.left, values), evaluate(node.comparators[0], values)
        if left is None or right is None:
            return None
        compare = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Gt: lambda a, b: a > b,
                   ast.Lt: lambda a, b: a < b, ast.GtE: lambda a, b: a >= b, ast.LtE: lambda a, b: a <= b}
        operator = compare.get(type(node.ops[0]))
        return None if operator is None else operator(left, right)
    return None


def never_runs(s, call, configs) -> bool:
    """Every config makes a guard around ``call`` false (`if SPLIT_K == 1: store else: atomic_add`, SPLIT_K 1)."""
    if not configs:
        return False
    return any(all(evaluate(guard, config) is False for config in configs) for guard in s.guards[id(call)])


def dominates(s, first: ast.Call, second: ast.Call) -> bool:
    """``first`` runs before ``second`` on every path: in the same statement list or one around it, earlier."""
    outer, inner = s.blocks[id(first)], s.blocks[id(second)]
    return inner[:len(outer)] == outer and (first.lineno, first.col_offset) < (second.lineno, second.col_offset) \
        and s.loops[id(first)] <= s.loops[id(second)]


def check(f):
    done = set()
    for name, s in f.kernels.items():
        for tuner in s.autotune:
            if id(tuner) in done:
                continue
            done.add(id(tuner))
            configs = keyword(tuner, "configs") or (tuner.args[0] if tuner.args else None)
            if isinstance(configs, (ast.List, ast.Tuple)) and len(configs.elts) == 1:
                continue  # one config: the autotuner does not benchmark
            restore, reset = keyword(tuner, "restore_value"), keyword(tuner, "reset_to_zero")
            if (restore is not None and not isinstance(restore, (ast.List, ast.Tuple))) or \
                    (reset is not None and not isinstance(reset, (ast.List, ast.Tuple))) or has_pre_hook(f, tuner):
                continue  # not a literal list, or a pre_hook: assumed it covers the buffers
            restored, zeroed = names(restore), names(reset)
            configs_seen = literal_configs(f, tuner)
            updated: dict[str, str] = {}
            stores: dict[str, list[ast.Call]] = {}
            atomics: dict[str, ast.Call] = {}
            for call in s.calls:
                what = f.tl(call.func, s)
                if what == "store" and call.args:
                    bases = pointer_bases(f, s, call.args[0])
                    value = argument(call, 1, "value")
                    for base in bases:
                        stores.setdefault(base, []).append(call)
                        if value is not None and ast.dump(call.args[0]) in loaded_addresses(f, s, value):
                            updated.setdefault(base, "stores back")
                elif what in ATOMIC_ADDS and call.args and not never_runs(s, call, configs_seen):
                    for base in pointer_bases(f, s, call.args[0]):
                        if not any(dominates(s, store, call) for store in stores.get(base, [])):
                            atomics.setdefault(base, call)
            for param in s.params:
                if param in restored:
                    continue
                if param in updated:
                    yield tuner, (f"autotuned kernel {s.name} stores back to {param} what it loaded from it: every "
                                  f"benchmark run updates it again; add restore_value=[{param!r}] to triton.autotune")
                elif param in atomics and param not in zeroed:
                    yield tuner, (f"autotuned kernel {s.name} adds atomically into {param}: every benchmark run adds "
                                  f"again; add reset_to_zero=[{param!r}] (or restore_value) to triton.autotune")


BAD = ['''
@triton.autotune(configs=[triton.Config({"B": 64}), triton.Config({"B": 128})], key=["n"])
@triton.jit
def k(x_ptr, out_ptr, n, stride, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    ptrs = out_ptr
    ptrs += tl.program_id(1) * stride
    tl.atomic_add(ptrs, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))
''']
GOOD = ['''
@triton.autotune(configs=[triton.Config({"B": 64}), triton.Config({"B": 128})], key=["n"], reset_to_zero=["out_ptr"])
@triton.jit
def k(x_ptr, out_ptr, n, stride, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.atomic_add(out_ptr + 2 * stride, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))
''', '''
def zero(nargs):
    nargs["out_ptr"].zero_()

@triton.autotune(configs=[triton.Config({"B": 64}, pre_hook=zero), triton.Config({"B": 128}, pre_hook=zero)], key=["n"])
@triton.jit
def k(x_ptr, out_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))
''']
