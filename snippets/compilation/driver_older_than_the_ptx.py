"""TP065: "device kernel image is invalid" / CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the driver is older than Triton's ptxas.

Run it: python driver_older_than_the_ptx.py  (without a GPU it shows the PTX version Triton writes, compiled for an H200)
The fix, tried: TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas python driver_older_than_the_ptx.py
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import ctypes  # noqa: E402  (driver_cuda_version)
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def compile_for(capability=90):
    """Compile `copy` for sm_<capability> as a launch would, without a GPU; the compiled kernel (.asm["ptx"], ["cubin"])."""
    fn = triton.runtime.jit.JITFunction(copy.fn)  # a fresh object: compiled, even under TRITON_INTERPRET=1
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    cache = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty:
        os.environ["TRITON_CACHE_DIR"] = empty  # an empty kernel cache: ptxas runs, whatever compiled before
        try:
            return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 128}),
                                  target=triton.backends.compiler.GPUTarget("cuda", capability, 32))
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if cache is not None:
                os.environ["TRITON_CACHE_DIR"] = cache


def ptx_isa(kernel):
    """The PTX ISA version a compiled kernel was written in: its `.version` line, e.g. "8.7"."""
    return re.search(r"^\.version (\d+\.\d+)", kernel.asm["ptx"], re.MULTILINE).group(1)
# --8<-- [end:pitfall]


# --8<-- [start:fix-more]
def driver_cuda_version():
    """The newest CUDA the installed driver supports, e.g. "12.4" (nvidia-smi's "CUDA Version"); None without one."""
    try:
        libcuda = ctypes.CDLL("nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1")
    except OSError:
        return None
    version = ctypes.c_int()
    if libcuda.cuDriverGetVersion(ctypes.byref(version)) != 0:
        return None
    return f"{version.value // 1000}.{version.value % 1000 // 10}"


def ptxas_cuda_version():
    """The CUDA release of the ptxas Triton runs (its own, or TRITON_PTXAS_PATH's), e.g. "12.8"."""
    from triton.backends.nvidia.compiler import get_ptxas

    return get_ptxas(90).version  # sm_100 and newer use ptxas-blackwell (TRITON_PTXAS_BLACKWELL_PATH) on 3.6+
# --8<-- [end:fix-more]


# --8<-- [start:fix]
def check_driver():
    """Warn when the driver's CUDA major release is older than the ptxas's: its cubins will not load."""
    driver, ptxas = driver_cuda_version(), ptxas_cuda_version()
    if driver and int(driver.split(".")[0]) < int(ptxas.split(".")[0]):
        print(f"the driver supports CUDA {driver}, Triton's ptxas is CUDA {ptxas}: update the driver, or")
        print("  export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas  # the fix: a ptxas of the driver's CUDA major")
    return driver, ptxas
# --8<-- [end:fix]


# --8<-- [start:load]
def load(image, device=0):
    """Hand a kernel image (a cubin, or PTX text) to the driver the way Triton's launcher does: cuModuleLoadData."""
    from triton.runtime import driver

    return driver.active.utils.load_binary("copy", image, 0, device)


def ptx_with_version(kernel, version):
    """The kernel's PTX, relabelled with another `.version` line (bytes, as the driver takes it)."""
    return re.sub(r"^\.version \d+\.\d+", f".version {version}", kernel.asm["ptx"], flags=re.MULTILINE).encode()
# --8<-- [end:load]


def main():
    kernel = compile_for(90)
    print(f"Triton {triton.__version__}: ptxas of CUDA {ptxas_cuda_version()}, PTX ISA {ptx_isa(kernel)} for sm_90")
    driver, _ = check_driver()
    print("the driver supports CUDA", driver or "(no NVIDIA driver here)")


if __name__ == "__main__":
    main()
