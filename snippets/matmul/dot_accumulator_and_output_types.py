"""TP044: `tl.dot` with an accumulator: a bare `AssertionError`, `out_dtype` and int8.

Run it: python dot_accumulator_and_output_types.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def matmul_pitfall(a_ptr, b_ptr, c_ptr, K, ACC: tl.constexpr, BLOCK: tl.constexpr):
    """C = A @ B for one BLOCK x BLOCK tile; A is BLOCK x K, B is K x BLOCK, both row-major."""
    rows = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=ACC)  # e.g. float16 for half inputs, int32 for int8
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + rows[:, None] * K + (k + rows)[None, :])
        b = tl.load(b_ptr + (k + rows)[:, None] * BLOCK + rows[None, :])
        acc = tl.dot(a, b, acc)  # out_dtype left at its default, float32
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc.to(c_ptr.dtype.element_ty))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def matmul_fixed(a_ptr, b_ptr, c_ptr, K, ACC: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=ACC)  # float32 for float inputs, int32 for int8
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + rows[:, None] * K + (k + rows)[None, :])
        b = tl.load(b_ptr + (k + rows)[:, None] * BLOCK + rows[None, :])
        acc = tl.dot(a, b, acc, out_dtype=ACC)  # the fix: out_dtype is the accumulator's dtype
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc.to(c_ptr.dtype.element_ty))  # cast once, at the store
# --8<-- [end:fix]


# --8<-- [start:launch]
def matmul(kernel, a, b, acc, out_dtype=torch.float32):
    """One BLOCK x BLOCK tile of a @ b (a: BLOCK x K, b: K x BLOCK), accumulated in `acc` (a tl dtype)."""
    block, K = a.shape
    poison = float("nan") if out_dtype.is_floating_point else torch.iinfo(out_dtype).min
    c = torch.full((block, block), poison, dtype=out_dtype, device=a.device)  # until the kernel writes it
    kernel[(1,)](a, b, c, K, ACC=acc, BLOCK=block)
    return c
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU


def compile_for_h200(kernel, inputs, output, acc, block=32):
    """Compile a kernel for sm_90 without launching it (and without a GPU); inputs/output: "fp16", "i8"..."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    signature = {"a_ptr": f"*{inputs}", "b_ptr": f"*{inputs}", "c_ptr": f"*{output}", "K": "i32",
                 "ACC": "constexpr", "BLOCK": "constexpr"}
    source = triton.compiler.ASTSource(fn, signature, {"ACC": acc, "BLOCK": block})
    return triton.compile(source, target=H200)
# --8<-- [end:offline]


def main():
    a16, b16 = torch.randn(32, 64, device=DEVICE).half(), torch.randn(64, 32, device=DEVICE).half()
    a8 = torch.randint(-128, 128, (32, 64), dtype=torch.int8, device=DEVICE)
    b8 = torch.randint(-128, 128, (64, 32), dtype=torch.int8, device=DEVICE)
    for name, a, b, acc, out in (("float16 inputs, float16 acc", a16, b16, tl.float16, torch.float32),
                                 ("int8 inputs, int32 acc", a8, b8, tl.int32, torch.int32)):
        try:
            matmul(matmul_pitfall, a, b, acc, out)
        except Exception as error:  # CompilationError on a GPU, InterpreterError on the interpreter
            print(f"pitfall, {name}: {type(error).__name__}: {str(error).splitlines()[-1]}")
    c = matmul(matmul_fixed, a16, b16, tl.float32)
    print("fix, float16 inputs, float32 acc: max error vs float64 =",
          (c.double() - a16.double() @ b16.double()).abs().max().item())
    c = matmul(matmul_fixed, a8, b8, tl.int32, torch.int32)
    print("fix, int8 inputs, int32 acc: equal to the int64 product:",
          torch.equal(c.long().cpu(), a8.long().cpu() @ b8.long().cpu()))


if __name__ == "__main__":
    main()
