"""TP079: "Loop carried variable changed type" / "cannot reasign constexpr in the loop": a stride of 1 is a constant.

Run it: python loop_reassigns_a_compile_time_constant.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def concat_pitfall(src_ptr, src_stride, next_ptr, next_stride, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    for part in range(2):  # the first source, then the next one
        x = tl.load(src_ptr + offs * src_stride, mask=mask)
        tl.store(out_ptr + part * n + offs, x, mask=mask)
        src_ptr = next_ptr
        src_stride = next_stride  # an int argument reassigned in the loop: a constant when it is 1


@triton.jit
def row_max_pitfall(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = None  # "no maximum yet": None is a compile-time constant too
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
        if best is None:
            best = tl.max(x, axis=0)
        else:
            best = tl.maximum(best, tl.max(x, axis=0))
    tl.store(out_ptr + row, best)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit(do_not_specialize=["src_stride"])  # the fix: the argument the loop reassigns is never a constant
def concat_fixed(src_ptr, src_stride, next_ptr, next_stride, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    for part in range(2):
        x = tl.load(src_ptr + offs * src_stride, mask=mask)
        tl.store(out_ptr + part * n + offs, x, mask=mask)
        src_ptr = next_ptr
        src_stride = next_stride
# --8<-- [end:fix]


# --8<-- [start:fix-more]
@triton.jit
def concat_carried(src_ptr, src_stride, next_ptr, next_stride, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    stride = tl.full([], src_stride, tl.int32)  # the other fix: the loop carries a tensor, not the argument
    for part in range(2):
        x = tl.load(src_ptr + offs * stride, mask=mask)
        tl.store(out_ptr + part * n + offs, x, mask=mask)
        src_ptr = next_ptr
        stride = next_stride


@triton.jit
def row_max_fixed(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.full([], float("-inf"), tl.float32)  # the fix for None: start with a tensor of the loop's type
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
        best = tl.maximum(best, tl.max(x, axis=0))
    tl.store(out_ptr + row, best)
# --8<-- [end:fix-more]


# --8<-- [start:launch]
def concat(kernel, a, b):
    """torch.cat((a, b)) for two 1-D float32 tensors of one length, strided or not; the output starts as NaN."""
    n = a.numel()
    out = torch.full((2 * n,), float("nan"), device=a.device)
    kernel[(1,)](a, a.stride(0), b, b.stride(0), out, n, BLOCK=triton.next_power_of_2(n))
    return out


def row_max(kernel, x, block=64):
    """The maximum of each row of a contiguous float32 matrix; the output starts as NaN."""
    out = torch.full((x.shape[0],), float("nan"), device=x.device)
    kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=block)
    return out
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU


def compile_for_h200(kernel, ints, do_not_specialize=()):
    """Compile `kernel` for sm_90 without a GPU, typing its int arguments (`ints`, name -> value) as
    the launcher does: a value of 1 becomes a constant unless do_not_specialize names it."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: nothing cached in this process
    signature, constants = {}, {"BLOCK": 8}
    for name in fn.arg_names:
        if name == "BLOCK" or (ints.get(name) == 1 and name not in do_not_specialize):
            signature[name] = "constexpr"
            constants.setdefault(name, 1)
        else:
            signature[name] = "*fp32" if name.endswith("_ptr") else "i32"
    return triton.compile(triton.compiler.ASTSource(fn, signature, constants), target=H200)
# --8<-- [end:offline]


def main():
    for stride in (1, 2):
        ints = {"src_stride": stride, "next_stride": stride, "n": 8}
        for kernel, names in ((concat_pitfall, ()), (concat_fixed, ("src_stride",))):
            try:
                compile_for_h200(kernel, ints, names)
                print(f"strides of {stride}: {kernel.fn.__name__:15} compiles for sm_90")
            except Exception as error:  # triton.compiler.errors.CompilationError
                print(f"strides of {stride}: {kernel.fn.__name__:15} {str(error).strip().splitlines()[-1]}")
    a, b = torch.randn(8, device=DEVICE), torch.randn(8, device=DEVICE)
    print("fixed concat equals torch.cat:", torch.equal(concat(concat_fixed, a, b), torch.cat((a, b))))
    x = torch.randn(3, 100, device=DEVICE)
    print("fixed row max equals torch.amax:", torch.equal(row_max(row_max_fixed, x), x.amax(dim=1)))


if __name__ == "__main__":
    main()
