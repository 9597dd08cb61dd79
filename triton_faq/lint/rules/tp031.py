"""TP031: do_bench(fast_flush=...) (a TypeError), and do_bench / do_bench_cudagraph returning the mean."""

import ast

from ..core import Rule, keyword, dotted
from ._common import hosts

RULE = Rule("TP031", "timing/do-bench-pitfalls", True,
            "do_bench(fast_flush=...) is a TypeError; do_bench without quantiles / return_mode returns the mean "
            "(reported once per file)")

BENCHES = {"triton.testing.do_bench": 3, "triton.testing.do_bench_cudagraph": 3}  # -> position of quantiles


def own_benches(f) -> dict[str, int]:
    """Functions of this file named do_bench* that return the mean unless asked (a copy of Triton's)."""
    found = {}
    for name, scope in f.functions.items():
        if not name.startswith("do_bench") or not hasattr(scope.node, "args"):
            continue
        args = scope.node.args
        positional = args.posonlyargs + args.args
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        mode = defaults.get("return_mode")
        if isinstance(mode, ast.Constant) and mode.value == "mean" and "quantiles" in [a.arg for a in positional + args.kwonlyargs]:
            found[name] = [a.arg for a in positional].index("quantiles") if "quantiles" in [a.arg for a in positional] else 99
    return found


def check(f):
    mine = own_benches(f)
    means = []
    for s in hosts(f):
        for call in s.calls:
            canonical = f.canonical(call.func, s)
            last = dotted(call.func).rsplit(".", 1)[-1]
            if canonical in BENCHES:
                position = BENCHES[canonical]
            elif last in mine and canonical == last:
                position = mine[last]
            elif last in ("do_bench", "do_bench_cudagraph") and canonical == last and last not in f.functions:
                position = 3  # imported from somewhere this file does not say: assumed Triton's
            else:
                continue
            if keyword(call, "fast_flush") is not None:
                yield call, f"{last}(fast_flush=...) was removed from Triton (TypeError); drop it"
            elif keyword(call, "quantiles") is None and keyword(call, "return_mode") is None \
                    and len(call.args) <= position and not any(kw.arg is None for kw in call.keywords):
                means.append((call, last))
    if means:
        call, last = means[0]
        more = f" ({len(means) - 1} more in this file)" if len(means) > 1 else ""
        yield call, (f"{last} without quantiles or return_mode returns the mean, which one slow run moves; ask for "
                     f"return_mode=\"median\" or quantiles=[0.2, 0.5, 0.8]{more}")


BAD = ['''
from triton.testing import do_bench as bench

def t(fn):
    return bench(fn, warmup=25, rep=100)
''', '''
def t(fn):
    return triton.testing.do_bench(fn, fast_flush=False, return_mode="median")
''']
GOOD = ['''
def t(fn):
    return triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])
''', '''
def do_bench(fn, warmup=25, rep=100, quantiles=None, return_mode="median"):
    ...

def t(fn):
    return do_bench(fn)
''']
