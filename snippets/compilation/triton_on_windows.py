"""TP064: Triton on Windows: no wheels on PyPI, the community build triton-windows, and the Python it goes into.

Run it: python triton_on_windows.py  (on any system: it says which Python runs, what is installed in it, and the
install command for exactly that Python)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import importlib.metadata  # noqa: E402  (installed)
import subprocess  # noqa: E402  (install_command)
import sys  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
# In a terminal whose `pip` belongs to another Python (a system Python, a conda base) than the application's own
# (ComfyUI's python_embeded, a venv):
#     pip install triton          # Windows: "No matching distribution found for triton" (PyPI has no Windows wheels)
#     pip install triton-windows  # installs, but into the other Python: the application still has no Triton
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def package_for_this_system():
    return "triton-windows" if sys.platform == "win32" else "triton"  # the community build on Windows


def install_command():
    """pip run by the very Python that runs this file (for ComfyUI portable: python_embeded\\python.exe)."""
    return subprocess.list2cmdline([sys.executable, "-m", "pip", "install", "-U", package_for_this_system()])
# --8<-- [end:fix]


# --8<-- [start:diagnose]
def installed():
    """The Triton distributions installed in this Python, with their versions."""
    names = ("triton", "triton-windows", "pytorch-triton", "pytorch-triton-rocm", "triton-xpu", "triton-ascend")
    found = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return found


def embedded_python_is_missing():
    """For an embedded Python (ComfyUI's python_embeded): the folders Triton compiles against, if absent."""
    home = os.path.dirname(sys.executable)
    if sys.platform != "win32" or not os.path.basename(home).lower().startswith("python_embed"):
        return []
    return [name for name in ("include", "libs") if not os.path.isdir(os.path.join(home, name))]
# --8<-- [end:diagnose]


def main():
    print("this Python:", sys.executable, f"(cp{sys.version_info.major}{sys.version_info.minor}, {sys.platform})")
    print("Triton installed in it:", installed() or "none", "- imported from", os.path.dirname(triton.__file__))
    print("torch", torch.__version__, "built for CUDA", torch.version.cuda)
    missing = embedded_python_is_missing()
    if missing:
        print("python_embeded lacks", " and ".join(missing), "(copy them from the same Python version)")
    print("install or upgrade Triton for this Python with:", install_command())


if __name__ == "__main__":
    main()
