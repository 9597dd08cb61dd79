"""TP087: a * b + c rounds once (a fused multiply-add) or twice, by a default Triton 3.9 warns about (TRITON_DEFAULT_FP_FUSION).

Run it: python multiply_add_fused_or_not.py  (no GPU needed for the compiled code: it compiles for sm_90 without one)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import re, tempfile  # noqa: E401, E402  (roundings_compiled)
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def mul_add_pitfall(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * b + c, mask=mask)  # one rounding or two: the default decides
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def mul_add_fixed(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.fma(a, b, c), mask=mask)  # the fix: fused, whatever the default
# --8<-- [end:fix]


# --8<-- [start:launch]
def mul_add(kernel, a, b, c, **options):
    """a * b + c by `kernel` for contiguous float32 tensors; options such as enable_fp_fusion=False go to the launch."""
    out = torch.full_like(a, float("nan"))  # NaN until a program writes it
    kernel[(triton.cdiv(a.numel(), 1024),)](a, b, c, out, a.numel(), BLOCK=1024, **options)
    return out


def cancelling_inputs(n=4):
    """a * b + c whose exact value is 2**-24, and whose product rounded to float32 first gives 0."""
    a = torch.full((n,), 1 + 2**-12, device=DEVICE)  # a * a = 1 + 2**-11 + 2**-24: 2**-24 is lost in float32
    return a, a.clone(), torch.full((n,), -(1 + 2**-11), device=DEVICE)
# --8<-- [end:launch]


# --8<-- [start:compiled]
def roundings_compiled(kernel, **options):
    """How many roundings the PTX of `kernel` compiled for sm_90 does for a * b + c: "one (fma)" or "two (mul, add)"."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a new JITFunction: compiled even when the interpreter is on
    signature = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    cache = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty:
        os.environ["TRITON_CACHE_DIR"] = empty
        try:
            ptx = triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 1024}), options=options,
                                 target=triton.backends.compiler.GPUTarget("cuda", 90, 32)).asm["ptx"]
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if cache is not None:
                os.environ["TRITON_CACHE_DIR"] = cache
    return roundings(ptx)


def roundings(ptx):
    return "one (fma)" if re.search(r"\bfma\.rn\.f32\b", ptx) else "two (mul, add)"
# --8<-- [end:compiled]


def main():
    print(f"Triton {triton.__version__}; TRITON_DEFAULT_FP_FUSION={os.environ.get('TRITON_DEFAULT_FP_FUSION')}")
    for kernel, options in ((mul_add_pitfall, {}), (mul_add_pitfall, {"enable_fp_fusion": False}),
                            (mul_add_fixed, {"enable_fp_fusion": False})):
        print(f"compiled for sm_90, {kernel.fn.__name__} {options or '(default)'}: {roundings_compiled(kernel, **options)}")
    a, b, c = cancelling_inputs()
    print(f"exact: {2**-24:.6g}; on {DEVICE}: a * b + c = {mul_add(mul_add_pitfall, a, b, c)[0].item():.6g}, "
          f"tl.fma = {mul_add(mul_add_fixed, a, b, c)[0].item():.6g}")


if __name__ == "__main__":
    main()
