"""TP061: "ptxas fatal : Value 'sm_110a' is not defined for option 'gpu-name'": Triton's ptxas is older than the GPU.

Run it: python ptxas_does_not_know_the_gpu.py  (no GPU needed: it compiles for other GPUs without one)
The fix, tried: TRITON_PTXAS_BLACKWELL_PATH=/usr/local/cuda/bin/ptxas python ptxas_does_not_know_the_gpu.py
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import contextlib  # noqa: E402  (compile_for)
import io  # noqa: E402
import re  # noqa: E402  (bundled_ptxas, gpu_names)
import subprocess  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def compile_for(capability, quiet=True):
    """Compile `copy` for compute capability `capability` (110: sm_110, Jetson Thor); no such GPU needed."""
    fn = triton.runtime.jit.JITFunction(copy.fn)  # a fresh object: compiled, even under TRITON_INTERPRET=1
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = triton.compiler.ASTSource(fn, signature, {"BLOCK": 128})
    target = triton.backends.compiler.GPUTarget("cuda", capability, 32)
    cache = os.environ.get("TRITON_CACHE_DIR")
    printed = contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext()
    with tempfile.TemporaryDirectory() as empty, printed:  # a failing ptxas makes Triton print the whole PTX
        os.environ["TRITON_CACHE_DIR"] = empty  # an empty kernel cache: ptxas runs, whatever compiled before
        try:
            return triton.compile(source, target=target)
        finally:
            if cache is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = cache


def ptxas_says(capability):
    """"compiled", or the line of ptxas's error that says why not."""
    try:
        compile_for(capability)
    except Exception as error:  # triton.runtime.errors.PTXASError
        lines = str(error).splitlines()
        return next((line for line in lines if " fatal " in line), lines[-1])
    return "compiled"
# --8<-- [end:pitfall]


# --8<-- [start:fix]
TOOLKIT_PTXAS = "/usr/local/cuda/bin/ptxas"  # the ptxas of a CUDA toolkit that knows your GPU


def use_toolkit_ptxas(path=TOOLKIT_PTXAS):
    """Make Triton assemble with `path`. Call it before the first compile (or export both in the shell)."""
    os.environ["TRITON_PTXAS_BLACKWELL_PATH"] = path  # the fix: Triton 3.6 and later read it for sm_100 and newer
    os.environ["TRITON_PTXAS_PATH"] = path  # Triton 3.2, 3.4 and 3.5 read this one for every GPU
# The other fix: upgrade Triton (pip install --upgrade triton); a newer one bundles a newer ptxas.
# --8<-- [end:fix]


# --8<-- [start:which]
BIN = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")  # where Triton keeps its ptxas


def bundled_ptxas():
    """{file: the CUDA release it is from} for each ptxas this Triton ships, from its --version."""
    releases = {}
    for name in sorted(os.listdir(BIN)):
        if name.startswith("ptxas"):
            shown = subprocess.run([os.path.join(BIN, name), "--version"], capture_output=True, text=True).stdout
            releases[name] = re.search(r"release .*", shown).group()  # "release 12.8, V12.8.93"
    return releases


def gpu_names(ptxas):
    """The sm_ names that `ptxas` takes for --gpu-name, from its --help."""
    shown = subprocess.run([ptxas, "--help"], capture_output=True, text=True).stdout
    names = set(re.findall(r"'(sm_\d+[af]?)'", shown))
    return sorted(names, key=lambda name: (int(re.sub(r"\D", "", name)), name))
# --8<-- [end:which]


GPUS = {90: "H100 / H200", 100: "B200", 103: "B300", 110: "Jetson Thor", 120: "RTX 50xx", 121: "DGX Spark GB10"}
VARIABLES = ("TRITON_PTXAS_BLACKWELL_PATH", "TRITON_PTXAS_PATH")


def main():
    print(f"Triton {triton.__version__} bundles:")
    for name, release in bundled_ptxas().items():
        known = [f"sm_{c}" for c in GPUS if f"sm_{c}a" in gpu_names(os.path.join(BIN, name))]
        print(f"  {name:16} {release:24} knows {', '.join(known)}")
    chosen = {name: os.environ.pop(name) for name in VARIABLES if name in os.environ}
    print("sm_110 (Jetson Thor), Triton's own ptxas:", ptxas_says(110))  # the pitfall
    os.environ.update(chosen)
    if chosen:
        print(f"sm_110 with {', '.join(f'{k}={v}' for k, v in chosen.items())}:", ptxas_says(110))  # the fix
    else:
        print("The fix: set TRITON_PTXAS_BLACKWELL_PATH to a CUDA toolkit's ptxas that knows sm_110, run this again")


if __name__ == "__main__":
    main()
