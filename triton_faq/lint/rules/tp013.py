"""TP013: tl.device_print in every program."""

from ..core import Rule
from ..values import has_pid
from ._common import kernels

RULE = Rule("TP013", "debugging/device-print", False,
            "tl.device_print outside an `if` on the program id: every program prints")


def check(f):
    for s in kernels(f):
        for call in s.calls:
            if f.tl(call.func, s) == "device_print" and not any(has_pid(f, s, g) for g in s.guards[id(call)]):
                yield call, "tl.device_print in every program: guard it with `if tl.program_id(0) == 0:`"


BAD = ['''
@triton.jit
def k(x_ptr):
    tl.device_print("x", tl.load(x_ptr))
''']
GOOD = ['''
@triton.jit
def k(x_ptr):
    pid = tl.program_id(0)
    if pid == 0:
        tl.device_print("x", tl.load(x_ptr))
''']
