"""TP090: pip finds no Triton for this Python, CPU or glibc: which releases PyPI has a wheel of for a machine.

Run it: python no_wheel_for_this_python_or_platform.py  (it names this machine and asks PyPI, through this Python's
pip, which Triton releases it can install; `--python 3.13 --machine aarch64 --glibc 2.17` asks for another machine)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import platform  # noqa: E402  (this_machine)
import subprocess  # noqa: E402  (releases_for)
import sys  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
# A pin or a machine that PyPI's Triton wheels do not cover (they are Linux only, for x86_64 and, from 3.5.0,
# aarch64, built for five or so Python versions each, and for glibc 2.17 up to 3.2.0, 2.27 from 3.3.0):
#     pip install triton==3.1.0    # Python 3.13: "No matching distribution found for triton==3.1.0"
#     pip install triton==3.4.0    # Linux on aarch64 (Jetson, Grace, Graviton): the same
#     pip install triton           # CentOS 7 (glibc 2.17): gets 3.2.0 at most; macOS: nothing at all
#     pip install triton==2.0.0.dev20221202    # a dev build a requirements file pinned: no longer on PyPI
# --8<-- [end:pitfall]


# --8<-- [start:machine]
def this_machine():
    """What pip matches a wheel against: the Python version, the OS, the CPU and (on Linux) the glibc."""
    libc, libc_version = platform.libc_ver()
    return {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "os": sys.platform,
            "machine": platform.machine(), "glibc": libc_version if libc == "glibc" else None}


def linux_platforms(machine, glibc):
    """The wheel platform tags a Linux machine with this glibc accepts, as pip on it would."""
    major, minor = (int(part) for part in glibc.split(".")[:2])
    return [f"manylinux_{major}_{m}_{machine}" for m in range(minor, 16, -1)] + [f"manylinux2014_{machine}"]
# --8<-- [end:machine]


# --8<-- [start:fix]
def releases_for(python=None, machine=None, glibc=None):
    """The Triton releases PyPI has for this machine, or another (python="3.13", glibc="2.17"); [] if none."""
    command = [sys.executable, "-m", "pip", "index", "versions", "triton", "--disable-pip-version-check"]
    if python or machine or glibc:
        here = this_machine()
        command += ["--only-binary=:all:", "--python-version", python or here["python"]]
        for tag in linux_platforms(machine or here["machine"], glibc or here["glibc"] or "2.28"):
            command += ["--platform", tag]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    found = [line for line in out.splitlines() if line.startswith("Available versions:")]
    return found[0].split(": ", 1)[1].split(", ") if found else []  # newest first
# --8<-- [end:fix]


def main():
    if "--python" in sys.argv or "--machine" in sys.argv or "--glibc" in sys.argv:
        asked = {name: sys.argv[sys.argv.index(f"--{name}") + 1] for name in ("python", "machine", "glibc")
                 if f"--{name}" in sys.argv}
        print("asked for:", asked)
        print("Triton releases with a wheel for it:", releases_for(**asked) or "none")
        return
    print("this machine:", this_machine(), "- Triton", triton.__version__, "installed")
    print("Triton releases with a wheel for it:", releases_for() or "none (PyPI's wheels are for Linux only)")


if __name__ == "__main__":
    main()
