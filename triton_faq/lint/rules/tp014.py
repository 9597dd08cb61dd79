"""TP014: tl.device_assert in a kernel without debug=True."""

from ..core import Rule
from ._common import kernels

RULE = Rule("TP014", "debugging/device-assert", False,
            "tl.device_assert in a kernel without debug=True: compiled out unless TRITON_DEBUG=1")


def check(f):
    for s in kernels(f):
        if s.debug:
            continue
        for call in s.calls:
            if f.tl(call.func, s) == "device_assert":
                yield call, ("tl.device_assert is compiled out unless the kernel has @triton.jit(debug=True) "
                             "(assumed TRITON_DEBUG is not set)")


BAD = ['''
@triton.jit
def k(x_ptr):
    tl.device_assert(tl.load(x_ptr) > 0)
''']
GOOD = ['''
@triton.jit(debug=True)
def k(x_ptr):
    tl.device_assert(tl.load(x_ptr) > 0)
''']
