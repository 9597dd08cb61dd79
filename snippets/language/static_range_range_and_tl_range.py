"""TP045: `tl.static_range`, `tl.range` and `range`, and a descending loop that runs zero times.

Run it: python static_range_range_and_tl_range.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def strided_sum_pitfall(x_ptr, out_ptr, start, stop, step):
    """x[start] + x[start + step] + ... for i in range(start, stop, step), as Python would."""
    acc = 0.0
    for i in range(start, stop, step):  # step is a runtime value: a negative one runs zero times compiled
        acc += tl.load(x_ptr + i)
    tl.store(out_ptr, acc)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def strided_sum_fixed(x_ptr, out_ptr, start, stop, step):
    sign = tl.where(step > 0, 1, -1)
    count = tl.maximum((stop - start + step - sign) // step, 0)  # len(range(start, stop, step))
    acc = 0.0
    for j in range(0, count):  # the fix: the loop counts up, the index goes either way
        acc += tl.load(x_ptr + start + j * step)
    tl.store(out_ptr, acc)
# --8<-- [end:fix]


# --8<-- [start:launch]
def strided_sum(kernel, x, start, stop, step):
    out = torch.full((1,), float("nan"), device=x.device)  # NaN until the kernel writes it
    kernel[(1,)](x, out, start, stop, step)
    return out
# --8<-- [end:launch]


# --8<-- [start:loops]
@triton.jit
def sum_blocks_static_range(x_ptr, out_ptr, n, BLOCK: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for i in tl.static_range(N):  # unrolled while compiling: N must be a tl.constexpr
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def sum_blocks_range(x_ptr, out_ptr, n, BLOCK: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for i in range(0, n):  # one scf.for; n may be a runtime value
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def sum_blocks_tl_range(x_ptr, out_ptr, n, BLOCK: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for i in tl.range(0, n, num_stages=4):  # the same loop, asked to be software-pipelined
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def sum_blocks_unrolled(x_ptr, out_ptr, n, BLOCK: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), 0.0, tl.float32)
    for i in tl.range(0, n, loop_unroll_factor=2):  # asked to be unrolled twice
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


def sum_blocks(kernel, x, block=16):
    """Sum the len(x) // block blocks of x elementwise: out[j] = x[j] + x[block + j] + ..."""
    n = x.numel() // block
    out = torch.full((block,), float("nan"), device=x.device)
    kernel[(1,)](x, out, n, BLOCK=block, N=n)
    return out
# --8<-- [end:loops]


# --8<-- [start:static-errors]
@triton.jit
def sum_first_static_range_runtime(x_ptr, out_ptr, n):
    acc = 0.0
    for i in tl.static_range(n):  # n is a runtime value: static_range cannot unroll it
        acc += tl.load(x_ptr + i)
    tl.store(out_ptr, acc)


@triton.jit
def sum_scaled_constexpr_in_static_range(x_ptr, out_ptr, n):
    acc = 0.0
    for i in tl.static_range(3):
        SCALE: tl.constexpr = 2  # defined again in every unrolled copy of the body
        acc += tl.load(x_ptr + i) * SCALE
    tl.store(out_ptr, acc)
# --8<-- [end:static-errors]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU


def compile_for_h200(kernel, signature, constexprs):
    """Compile a kernel for sm_90 without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    signature = dict(signature, **{name: "constexpr" for name in constexprs})
    return triton.compile(triton.compiler.ASTSource(fn, signature, constexprs), target=H200)


def ir_counts(kernel, constexprs=None):
    """What the compiler made of a sum_blocks_* kernel's loop, counted in its TTIR and TTGIR."""
    import re

    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    compiled = compile_for_h200(kernel, signature, constexprs or {"BLOCK": 128, "N": 4})
    ttir, ttgir = compiled.asm["ttir"], compiled.asm["ttgir"]
    return {"loops": ttir.count("scf.for"), "loads": ttir.count("tt.load"),
            "attributes": re.findall(r"tt\.(?:num_stages|loop_unroll_factor) = \d+", ttir),
            "async copies": ttgir.count("ttg.async_copy_global_to_local")}
# --8<-- [end:offline]


def main():
    x = torch.arange(1.0, 97.0, device=DEVICE)  # x[i] = i + 1
    print("sum of x[i] for i in range(88, -1, -8); Python:", sum(i + 1 for i in range(88, -1, -8)))
    print("  pitfall:", strided_sum(strided_sum_pitfall, x, 88, -1, -8).item())
    print("  fixed:  ", strided_sum(strided_sum_fixed, x, 88, -1, -8).item())
    for kernel in (sum_blocks_static_range, sum_blocks_range, sum_blocks_tl_range, sum_blocks_unrolled):
        print(f"{kernel.fn.__name__}: out[:2] = {sum_blocks(kernel, x)[:2].tolist()}")


if __name__ == "__main__":
    main()
