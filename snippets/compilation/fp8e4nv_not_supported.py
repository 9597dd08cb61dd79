"""TP036: "type fp8e4nv not supported in this architecture" on a GPU older than sm_89.

Run it: python fp8e4nv_not_supported.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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
def dequantize(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)  # x_ptr's element type is the tensor's dtype
    tl.store(y_ptr + offs, x * scale, mask=mask)


def launch(x, scale=0.5, BLOCK=128):
    n = x.numel()
    y = torch.full((n,), float("nan"), device=x.device)  # NaN until a program writes it
    dequantize[(triton.cdiv(n, BLOCK),)](x, y, n, scale, BLOCK=BLOCK)
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def dequantize_anywhere(x, scale=0.5):
    """float8_e4m3fn (Triton's fp8e4nv) needs sm_89 or newer; on older GPUs, upcast it first."""
    if x.dtype == torch.float8_e4m3fn and x.is_cuda and torch.cuda.get_device_capability(x.device) < (8, 9):
        x = x.to(torch.float16)  # the fix: every e4m3 value is exactly an fp16 value
    return launch(x, scale)
# --8<-- [end:fix]


# --8<-- [start:e4b15]
@triton.jit
def round_through_fp8e4b15(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(tl.float8e4b15).to(tl.float16), mask=mask)  # Triton's own fp8, no torch dtype
# --8<-- [end:e4b15]


# --8<-- [start:targets]
def target(capability):  # 80: A100, 86: RTX 3090 / A10, 89: RTX 4090 / L4, 90: H100 / H200
    return triton.backends.compiler.GPUTarget("cuda", capability, 32)


def supported_fp8(capability):
    """The fp8 types Triton's CUDA backend accepts for a compute capability."""
    return triton.compiler.compiler.make_backend(target(capability)).parse_options({}).supported_fp8_dtypes
# --8<-- [end:targets]


# --8<-- [start:offline]
def compile_for(capability, x_type, kernel=dequantize):
    """Compile `kernel` for `capability` with x_ptr of element type `x_type` ("fp8e4nv", "fp16"...); no GPU needed."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    if kernel is dequantize:
        signature = {"x_ptr": f"*{x_type}", "y_ptr": "*fp32", "n": "i32", "scale": "fp32", "BLOCK": "constexpr"}
    else:
        signature = {"x_ptr": f"*{x_type}", "y_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"}
    return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 128}), target=target(capability))
# --8<-- [end:offline]


def main():
    for capability in (80, 86, 89, 90):
        print(f"sm_{capability} accepts", supported_fp8(capability))
    try:
        compile_for(80, "fp8e4nv")
    except Exception as error:  # triton.compiler.errors.CompilationError
        print("fp8e4nv input, compiled for sm_80:", str(error).splitlines()[-1])
    for x_type in ("fp8e5", "fp16"):
        compile_for(80, x_type)
        print(f"{x_type} input, compiled for sm_80: compiled")
    compile_for(80, "fp16", kernel=round_through_fp8e4b15)
    print("in-kernel fp8e4b15, compiled for sm_80: compiled")
    x = torch.tensor([0.1, 1.0, 3.3, -448.0]).to(torch.float8_e4m3fn).to(DEVICE)
    print("e4m3 values:", x.float().tolist(), "dequantized (x 0.5):", dequantize_anywhere(x).tolist())


if __name__ == "__main__":
    main()
