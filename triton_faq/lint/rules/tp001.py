"""TP001: a masked tl.load without ``other`` feeds tl.max / tl.min / a product."""

import re

from ..core import Rule, argument, dotted
from ..values import tainted
from ._common import kernels

RULE = Rule("TP001", "garbage-values/masked-load-without-other", True,
            "masked tl.load without other feeds tl.max / tl.min / a product: masked lanes read as 0")

IDENTITY = {"max": "-float('inf')", "argmax": "-float('inf')", "min": "float('inf')", "argmin": "float('inf')"}


def check(f):
    for s in kernels(f):
        for call in s.calls:
            name = f.tl(call.func, s)
            if name not in ("max", "min", "argmax", "argmin", "reduce", "cumprod") or not call.args:
                continue
            if name == "reduce":
                combine = argument(call, 2, "combine_fn")
                if not re.search(r"mul|prod", dotted(combine) if combine is not None else "", re.IGNORECASE):
                    continue
            kind = tainted(f, s, call.args[0])
            if kind == "raw" or (kind == "abs" and name not in ("max", "argmax")):
                what = "a product" if name in ("reduce", "cumprod") else f"tl.{name}"
                yield call, (f"a masked tl.load without other feeds {what}: its masked lanes read as 0 and take part; "
                             f"pass other={IDENTITY.get(name, '1')} (the reduction's identity)")


BAD = ['''
@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n)
    y = x * 2.0
    tl.store(out_ptr, tl.max(y, axis=0))
''']
GOOD = ['''
@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=-float("inf"))
    tl.store(out_ptr, tl.max(x, axis=0))
''', '''
@triton.jit
def k(p, o, n, B: tl.constexpr):
    c = tl.arange(0, B)
    x = tl.load(p + c, mask=c < n)
    tl.store(o, tl.max(tl.abs(x), 0))
''']
