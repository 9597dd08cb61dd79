"""TP021: tl.math.tanh, gone in Triton 3."""


from ..core import Rule
from ._common import kernels

RULE = Rule("TP021", "math-functions/where-is-tanh", True,
            "tl.math.tanh: not in Triton 3.x; use libdevice.tanh", since=(3, 0))


def check(f):
    for s in kernels(f):
        for call in s.calls:
            if f.canonical(call.func, s) == "triton.language.math.tanh":
                yield call, ("tl.math.tanh does not exist in Triton 3.x (AttributeError at compile time); use "
                             "triton.language.extra.libdevice.tanh")


BAD = ['''
@triton.jit
def k(x_ptr):
    tl.store(x_ptr, tl.math.tanh(tl.load(x_ptr)))
''']
GOOD = ['''
from triton.language.extra import libdevice

@triton.jit
def k(x_ptr):
    tl.store(x_ptr, libdevice.tanh(tl.load(x_ptr)))
''']
