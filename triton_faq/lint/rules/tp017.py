"""TP017: a timer handed what a launch returned."""

import ast
import re

from ..core import Rule
from ._common import hosts

RULE = Rule("TP017", "timing/timer-lambda-trap", True,
            "a timer is handed a launch's return value: the kernel ran once, before the timer started")

TIMER_CALLEE = re.compile(r"bench|time|measure|profil", re.IGNORECASE)


def check(f):
    for s in hosts(f):
        for call in s.calls:
            func = call.func
            last = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
            if not last or not TIMER_CALLEE.search(last):
                continue
            for arg in call.args:
                if isinstance(arg, ast.Call) and f.launches(arg):
                    yield arg, (f"{last}() is handed what {ast.unparse(arg.func)}(...) returned: the kernel already "
                                "ran, once, untimed; pass `lambda: ...` instead")
                    break


BAD = ['''
@triton.jit
def k(x_ptr):
    tl.store(x_ptr, 1.0)

def launch(x):
    k[(1,)](x)

def t(x):
    return triton.testing.do_bench(launch(x))
''']
GOOD = ['''
def t(x):
    return triton.testing.do_bench(lambda: k[(1,)](x), return_mode="median")
''']
