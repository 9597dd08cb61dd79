"""TP066: "Feature '.bf16' requires .target sm_80 or higher": bfloat16 on a V100, T4 or RTX 20xx (compute capability below 8.0).

Run it: python bfloat16_on_older_gpus.py  (no GPU needed: it compiles for sm_70, sm_75 and sm_80 without one)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import tempfile  # noqa: E402  (compile_for)
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def scale_shift(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 2.0 + 1.0, mask=mask)  # bf16 in, bf16 arithmetic: sm_80 instructions


def compile_for(capability, dtype="bf16", kernel=scale_shift):
    """Compile `kernel` for compute capability `capability` (70: V100, 75: T4 / RTX 20xx) with `dtype` pointers."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: compiled, even under TRITON_INTERPRET=1
    signature = {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "n": "i32", "BLOCK": "constexpr"}
    cache = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty:
        os.environ["TRITON_CACHE_DIR"] = empty  # an empty kernel cache: ptxas runs, whatever compiled before
        try:
            return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 1024}),
                                  target=triton.backends.compiler.GPUTarget("cuda", capability, 32))
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if cache is not None:
                os.environ["TRITON_CACHE_DIR"] = cache
def ptxas_says(capability, dtype="bf16", kernel=scale_shift):
    """"compiled", or the first line of ptxas's errors."""
    try:
        compile_for(capability, dtype, kernel)
    except Exception as error:  # triton.runtime.errors.PTXASError (RuntimeError on Triton 3.2)
        return next((line.split("; ")[-1] for line in str(error).splitlines() if "requires" in line),
                    str(error).splitlines()[0])
    return "compiled"
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def half_type(device=None):
    """bfloat16 where the GPU has it (compute capability 8.0 and up), float16 below (V100, T4, RTX 20xx)."""
    if torch.cuda.is_available() and torch.cuda.get_device_capability(device) < (8, 0):
        return torch.float16  # the fix: pick the type by capability, not torch.cuda.is_bf16_supported()
    return torch.bfloat16


@triton.jit
def scale_shift_f32(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)  # math in float32, whatever the storage type
    tl.store(out_ptr + offs, (x * 2.0 + 1.0).to(out_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x):
    out = torch.full_like(x, float("nan"))  # NaN until a program writes it
    kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
# --8<-- [end:launch]


def main():
    print(f"Triton {triton.__version__}")
    for capability in (70, 75, 80):
        print(f"sm_{capability}: bf16 kernel {ptxas_says(capability)}; float16 kernel {ptxas_says(capability, 'fp16')}")
    x = torch.randn(4, device=DEVICE).to(half_type())
    print(f"on this machine: {half_type()}", launch(scale_shift_f32, x).float().tolist())


if __name__ == "__main__":
    main()
