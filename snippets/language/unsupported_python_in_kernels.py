"""TP047: which Python a compiled kernel takes, and the comprehension whose `if` is dropped.

Run it: python unsupported_python_in_kernels.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def sum_even_rows(x_ptr, out_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    rows = [r for r in (0, 1, 2, 3) if r % 2 == 0]  # compiled, the `if` is dropped: rows 0, 1, 2, 3
    acc = tl.full([BLOCK], 0.0, tl.float32)
    for i in tl.static_range(len(rows)):
        row = rows[i]
        acc += tl.load(x_ptr + row * BLOCK + cols)
    tl.store(out_ptr + cols, acc)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def sum_even_rows_fixed(x_ptr, out_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], 0.0, tl.float32)
    for r in tl.static_range(4):
        if r % 2 == 0:  # the fix: the filter as a constexpr `if` in a static_range loop
            acc += tl.load(x_ptr + r * BLOCK + cols)
    tl.store(out_ptr + cols, acc)
# --8<-- [end:fix]


# --8<-- [start:launch]
def sum_rows(kernel, x):
    """Run `kernel` on a (4, BLOCK) float32 tensor; the output starts as NaN, which no program writes."""
    out = torch.full((x.shape[1],), float("nan"), device=x.device)
    kernel[(1,)](x, out, BLOCK=x.shape[1])
    return out
# --8<-- [end:launch]


# --8<-- [start:constructs]
@triton.jit
def uses_dict(out_ptr):
    d = {"a": 1, "b": 2}
    tl.store(out_ptr, d["b"])


@triton.jit
def uses_try_except(out_ptr):
    try:
        v = 1
    except Exception:
        v = 2
    tl.store(out_ptr, v)


@triton.jit
def uses_generator(out_ptr):
    g = (v * 2 for v in (1, 2, 3))
    tl.store(out_ptr, next(g))


@triton.jit
def uses_builtin_sum(out_ptr):
    tl.store(out_ptr, sum((1, 2, 3)))


@triton.jit
def uses_lambda(out_ptr):
    f = lambda v: v + 1  # noqa: E731
    tl.store(out_ptr, f(1))


@triton.jit
def uses_set(out_ptr):
    s = {1, 2}
    tl.store(out_ptr, len(s))


@triton.jit
def uses_walrus(out_ptr):
    tl.store(out_ptr, (v := 3) + v)


@triton.jit
def uses_break(out_ptr):
    v = 0
    for i in range(10):
        v += i
        if i == 3:
            break
    tl.store(out_ptr, v)


@triton.jit
def uses_item_assignment(out_ptr):
    t = (1, 2)
    t[0] = 3
    tl.store(out_ptr, t[0])


@triton.jit
def uses_comprehension_over_range(out_ptr):
    t = [v * 2 for v in range(3)]
    tl.store(out_ptr, t[2])


@triton.jit
def uses_nested_comprehension(out_ptr):
    t = [a * b for a in (1, 2) for b in (3, 4)]
    tl.store(out_ptr, t[3])


@triton.jit
def uses_comprehension_with_if(out_ptr):
    t = [v for v in (10, 20, 30, 40) if v >= 30]
    tl.store(out_ptr, t[0])


@triton.jit
def uses_comprehension_over_tuple(out_ptr):
    t = [v * 2 for v in (1, 2, 3)]
    tl.store(out_ptr, t[2])


CONSTRUCTS = {  # each kernel stores one int32
    "dict": uses_dict,
    "try / except": uses_try_except,
    "generator expression": uses_generator,
    "builtin sum()": uses_builtin_sum,
    "lambda": uses_lambda,
    "set": uses_set,
    "walrus :=": uses_walrus,
    "break": uses_break,
    "item assignment t[0] = ...": uses_item_assignment,
    "comprehension over range()": uses_comprehension_over_range,
    "nested comprehension": uses_nested_comprehension,
    "comprehension with if": uses_comprehension_with_if,
    "comprehension over a tuple": uses_comprehension_over_tuple,
}


def run_construct(name):
    """Launch one construct's kernel; return what it stored, or the error's first line."""
    out = torch.full((1,), -1, dtype=torch.int32, device=DEVICE)
    try:
        CONSTRUCTS[name][(1,)](out)
    except Exception as error:
        return f"{type(error).__name__}: {str(error).strip().splitlines()[-1]}"
    return out.item()
# --8<-- [end:constructs]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU


def compile_for_h200(kernel, signature, constexprs=None):
    """Compile a kernel for sm_90 without launching it (and without a GPU); returns the compiled kernel."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    signature = dict(signature, **{name: "constexpr" for name in constexprs or {}})
    return triton.compile(triton.compiler.ASTSource(fn, signature, constexprs or {}), target=H200)


def compile_construct(name):
    """'compiles, stores N' (N read from the compiled kernel's IR), or the last line of the compiler's error."""
    import re

    try:
        ttir = compile_for_h200(CONSTRUCTS[name], {"out_ptr": "*i32"}).asm["ttir"]
    except Exception as error:
        return str(error).strip().splitlines()[-1]
    constants = re.findall(r"arith.constant (-?\d+) : i32", ttir)
    return f"compiles, stores {constants[-1]}" if len(constants) == 1 else "compiles"
# --8<-- [end:offline]


def main():
    compiled = {name: compile_construct(name) for name in CONSTRUCTS}  # compile first, before any interpreted launch
    loads = compile_for_h200(sum_even_rows, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 8}).asm["ttir"].count("tt.load")
    print(f"{'construct':28} {'compiled for sm_90':60} launched here")
    for name in CONSTRUCTS:
        print(f"{name:28} {compiled[name]:60} {run_construct(name)}")
    print("sum_even_rows compiled for sm_90 loads", loads, "rows")
    x = torch.arange(32.0, device=DEVICE).reshape(4, 8)
    print("sum of rows 0 and 2:", (x[0] + x[2]).tolist())
    print("  pitfall:", sum_rows(sum_even_rows, x).tolist())
    print("  fixed:  ", sum_rows(sum_even_rows_fixed, x).tolist())


if __name__ == "__main__":
    main()
