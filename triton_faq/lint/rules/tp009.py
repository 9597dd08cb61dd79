"""TP009: a tl.arange range, or a block size a launch passes to one, that is not a power of two."""

import ast
import re

from ..core import Rule, const_int, launched_kernel, power_of_two, is_launch
from ._common import hosts, kernels

RULE = Rule("TP009", "performance/block-size-power-of-two", True,
            "tl.arange range (or the block size a launch passes to it) is not a power of two")

BLOCK_NAME = re.compile(r"^BLOCK(_|$)|BLOCK_SIZE$")


def known_ints(f, s) -> dict[str, int]:
    ints = dict(f.constexpr_values)
    positional = s.node.args.posonlyargs + s.node.args.args
    defaults = s.node.args.defaults
    for param in s.params:
        ints.pop(param, None)
    for arg, default in zip(positional[len(positional) - len(defaults):], defaults):
        value = const_int(default, ints)
        if value is not None and arg.arg in s.constexpr:
            ints[arg.arg] = value
    for name, found in s.assigns.items():
        if len(found) == 1 and found[0][2] is not None and name not in s.params:
            value = const_int(found[0][2], ints)
            if value is not None:
                ints[name] = value
    return ints


def arange_params(f, s) -> set[str]:
    return {a.id for c in s.calls if f.tl(c.func, s) == "arange" for a in c.args if isinstance(a, ast.Name)} & set(s.params)


def check(f):
    for s in kernels(f):
        ints = None
        for call in s.calls:
            if f.tl(call.func, s) != "arange" or len(call.args) < 2:
                continue
            ints = ints if ints is not None else known_ints(f, s)
            start, end = const_int(call.args[0], ints), const_int(call.args[1], ints)
            if start is not None and end is not None and not power_of_two(end - start):
                yield call, (f"tl.arange({start}, {end}) spans {end - start} lanes, not a power of two: Triton "
                             "rejects it; round up with triton.next_power_of_2 and mask")
    for s in hosts(f):
        for call in s.calls:
            if not is_launch(call):
                continue
            name = launched_kernel(call)
            kernel = f.kernels.get(name)
            passed = [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
            sizes = set()
            if kernel is not None:
                passed += list(zip(kernel.params, [a for a in call.args if not isinstance(a, ast.Starred)]))
                sizes = arange_params(f, kernel)
            for param, value in passed:
                if not (isinstance(value, ast.Constant) and type(value.value) is int) or power_of_two(value.value):
                    continue
                if kernel is not None and param in sizes:
                    yield value, (f"{param}={value.value} at this launch sizes a tl.arange in {name}: not a power of "
                                  "two, so Triton rejects it; pass triton.next_power_of_2(...) and mask")
                elif kernel is None and BLOCK_NAME.search(param):
                    yield value, (f"{param}={value.value} is not a power of two (assumed it sizes a tl.arange in "
                                  f"{name}, which is not in this file); pass triton.next_power_of_2(...) and mask")


BAD = ['''
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

def run(x):
    k[(1,)](x, BLOCK=100)
''']
GOOD = ['''
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)

def run(x):
    k[(1,)](x, 100, BLOCK=128)
''']
