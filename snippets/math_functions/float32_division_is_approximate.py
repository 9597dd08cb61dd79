"""TP068: float32 `/` in a Triton kernel is not correctly rounded on the GPU; `tl.math.div_rn` is.

Run it: python float32_division_is_approximate.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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
def divide(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, x / y, mask=mask)  # float32 `/`: an approximate division on NVIDIA GPUs
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def divide_rn(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, tl.math.div_rn(x, y), mask=mask)  # the fix: IEEE division, rounded to nearest
# --8<-- [end:fix]


# --8<-- [start:launch]
def launch(kernel, x, y, BLOCK=1024):
    out = torch.full_like(x, float("nan"))  # NaN until a program writes it
    n = x.numel()
    kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


def ulps_off(out, x, y):
    """How many float32 steps each quotient is from the correctly rounded one (x, y in float64, rounded once)."""
    exact = (x.double() / y.double()).float()  # float32 inputs: the float64 quotient rounds to the right float32
    return (out.cpu().view(torch.int32).long() - exact.cpu().view(torch.int32).long()).abs()
# --8<-- [end:launch]


# --8<-- [start:ptx]
def division_instructions(kernel, capability=90):
    """The PTX division instructions Triton writes for `kernel`, compiled for sm_<capability> (no GPU needed)."""
    import re
    import tempfile

    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: compiled, even under TRITON_INTERPRET=1
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    cache = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty:
        os.environ["TRITON_CACHE_DIR"] = empty  # an empty kernel cache
        try:
            compiled = triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 1024}),
                                      target=triton.backends.compiler.GPUTarget("cuda", capability, 32))
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if cache is not None:
                os.environ["TRITON_CACHE_DIR"] = cache
    return sorted(set(re.findall(r"\b(div\.[a-z0-9.]+|rcp\.[a-z0-9.]+)", compiled.asm["ptx"])))
# --8<-- [end:ptx]


def main():
    torch.manual_seed(0)
    x = torch.randn(1 << 20, device=DEVICE)
    y = torch.randn(1 << 20, device=DEVICE)
    for name, kernel in (("x / y", divide), ("tl.math.div_rn(x, y)", divide_rn)):
        off = ulps_off(launch(kernel, x, y), x, y)
        print(f"{name:22} PTX {division_instructions(kernel)}: {int((off > 0).sum())} of {x.numel()} quotients "
              f"not correctly rounded, at most {int(off.max())} ulp off")


if __name__ == "__main__":
    main()
