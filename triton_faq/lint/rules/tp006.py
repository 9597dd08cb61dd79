"""TP006: tl.max / tl.min / tl.argmax / tl.argmin with no axis on a 2-D block."""

from ..core import Rule, argument
from ..values import dims
from ._common import kernels

RULE = Rule("TP006", "reductions/max-without-axis", True,
            "tl.max / tl.min / tl.argmax / tl.argmin without axis on a 2-D block reduces the whole tile")


def check(f):
    for s in kernels(f):
        for call in s.calls:
            name = f.tl(call.func, s)
            if name not in ("max", "min", "argmax", "argmin") or not call.args or argument(call, 1, "axis") is not None:
                continue
            operand = s.resolve(call.args[0])
            if f.is_tl_call(operand, s, "abs"):
                continue  # the whole tile's largest magnitude: a block-wise quantisation scale, meant so
            rank = dims(f, s, call.args[0])
            if rank is not None and rank >= 2:
                yield call, (f"tl.{name} without axis on a {rank}-D block reduces the whole tile to one value; "
                             "name the axis (axis=1: one per row)")


BAD = ['''
@triton.jit
def k(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :])
    tl.store(out_ptr + rows, tl.max(x))
''']
GOOD = ['''
@triton.jit
def k(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :])
    tl.store(out_ptr + rows, tl.max(x, axis=1))
    tl.store(out_ptr, tl.max(tl.abs(x)) / 448.0)
''']
