"""TP060: "cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'": torch and Triton out of step.

Run it: python torch_and_triton_out_of_step.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import importlib.metadata  # noqa: E402  (the pin torch was built with)
import json  # noqa: E402  (pip's report)
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
def what_torch_2_6_imports():
    """The import torch 2.6's Inductor makes (torch/_inductor/runtime/hints.py) when it loads."""
    from triton.compiler.compiler import AttrsDescriptor  # in Triton 3.2, gone in 3.3

    return AttrsDescriptor


def what_older_packages_import():
    """`triton.ops` (a matmul and flash attention shipped with Triton 2.x), imported by older kernels' packages."""
    import triton.ops  # noqa: F401

    return "imported"
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def triton_pin(requirements):
    """The Triton version a list of Requires-Dist lines pins (`triton==3.6.0; platform_system == "Linux"`)."""
    for requirement in requirements or []:
        found = re.match(r"\s*triton\s*\(?\s*==\s*([\w.+]+)", requirement)
        if found:
            return found.group(1)
    return None  # no pin: a CPU build, or a wheel that leaves Triton to you


def torch_and_triton():
    """The installed torch, the Triton its wheel pins, and the Triton installed: equal, or out of step."""
    pin = triton_pin(importlib.metadata.requires("torch"))
    return {"torch": torch.__version__, "pins triton": pin, "triton": triton.__version__,
            "in step": pin is None or pin == triton.__version__}
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def pinned_triton_on_pypi(torch_version):
    """The Triton a torch release pins on Linux, read from PyPI's metadata by pip (no download, no install)."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--ignore-installed",
                           "--quiet", "--report", "-", f"torch=={torch_version}"],
                          capture_output=True, text=True, timeout=120, check=True)
    [torch_wheel] = json.loads(done.stdout)["install"]
    return triton_pin(torch_wheel["metadata"].get("requires_dist"))
# the fix, in a shell: pip install "triton==<the pin>", or a torch whose pin is the Triton you need
# --8<-- [end:fix-more]


def main():
    print("installed:", torch_and_triton())
    for name, attempt in (("torch 2.6's import", what_torch_2_6_imports), ("import triton.ops", what_older_packages_import)):
        try:
            print(f"{name}: {attempt()}")
        except ImportError as error:
            print(f"{name}: {type(error).__name__}: {str(error).split(' (')[0]}")


if __name__ == "__main__":
    main()
