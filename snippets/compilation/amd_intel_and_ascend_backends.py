"""TP067: Triton on AMD (ROCm), Intel (XPU) and Ascend (triton-ascend): what carries over from NVIDIA and what does not.

Run it: python amd_intel_and_ascend_backends.py  (no GPU needed: it compiles for an NVIDIA H100 and an AMD MI300X without one)
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

from triton.language.extra import libdevice  # noqa: E402  (each backend's own math library)
from triton.language.extra.cuda import libdevice as cuda_libdevice  # noqa: E402  (NVIDIA's only)
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def erf_cuda_only(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, cuda_libdevice.erf(tl.load(x_ptr + offs, mask=mask)), mask=mask)  # NVIDIA's libdevice


@triton.jit
def tanh_ptx(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=mask)  # inline PTX: NVIDIA's assembly language
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def erf_portable(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.erf(tl.load(x_ptr + offs, mask=mask)), mask=mask)  # the fix: tl.erf, every backend


@triton.jit
def tanh_portable(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, libdevice.tanh(tl.load(x_ptr + offs, mask=mask)), mask=mask)  # not in tl: extra.libdevice
# --8<-- [end:fix]


# --8<-- [start:targets]
H100 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # NVIDIA: a warp is 32 threads
MI300X = triton.backends.compiler.GPUTarget("hip", "gfx942", 64)  # AMD CDNA3: a wavefront is 64 threads


def compile_for(kernel, target, **options):
    """Compile `kernel` for `target` without such a GPU (options: num_warps, waves_per_eu...)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: compiled, even under TRITON_INTERPRET=1
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    cache = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty:
        os.environ["TRITON_CACHE_DIR"] = empty  # an empty kernel cache
        try:
            return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 256}), target=target,
                                  options=options)
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if cache is not None:
                os.environ["TRITON_CACHE_DIR"] = cache


def options_for(target, **options):
    """The options a launch with `options` gets on `target`'s backend: a key it does not know is dropped, silently."""
    chosen = triton.compiler.compiler.make_backend(target).parse_options(options)
    return {key: getattr(chosen, key) for key in options if hasattr(chosen, key)}
# --8<-- [end:targets]


def says(kernel, target):
    try:
        compile_for(kernel, target)
    except Exception as error:  # RuntimeError from the AMD backend
        return f"{type(error).__name__}: {str(error).strip().splitlines()[0][:120]}"
    return "compiled"


def main():
    print("backends in this Triton:", sorted(triton.backends.backends))
    for name, target in (("H100 (cuda, sm_90)", H100), ("MI300X (hip, gfx942)", MI300X)):
        kernel = compile_for(erf_portable, target)
        print(f"{name}: threads per warp {kernel.metadata.warp_size}, waves_per_eu kept: "
              f"{options_for(target, waves_per_eu=2)}")
        for fn in (erf_cuda_only, tanh_ptx, erf_portable, tanh_portable):
            print(f"  {fn.__name__:15} {says(fn, target)}")
    x = torch.linspace(-3, 3, 7, device=DEVICE)
    y = torch.full_like(x, float("nan"))
    erf_portable[(1,)](x, y, 7, BLOCK=256)
    print("erf_portable here:", [round(v, 4) for v in y.tolist()])


if __name__ == "__main__":
    main()
