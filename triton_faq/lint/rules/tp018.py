"""TP018: a host timer read again after a launch, with no synchronize in between."""

import ast
import re

from ..core import Rule, dotted
from ._common import hosts

RULE = Rule("TP018", "timing/host-timer-without-sync", True,
            "host timer around a launch with no synchronize before the timer is read again")

TIMERS = {"time.perf_counter", "time.time", "time.monotonic", "time.perf_counter_ns", "time.time_ns",
          "time.monotonic_ns", "timeit.default_timer"}
SYNCS = {"synchronize", "item", "cpu", "tolist", "numpy", "elapsed_time", "wait", "block_until_ready"}
NOT_GPU_WORK = re.compile(r"sync|wait|log|print|callback|hook|sleep|check|deadline", re.IGNORECASE)
CPU_SCOPE = re.compile(r"\bcpu\b|_cpu|cpu_|interpreter", re.IGNORECASE)


def callable_names(s) -> set[str]:
    """Callables this function was handed: its parameters and those of the functions around it (a
    decorator's ``fn``), and lambdas it bound."""
    found: set[str] = set()
    scope = s
    while scope is not None and scope.kind != "module":
        found |= set(scope.params)
        found |= {name for name, values in scope.assigns.items()
                  if any(isinstance(v, ast.Lambda) for _, _, v in values)}
        scope = scope.parent
    return found


def syncers(f) -> set[str]:
    """Functions of this file that synchronize (a ``sync()`` helper)."""
    found = set()
    for name, scope in f.functions.items():
        if any(dotted(c.func).rsplit(".", 1)[-1] in SYNCS for c in scope.calls):
            found.add(name)
    return found


def in_comparison(s, call) -> bool:
    """The timer read is compared (``time.monotonic() - start > deadline``): a deadline, not a measurement."""
    stmt = s.stmt_of.get(id(call))
    if stmt is None:
        return False
    for node in ast.walk(stmt):
        if isinstance(node, ast.Compare) and any(sub is call for sub in ast.walk(node)):
            return True
    return False


def check(f):
    syncing = None
    for s in hosts(f):
        timers = [c for c in s.calls if f.canonical(c.func, s) in TIMERS]
        if len(timers) < 2:
            continue
        if CPU_SCOPE.search(s.name) or CPU_SCOPE.search(s.docstring):
            continue  # a timer for CPU work (or for the interpreter, where a launch returns when it is done)
        syncing = syncing if syncing is not None else syncers(f)
        handed = callable_names(s)
        order = {id(c): i for i, c in enumerate(s.calls)}
        for first, second in zip(timers, timers[1:]):
            if in_comparison(s, second):
                continue
            inside = [c for c in s.calls if order[id(first)] < order[id(c)] < order[id(second)]
                      and (c.lineno, c.col_offset) > (first.lineno, first.col_offset)]
            work = []
            for c in inside:
                if f.launches(c):
                    work.append((c, ""))
                elif isinstance(c.func, ast.Name) and c.func.id in handed and not NOT_GPU_WORK.search(c.func.id):
                    work.append((c, f" (assumed {c.func.id}() queues GPU work)"))
            if not work:
                continue
            last, assumed = work[-1]
            synced = any(order[id(c)] > order[id(last)] and
                         (dotted(c.func).rsplit(".", 1)[-1] in SYNCS or dotted(c.func).rsplit(".", 1)[-1] in syncing)
                         for c in inside)
            if not synced:
                what = ast.unparse(last.func)
                yield second, (f"the timer is read after {what}(...) with no synchronize in between: on a GPU it "
                               f"times the launch, not the kernel{assumed}; call torch.cuda.synchronize() first")


BAD = ['''
from time import perf_counter as clock

@triton.jit
def k(x_ptr):
    tl.store(x_ptr, 1.0)

def run(x):
    k[(1,)](x)

def t(x):
    start = clock()
    run(x)
    return clock() - start
''', '''
def timed(fn):
    def wrapper(*args):
        start = time.perf_counter()
        out = fn(*args)
        print(time.perf_counter() - start)
        return out
    return wrapper
''']
GOOD = ['''
def t(fn):
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - start
''', '''
def wait_for(fn, sync, timeout):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        sync()
''', '''
def bench_cpu(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
''']
