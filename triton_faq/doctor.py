"""``triton-faq doctor``: check that the installed pieces fit together, and name the entry for each problem.

It inspects without compiling anything (unless ``--compile``) and without the network: Python, the OS,
torch and the CUDA or ROCm it was built for, Triton and the Triton torch pins, NumPy against what
Triton's interpreter supports, the GPUs, the driver's CUDA version, the ``ptxas`` Triton would run and
the GPU names it knows, the cache directory and the environment variables that change what Triton does.

Everything that needs ``torch`` or ``triton`` is imported here, in the process that runs the checks. So
``check()``, called from a user's program, runs them in a child process with the program's environment
(it must not import Triton into a program that has not imported it yet: that is TP040's pitfall) and
adds the one check that only the program's own process can answer: whether ``TRITON_INTERPRET`` changed
after ``import triton``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.metadata
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATUSES = ("ok", "warning", "problem", "skipped")

NUMPY_BREAKS_INTERPRETER = (2, 4)
"""TP007: NumPy 2.4.0 made ``int()`` of a one-element array a ``TypeError``
(https://numpy.org/doc/stable/release/2.4.0-notes.html), which Triton's interpreter does on every loop
to a runtime bound."""
TRITON_INTERPRETER_FIXED = (3, 7)
"""TP007's version table: with NumPy 2.4 the interpreter fails up to Triton 3.6 and runs from 3.7 on
(``tests/test_doctor.py`` reads both bounds back from data/version-matrix.json)."""

NETWORK_FILE_SYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "9p", "lustre", "gpfs", "beegfs", "ceph", "glusterfs",
    "orangefs", "pvfs2", "fuse.sshfs", "fuse.glusterfs", "fuse.ceph", "fuse.cephfs", "fuse.gcsfuse",
    "fuse.s3fs", "fuse.juicefs", "fuse.weka", "wekafs", "panfs", "davfs", "fuse.rclone",
})
"""File systems served over a network (TP038: a cache shared there fails now and then)."""

ENVIRONMENT = ("TRITON_INTERPRET", "TRITON_CACHE_DIR", "TRITON_HOME", "CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING",
               "TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")

TRITON_DISTRIBUTIONS = ("triton", "pytorch-triton", "pytorch-triton-rocm", "triton-windows", "pytorch-triton-xpu")
"""The names Triton is installed under (Linux wheels, torch's nightlies and ROCm builds, the Windows fork)."""

PAGE = "debugging/doctor"
"""This command's page, for the checks that have no entry of their own."""

WINDOWS_DLL = re.compile(r"DLL load failed(?: while importing (?P<module>[\w.]+))?:?\s*(?P<reason>.*)")
"""How ``import triton`` fails on Windows when a DLL of Triton's cannot load (the messages users posted are in
tests/test_doctor.py)."""
WINDOWS_DLL_HELP = "https://github.com/woct0rdho/triton-windows#readme"



@dataclass
class Result:
    check: str  # a short name: "pin", "ptxas", ...
    status: str  # one of STATUSES
    message: str  # one line
    entry: str | None = None  # the entry that explains it (TP060), if any
    anchor: str | None = None  # else a section of this command's page

    def __post_init__(self):
        assert self.status in STATUSES, self.status


@dataclass
class Report:
    facts: dict = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)

    def add(self, *args, **kwargs) -> Result:
        result = Result(*args, **kwargs)
        self.results.append(result)
        return result

    @property
    def problems(self) -> list[Result]:
        return [r for r in self.results if r.status == "problem"]


# -- small helpers ------------------------------------------------------------------------------------


def version_tuple(text: str | None) -> tuple[int, ...]:
    """(2, 4, 1) from "2.4.1", "2.4.1+cpu" or "3.6.0+git1234"; () when there is no number."""
    found = re.match(r"\s*(\d+(?:\.\d+)*)", text or "")
    return tuple(int(part) for part in found.group(1).split(".")) if found else ()


def distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def installed_triton() -> tuple[str, str] | None:
    """(distribution, version) of the Triton installed, under whichever name it was installed."""
    for name in TRITON_DISTRIBUTIONS:
        version = distribution_version(name)
        if version:
            return name, version
    return None


PIN = re.compile(r"\s*(?P<name>triton|pytorch-triton|pytorch-triton-rocm|pytorch-triton-xpu|triton-windows)"
                 r"\s*\(?\s*==\s*(?P<version>[\w.+]+)")


def torch_pin(requirements) -> tuple[str, str] | None:
    """(distribution, version) of the Triton a list of Requires-Dist lines pins (TP060), or None."""
    for requirement in requirements or []:
        found = PIN.match(requirement)
        if found:
            return found.group("name"), found.group("version")
    return None


def first_line(error: BaseException | str) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def truthy(value: str | None) -> bool:
    """Triton's reading of a boolean variable (knobs.env_bool): 1, true, on, yes."""
    return (value or "").strip().lower() in ("1", "true", "on", "yes")


# -- the decisions (each takes what the tools printed, so recorded output can be judged too) -----------


def windows_dll_failure(message: str) -> str | None:
    """The DLL that could not load, when ``import triton`` failed the way Windows builds fail; else None."""
    found = WINDOWS_DLL.search(message)
    if not found:
        return None
    return found.group("module") or "a DLL"


def ptxas_release(version_output: str) -> str | None:
    """"12.8" from ``ptxas --version`` (the regular expression Triton's knobs.NvidiaTool uses)."""
    found = re.search(r".*release (\d+\.\d+).*", version_output, flags=re.MULTILINE)
    return found.group(1) if found else None


def gpu_names(help_output: str) -> list[str]:
    """The sm_ names ``ptxas --help`` lists for ``--gpu-name``."""
    return sorted(set(re.findall(r"'(sm_\d+[af]?)'", help_output)), key=lambda n: (version_tuple(n[3:]), n))


def ptx_isa(cuda_version: str, mapping=None) -> int | None:
    """The highest PTX ISA (87 for 8.7) for a CUDA release, by Triton's own ``ptx_get_version``."""
    if mapping is None:
        try:
            from triton.backends.nvidia.compiler import ptx_get_version as mapping
        except Exception:
            return None
    try:
        return mapping(cuda_version)
    except Exception:
        return None


def _isa(release: str) -> str | None:
    isa = ptx_isa(release)
    return f"{isa // 10}.{isa % 10}" if isa else None


def driver_against_ptxas(driver: int, release: str, mapping=None) -> tuple[str, str]:
    """(status, message) for a driver (``cuDriverGetVersion``: 12080) and the ptxas release ("12.8")."""
    driver_cuda = f"{driver // 1000}.{driver % 1000 // 10}"
    driver_ptx, ptxas_ptx = ptx_isa(driver_cuda, mapping), ptx_isa(release, mapping)
    shown = (f"the driver supports CUDA {driver_cuda}" + (f" (PTX ISA {driver_ptx / 10:.1f})" if driver_ptx else "")
             + f"; Triton's ptxas is CUDA {release}" + (f" (PTX ISA {ptxas_ptx / 10:.1f})" if ptxas_ptx else ""))
    if version_tuple(release)[:1] > version_tuple(driver_cuda)[:1]:
        return "problem", (f"{shown}: a driver of CUDA {version_tuple(driver_cuda)[0]} cannot load code assembled "
                           f"by CUDA {version_tuple(release)[0]}'s ptxas; update the driver, or set TRITON_PTXAS_PATH "
                           "to the ptxas of a toolkit no newer than the driver")
    if version_tuple(release) > version_tuple(driver_cuda):
        return "warning", (f"{shown}: older than the ptxas, which works only by CUDA's minor-version "
                           "compatibility; update the driver if kernels fail to load")
    return "ok", shown


def mount_of(path: str, mounts: str) -> tuple[str, str]:
    """(mount point, file system type) that holds ``path``, from the text of /proc/mounts."""
    best = ("/", "")
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), parts[1])
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best[0]):
            best = (point, parts[2])
    return best


def writable(path: str) -> tuple[bool, str]:
    """Whether Triton could create ``path`` and write files in it; the reason when not. Creates nothing that stays."""
    existing = Path(path)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return False, f"{existing} is a file, not a directory"
    try:
        handle, name = tempfile.mkstemp(dir=existing, prefix=".triton-faq-doctor-")
        os.close(handle)
        os.unlink(name)
    except OSError as error:
        return False, f"cannot write in {existing}: {error.strerror or error}"
    return True, ("" if existing == Path(path) else f"{existing} is writable; Triton creates the rest")


def numpy_for_interpreter(numpy: str | None, triton: str | None, interpreter_in_use: bool) -> tuple[str, str]:
    """(status, message) for the NumPy installed beside a Triton (TP007)."""
    if numpy is None:
        return ("problem" if interpreter_in_use else "warning",
                "NumPy is not installed: Triton's interpreter (TRITON_INTERPRET=1) needs it")
    breaks = ".".join(map(str, NUMPY_BREAKS_INTERPRETER))
    fixed = ".".join(map(str, TRITON_INTERPRETER_FIXED))
    if triton and version_tuple(numpy) >= NUMPY_BREAKS_INTERPRETER and version_tuple(triton) < TRITON_INTERPRETER_FIXED:
        return ("problem" if interpreter_in_use else "warning",
                f"NumPy {numpy} with Triton {triton}: before Triton {fixed}, the interpreter's loops to a "
                f"runtime bound raise TypeError with NumPy {breaks} and later; install numpy<{breaks} or Triton>={fixed}")
    return "ok", f"NumPy {numpy}" + (f" fits Triton {triton}'s interpreter" if triton else "")


# -- the inspection -----------------------------------------------------------------------------------


def cuda_driver_version() -> int | None:
    """``cuDriverGetVersion`` of the NVIDIA driver library (12080 for CUDA 12.8); None without one."""
    names = ["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1", ctypes.util.find_library("cuda")]
    for name in filter(None, names):
        try:
            library = ctypes.CDLL(name)
        except OSError:
            continue
        version = ctypes.c_int(0)
        if library.cuDriverGetVersion(ctypes.byref(version)) == 0:
            return version.value
    return None


def nvidia_gpus_present() -> int | None:
    """How many GPUs the NVIDIA kernel driver has (Linux, whatever CUDA_VISIBLE_DEVICES says); None if unknown."""
    folder = Path("/proc/driver/nvidia/gpus")
    return len(list(folder.iterdir())) if folder.is_dir() else None


def find_ptxas(arch: int) -> tuple[str, str, str]:
    """(path, CUDA release, the variable that overrides it) of the ptxas Triton runs for ``arch`` (90: sm_90).

    Triton's own lookup, so its variables and its fallback to the bundled ptxas (when the one a variable
    names does not answer ``--version``) are as Triton applies them.
    """
    try:  # Triton 3.6 and later: get_ptxas gives sm_100 and newer to ptxas-blackwell
        from triton.backends.nvidia.compiler import get_ptxas

        tool = get_ptxas(arch)
        return tool.path, tool.version, "TRITON_PTXAS_BLACKWELL_PATH" if arch >= 100 else "TRITON_PTXAS_PATH"
    except ImportError:
        pass
    try:  # 3.4, 3.5: one ptxas, through knobs
        from triton import knobs

        tool = knobs.nvidia.ptxas
        return tool.path, tool.version, "TRITON_PTXAS_PATH"
    except (ImportError, AttributeError):
        pass
    from triton.backends.nvidia.compiler import _path_to_binary  # 3.2, 3.3

    path, release = _path_to_binary("ptxas")
    return path, release, "TRITON_PTXAS_PATH"


def target_name(arch: int) -> str:
    """The --gpu-name Triton asks ptxas for (sm_90a for 90), by Triton's own function where it has one."""
    try:
        from triton.backends.nvidia.compiler import sm_arch_from_capability

        return sm_arch_from_capability(arch)
    except ImportError:
        return f"sm_{arch}{'a' if arch >= 90 else ''}"


def cache_directory() -> tuple[str, str]:
    """(directory, where it came from) as Triton resolves it (TRITON_CACHE_DIR, else TRITON_HOME/.triton/cache)."""
    source = ("TRITON_CACHE_DIR" if os.environ.get("TRITON_CACHE_DIR") else
              "TRITON_HOME" if os.environ.get("TRITON_HOME") else "the home directory")
    try:
        from triton import knobs

        return str(knobs.cache.dir), source
    except Exception:
        pass
    try:
        from triton.runtime.cache import default_cache_dir  # Triton 3.2, 3.3

        return os.environ.get("TRITON_CACHE_DIR") or default_cache_dir(), source
    except Exception:
        pass
    home = os.environ.get("TRITON_HOME") or os.path.expanduser("~")
    return os.environ.get("TRITON_CACHE_DIR") or os.path.join(home, ".triton", "cache"), source


def inspect(arches: list[int] | None = None, compile_kernels: bool = False) -> Report:
    """Every check, in this process. ``arches``: GPU targets to check ptxas for besides the GPUs present."""
    report = Report()
    facts = report.facts
    facts["python"] = f"{platform.python_version()} ({sys.executable})"
    facts["os"] = platform.platform()
    facts["environment"] = {name: os.environ.get(name) for name in ENVIRONMENT if name in os.environ}

    # torch
    torch = None
    facts["torch"] = distribution_version("torch")
    if facts["torch"] is None:
        report.add("torch", "warning", "torch is not installed: Triton's drivers ask torch for the GPU, and this handbook's "
                                       "files need it")
    else:
        try:
            import torch
        except Exception as error:
            report.add("torch", "problem", f"torch {facts['torch']} is installed but does not import: {first_line(error)}")
        else:
            facts["torch"] = torch.__version__
            facts["torch build"] = (f"CUDA {torch.version.cuda}" if torch.version.cuda else
                                    f"ROCm {torch.version.hip}" if getattr(torch.version, "hip", None) else "CPU only")
            report.add("torch", "ok", f"torch {torch.__version__}, built for {facts['torch build']}")

    # Triton, and whether it imports (Windows DLLs)
    installed = installed_triton()
    facts["triton"] = f"{installed[1]} ({installed[0]})" if installed else None
    triton = None
    if installed is None:
        report.add("triton", "warning", "Triton is not installed (pip install triton, or the Triton your torch pins)")
    else:
        try:
            import triton
        except Exception as error:
            dll = windows_dll_failure(str(error))
            if dll:
                report.add("windows-dll", "problem",
                           f"import triton failed: DLL load failed while importing {dll}: install the Microsoft Visual C++ "
                           f"Redistributable (x64) and see {WINDOWS_DLL_HELP}", anchor="windows-dll")
            else:
                report.add("triton", "problem", f"Triton {installed[1]} is installed but does not import: "
                                               f"{type(error).__name__}: {first_line(error)}",
                           entry="TP060" if "triton" in str(error) and isinstance(error, ImportError) else None)
        else:
            report.add("triton", "ok", f"Triton {triton.__version__} imports")
            if sys.platform == "win32":
                report.add("windows-dll", "ok", "Triton's DLLs load", anchor="windows-dll")

    # the pin (TP060)
    if facts["torch"] is not None:
        try:
            pin = torch_pin(importlib.metadata.requires("torch"))
        except importlib.metadata.PackageNotFoundError:
            pin = None
        facts["torch pins"] = f"{pin[0]}=={pin[1]}" if pin else None
        if pin is None:
            report.add("pin", "ok", f"torch {facts['torch']} pins no Triton (a CPU build, or a wheel that leaves "
                                    "Triton to you): nothing to compare", entry="TP060")
        else:
            have = distribution_version(pin[0])
            if have == pin[1]:
                report.add("pin", "ok", f"torch pins {pin[0]}=={pin[1]}, the one installed", entry="TP060")
            else:
                instead = f"{pin[0]} {have} is installed" if have else (
                    f"{installed[0]} {installed[1]} is installed instead" if installed else "no Triton is installed")
                report.add("pin", "problem", f"torch {distribution_version('torch')} pins {pin[0]}=={pin[1]}, but {instead}: "
                                             f"pip install \"{pin[0]}=={pin[1]}\"", entry="TP060")

    # GPUs, and Triton's drivers (TP012)
    gpus = []
    if torch is not None:
        try:
            for index in range(torch.cuda.device_count()):
                major, minor = torch.cuda.get_device_capability(index)
                gpus.append((torch.cuda.get_device_name(index), major * 10 + minor))
        except Exception as error:
            report.add("gpu", "problem", f"torch could not query the GPUs: {first_line(error)}", entry="TP012")
    facts["gpus"] = [f"{name} (compute capability {cc // 10}.{cc % 10})" for name, cc in gpus]
    active = []
    if triton is not None:
        try:
            from triton.backends import backends

            active = [name for name, backend in backends.items() if backend.driver.is_active()]
        except Exception as error:
            report.add("gpu", "problem", f"Triton's backends could not be listed: {first_line(error)}", entry="TP012")
    facts["triton drivers"] = active
    interpret_now = truthy(os.environ.get("TRITON_INTERPRET"))
    present = nvidia_gpus_present()
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
    if triton is not None and not any(r.check == "gpu" for r in report.results):
        if torch is None and not active:  # each of Triton's drivers asks torch whether it has a GPU (is_active)
            report.add("gpu", "warning", "without torch, none of Triton's drivers is active: launches fail with "
                                         "'0 active drivers'", entry="TP012")
        elif len(active) == 1:
            report.add("gpu", "ok", f"{len(gpus)} GPU(s) visible; Triton's {active[0]} driver is active"
                       + ("; TRITON_INTERPRET=1 runs kernels on the CPU instead" if interpret_now else ""), entry="TP012")
        elif not active and present and not gpus and hidden is not None:
            report.add("gpu", "problem", f"CUDA_VISIBLE_DEVICES={hidden!r} hides the {present} GPU(s) the NVIDIA driver "
                                         "has: launches fail with '0 active drivers'", entry="TP012")
        elif not active and present and not gpus:
            report.add("gpu", "problem", f"the NVIDIA driver has {present} GPU(s) but torch sees none (a CPU build of "
                                         "torch, or a driver torch cannot use): launches fail with '0 active drivers'",
                       entry="TP012")
        elif not active:
            report.add("gpu", "ok" if interpret_now else "warning",
                       "no GPU visible: TRITON_INTERPRET=1 runs kernels on the CPU" if interpret_now else
                       "no GPU visible: compiled launches and do_bench fail with '0 active drivers'; "
                       "set TRITON_INTERPRET=1 before import triton to run kernels on the CPU", entry="TP012")
        else:
            report.add("gpu", "problem", f"{len(active)} of Triton's drivers are active ({', '.join(active)}): "
                                         "Triton needs exactly one", entry="TP012")

    # NumPy for the interpreter (TP007)
    facts["numpy"] = distribution_version("numpy")
    if triton is not None:
        status, message = numpy_for_interpreter(facts["numpy"], installed[1], interpret_now or not active)
        report.add("numpy", status, message, entry="TP007")

    # the driver, ptxas and the PTX version (TP061)
    nvidia = triton is not None and (active == ["nvidia"] or arches)
    driver = cuda_driver_version() if (torch is None or not getattr(torch.version, "hip", None)) else None
    facts["driver CUDA"] = f"{driver // 1000}.{driver % 1000 // 10}" if driver else None
    targets = sorted({cc for _, cc in gpus if active == ["nvidia"]} | set(arches or []))
    ptxas_seen, used = {}, {}  # path -> (release, sm names); variable -> the paths found where it applies
    if triton is not None and (nvidia or os.path.isdir(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia"))):
        for arch in targets or [80, 100]:  # without a GPU: every ptxas Triton ships (3.6: two)
            try:
                path, release, variable = find_ptxas(arch)
            except Exception as error:
                report.add("ptxas", "problem" if targets else "warning", f"Triton finds no ptxas: {first_line(error)}",
                           entry="TP061")
                break
            if path not in ptxas_seen:
                try:
                    shown = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60).stdout
                except (OSError, subprocess.SubprocessError) as error:
                    shown = ""
                    report.add("ptxas", "problem", f"{path} --help failed: {first_line(error)}", entry="TP061")
                ptxas_seen[path] = (release, gpu_names(shown))
            release, known = ptxas_seen[path]
            used.setdefault(variable, set()).add(path)
            if not targets:
                continue
            name = target_name(arch)
            if name in known:
                report.add("ptxas", "ok", f"{path} (CUDA {release}) knows {name}", entry="TP061")
            else:
                report.add("ptxas", "problem", f"{path} (CUDA {release}) does not know {name}: point {variable} "
                                               "at the ptxas of a CUDA toolkit that knows this GPU, or upgrade Triton",
                           entry="TP061")
        facts["ptxas"] = {path: {"cuda": release, "ptx isa": _isa(release),
                                 "newest sm_names": [n for n in known if n.endswith("a")][-4:]}
                          for path, (release, known) in ptxas_seen.items()}
        for variable in ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH"):
            asked = os.environ.get(variable)
            if not asked or any(os.path.realpath(asked) == os.path.realpath(p) for p in used.get(variable, ())):
                continue
            if variable not in used:  # not read for the targets checked (TP061: 3.6 reads it only below sm_100)
                if targets:
                    report.add("ptxas", "warning", f"{variable} is set, but Triton {installed[1]} does not read it for "
                                                   f"{', '.join(f'sm_{t}' for t in targets)}", entry="TP061")
                continue
            try:
                answered = subprocess.run([asked, "--version"], capture_output=True, text=True, timeout=60).stdout
            except (OSError, subprocess.SubprocessError) as error:
                answered = first_line(error)
            report.add("ptxas", "warning", f"{variable}={asked} does not answer --version with a CUDA release "
                                           f"({answered.strip().splitlines()[0][:80] if answered.strip() else 'no output'}): "
                                           "Triton ignores it and runs its own ptxas", entry="TP061")
        if not targets and not any(r.check == "ptxas" for r in report.results):
            report.add("ptxas", "skipped", "no NVIDIA GPU visible to check ptxas against (--arch 90 checks sm_90)",
                       entry="TP061")
        if driver and ptxas_seen and active == ["nvidia"]:
            for path, (release, _) in ptxas_seen.items():
                status, message = driver_against_ptxas(driver, release)
                report.add("driver", status, message, anchor="driver")
    if not any(r.check == "driver" for r in report.results):
        report.add("driver", "skipped", "no NVIDIA GPU in use: nothing to compare the driver with"
                   if driver is None or active != ["nvidia"] else "Triton's ptxas could not be run", anchor="driver")

    # the cache directory (TP038)
    directory, source = cache_directory()
    facts["cache directory"] = directory
    ok, why = writable(directory)
    if not ok:
        report.add("cache", "problem", f"Triton's cache directory {directory} (from {source}) cannot be written: {why}; "
                                       "set TRITON_CACHE_DIR to a local directory of this job", entry="TP038")
    else:
        try:
            mounts = Path("/proc/mounts").read_text(encoding="utf-8", errors="replace")
        except OSError:
            mounts = ""
        existing = Path(directory)
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        point, kind = mount_of(os.path.realpath(existing), mounts) if mounts else ("", "")
        if kind in NETWORK_FILE_SYSTEMS:
            report.add("cache", "warning", f"Triton's cache directory {directory} is on {kind} ({point}): processes "
                                           "sharing it fail now and then; give each job a local TRITON_CACHE_DIR",
                       entry="TP038")
        else:
            report.add("cache", "ok", f"Triton's cache directory {directory} (from {source}) is writable"
                       + (f", on {kind}" if kind else ""), entry="TP038")

    # variables
    if truthy(os.environ.get("CUDA_LAUNCH_BLOCKING")):
        report.add("environment", "warning", "CUDA_LAUNCH_BLOCKING=1: every launch waits for the GPU (right for "
                                             "finding an error, wrong for timing)", anchor="environment")
    else:
        shown = ", ".join(f"{k}={v}" for k, v in facts["environment"].items()) or "none of them set"
        report.add("environment", "ok", f"variables: {shown}", anchor="environment")

    if compile_kernels:
        for backend in (["interpreter"] if triton is not None and torch is not None else []) + \
                       ([active[0]] if len(active) == 1 and torch is not None else []):
            report.results.append(compile_and_run(backend))
    return report


KERNEL = r'''
import os, sys, time
start = time.perf_counter()
import torch, triton, triton.language as tl

@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)

device = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
x, y = torch.randn(1000, device=device), torch.randn(1000, device=device)
out = torch.full_like(x, float("nan"))
add[(triton.cdiv(1000, 256),)](x, y, out, 1000, BLOCK=256)
assert torch.equal(out, x + y), "wrong sum"
print(f"{time.perf_counter() - start:.1f}")
'''


def compile_and_run(backend: str) -> Result:
    """Compile and run a small kernel on ``backend`` in a fresh process, with a cache of its own."""
    environment = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="triton-faq-doctor-") as folder:
        environment["TRITON_CACHE_DIR"] = os.path.join(folder, "cache")
        if backend == "interpreter":
            environment["TRITON_INTERPRET"] = "1"
        else:
            environment.pop("TRITON_INTERPRET", None)
        kernel = Path(folder, "doctor_kernel.py")  # Triton reads a kernel's source from its file
        kernel.write_text(KERNEL, encoding="utf-8")
        try:
            done = subprocess.run([sys.executable, str(kernel)], capture_output=True, text=True, env=environment,
                                  timeout=600, cwd=folder)
        except subprocess.TimeoutExpired:
            return Result("compile", "problem", f"{backend}: the kernel did not finish in 600 s")
    if done.returncode == 0:
        return Result("compile", "ok", f"{backend}: compiled and ran a kernel; its sum is exact "
                                       f"({done.stdout.strip().splitlines()[-1]} s)")
    error = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return Result("compile", "problem", f"{backend}: {error}", entry=_entry_for_error(done.stderr))


def _entry_for_error(text: str) -> str | None:
    """The entry whose error fingerprint matches a failed run's output, if one does."""
    try:
        from .explain import candidates

        best = candidates(text[-20000:])[0]
        return best.entry.id if best.message else None
    except Exception:
        return None


# -- TRITON_INTERPRET set after import triton (TP040): only the program's own process can tell ----------


def interpret_order() -> Result:
    """Whether TRITON_INTERPRET changed after ``import triton`` in this process (TP040).

    ``@triton.jit`` decides when it decorates: Triton's own helpers in triton.language (``tl.cdiv``,
    ``tl.zeros``) were decorated when triton was imported, so their type says what TRITON_INTERPRET was
    then; the environment says what it is now.
    """
    triton = sys.modules.get("triton")
    if triton is None:
        return Result("interpret-order", "skipped", "triton is not imported in this process yet: nothing to compare",
                      entry="TP040")
    try:
        import triton.language as tl

        then = type(tl.cdiv).__name__ == "InterpretedFunction"
    except Exception as error:
        return Result("interpret-order", "skipped", f"triton.language is not usable: {first_line(error)}", entry="TP040")
    now = truthy(os.environ.get("TRITON_INTERPRET"))
    if now and not then:
        return Result("interpret-order", "problem", "TRITON_INTERPRET=1 was set after import triton: kernels that call "
                                                    "tl.zeros, tl.cdiv and other helpers fail; set it before the import",
                      entry="TP040")
    if then and not now:
        return Result("interpret-order", "warning", "TRITON_INTERPRET was unset after import triton: Triton's helpers "
                                                    "still run on the interpreter", entry="TP040")
    return Result("interpret-order", "ok", "TRITON_INTERPRET " + ("was set before import triton" if now else
                                                                  "is not set, before or after import triton"),
                  entry="TP040")


def check(*, language: str | None = None, show: bool = True, compile_kernels: bool = False) -> Report:
    """Run the doctor from inside a program: the environment as the program has it now, plus TP040's check.

    The inspection runs in a child process with this process's environment; nothing is imported here.
    """
    order = interpret_order()
    command = [sys.executable, "-m", "triton_faq", "doctor", "--json", *(["--compile"] if compile_kernels else [])]
    environment = dict(os.environ)
    here = str(Path(__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [here, environment.get("PYTHONPATH")]))
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
    try:
        data = json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(f"triton-faq doctor failed: {done.stderr.strip()[-2000:]}") from None
    report = Report(data["facts"], [Result(**{k: r[k] for k in ("check", "status", "message", "entry", "anchor")})
                                    for r in data["results"]])
    report.results = [r for r in report.results if r.check != "interpret-order"] + [order]
    if show:
        print(render(report, language or _language()))
    return report


# -- output -------------------------------------------------------------------------------------------


def _language() -> str:
    from .explain import default_language

    return default_language()


def _url(result: Result, language: str) -> str | None:
    """The entry's page (or this command's page and section) in ``language``; None where pages are not at hand."""
    try:
        from . import handbook

        book = handbook.load()
        if result.entry:
            entry = book.find(result.entry)
            return entry.url(language) if entry else None
        if result.anchor:
            return book.site.url_of(PAGE, language) + "#" + result.anchor
    except Exception:  # an installed copy without the pages, or without PyYAML
        return None
    return None


def lines(report: Report, language: str) -> list[str]:
    from . import ui_text

    labels = {key: ui_text.text(language, f"doctor.{key}") for key in (*STATUSES, "see")}
    width = max(len(labels[s]) for s in STATUSES)
    out = [f"{key}: {json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value}"
           for key, value in report.facts.items()]
    out.append("")
    for result in report.results:
        line = f"{labels[result.status]:<{width}}  {result.check}: {result.message}"
        if result.status in ("problem", "warning") and (result.entry or result.anchor):
            url = _url(result, language)
            line += f" ({labels['see']} {result.entry or ''}{' ' if result.entry and url else ''}{url or ''})"
        out.append(line)
    warnings = sum(r.status == "warning" for r in report.results)
    out.append(ui_text.text(language, "doctor.summary", problems=len(report.problems), warnings=warnings))
    return out


def render(report: Report, language: str) -> str:
    return "\n".join(lines(report, language))


def as_data(report: Report, language: str) -> dict:
    return {"facts": report.facts,
            "results": [{**asdict(r), "url": _url(r, language) if (r.entry or r.anchor) else None} for r in report.results]}


def markdown(report: Report, language: str) -> str:
    """A block to paste into an issue."""
    body = render(report, language).replace("```", "'''")
    return f"<details><summary>triton-faq doctor --report</summary>\n\n```text\n{body}\n```\n\n</details>"


def add_arguments(parser) -> None:
    parser.add_argument("--compile", action="store_true", help="also compile and run a small kernel on each backend")
    parser.add_argument("--json", action="store_true", help="the facts and results as JSON")
    parser.add_argument("--report", action="store_true", help="a Markdown block to paste into a bug report")
    from .cli import _languages

    parser.add_argument("--lang", choices=_languages(), help="language of the entry links (default: from the locale)")
    parser.add_argument("--arch", action="append", default=[], metavar="CC",
                        help="also check ptxas for this compute capability (90 for sm_90; repeatable)")


def run(args) -> int:
    """``triton-faq doctor``: 1 when a problem was found, else 0."""
    arches = []
    for value in args.arch:
        digits = re.fullmatch(r"(?:sm_?)?(\d{2,3})a?|(\d+)\.(\d)", value.strip())
        if not digits:
            print(f"triton-faq doctor: --arch {value!r} is not a compute capability (90, 9.0 or sm_90)", file=sys.stderr)
            return 2
        arches.append(int(digits.group(1)) if digits.group(1) else int(digits.group(2)) * 10 + int(digits.group(3)))
    language = args.lang or _language()
    started = time.perf_counter()
    report = inspect(arches, compile_kernels=args.compile)
    report.results.append(Result("interpret-order", "skipped", "run triton_faq.doctor.check() inside your program, "
                                 "after its imports, to check when TRITON_INTERPRET was set", entry="TP040"))
    report.facts["doctor took"] = f"{time.perf_counter() - started:.1f} s"
    if args.json:
        print(json.dumps(as_data(report, language), ensure_ascii=False, indent=1))
    elif args.report:
        print(markdown(report, language))
    else:
        print(render(report, language))
    return 1 if report.problems else 0
