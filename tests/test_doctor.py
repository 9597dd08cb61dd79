"""``triton-faq doctor``: each problem it reports, reproduced in a child process that has it.

The conditions are made real, not mocked: a second environment whose torch pins another Triton and whose
NumPy is 2.4 (installed metadata in a site directory put first on PYTHONPATH), a stand-in ``ptxas`` that
knows no sm_90 (through TRITON_PTXAS_PATH, which Triton itself reads), Triton's own ptxas-blackwell for
sm_110 (TP061's failing target), a cache directory that cannot be created (a path below a regular file:
the tests run as root, whom a read-only mode does not stop), TRITON_INTERPRET set after ``import triton``,
and environments with torch or Triton absent (``python -S`` and a site directory without them).

Two conditions cannot be made on a Linux machine without a GPU: a driver older than the ptxas, and a
Windows DLL that does not load. Their decisions are tested on recorded output of the real tools, cited.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from triton_faq import doctor
from triton_faq import handbook
from triton_faq.handbook import ROOT


def find(entry_id):
    return handbook.load(ROOT).find(entry_id)


def entry_url(name, language):
    return handbook.load_site(ROOT).url_of(name, language)

PYTHON = sys.executable


def environment(pythonpath=(), **variables):
    """This process's environment without Triton's variables, with ``variables`` and PYTHONPATH set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "CUDA_LAUNCH"))}
    env.update(variables)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), str(ROOT)])
    return env


class Child:
    """A child process started at once (the children of this file run side by side), read when asked."""

    def __init__(self, command, env):
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.done = None

    def result(self):
        if self.done is None:
            out, err = self.process.communicate(timeout=120)
            self.done = (self.process.returncode, out, err)
        return self.done

    def doctor(self):
        """(exit status, {check: [results]}, facts) of a ``doctor --json`` child."""
        status, out, err = self.result()
        assert out, err
        data = json.loads(out)
        results = {}
        for result in data["results"]:
            results.setdefault(result["check"], []).append(result)
        return status, results, data["facts"]


def doctor_command(*arguments, python=(PYTHON,)):
    return [*python, "-m", "triton_faq", "doctor", "--json", *arguments]


def statuses(results, check):
    return [r["status"] for r in results[check]]


def url_of(entry_id):
    return entry_url(find(entry_id).name, "en")


def metadata(site: Path, name: str, version: str, *requires: str) -> None:
    """An installed distribution's metadata (what pip writes, and importlib.metadata and pip read)."""
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\n" + f"Name: {name}\nVersion: {version}\n"
                                   + "".join(f"Requires-Dist: {r}\n" for r in requires), encoding="utf-8")


def site_without(folder: Path, *hidden: str) -> Path:
    """A copy of this environment's site-packages, by symbolic links, without the packages named."""
    site = folder / "site"
    site.mkdir(parents=True)
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(hidden) and entry.suffix != ".pth":
            (site / entry.name).symlink_to(entry)
    return site


LATE = """
import os
import triton
os.environ["TRITON_INTERPRET"] = "1"   # too late: triton.language's helpers are compiled-mode already
import triton.language as tl
from triton_faq.doctor import interpret_order

result = interpret_order()
print(result.status, result.entry)
"""

UNDER_CHECKED = """
import triton
from triton_faq import doctor

report = doctor.check(show=False)
print([(r.status, r.entry) for r in report.results if r.check == "interpret-order"])
print([r.status for r in report.results if r.check == "numpy"])
"""


COMPILE = """
from triton_faq.doctor import compile_and_run

result = compile_and_run("interpreter")
print(result.status)
print(result.message)
"""


@pytest.fixture(scope="module")
def children(tmp_path_factory):
    """Every child process of this file, started together."""
    folder = tmp_path_factory.mktemp("doctor")
    # a second environment with everything wrong at once: torch pinning Triton 3.2.0, NumPy 2.4.1, a ptxas
    # without sm_90, a cache path below a regular file, CUDA_LAUNCH_BLOCKING
    site = folder / "broken" / "site"
    metadata(site, "torch", "2.6.0", 'triton==3.2.0; platform_system == "Linux" and platform_machine == "x86_64"')
    metadata(site, "numpy", "2.4.1")
    ptxas = folder / "broken" / "ptxas"  # answers like CUDA 12.8's ptxas, but knows only sm_75 and sm_80
    ptxas.write_text("#!/bin/sh\ncase \"$1\" in\n  --version) echo 'Cuda compilation tools, release 12.8, V12.8.93';;\n"
                     "  --help) echo \"Allowed values for this option:  'compute_80','sm_75','sm_80'\";;\n"
                     "  *) exit 1;;\nesac\n", encoding="utf-8")
    ptxas.chmod(0o755)
    (folder / "broken" / "a-file").write_text("not a directory\n", encoding="utf-8")
    # the control: torch pinning the Triton installed, the NumPy installed, a writable cache
    fits = folder / "fits" / "site"
    metadata(fits, "torch", "2.11.0", "triton==3.6.0")
    metadata(fits, "numpy", "2.3.5")  # the project's pin (the H200's own NumPy is 2.5)
    (folder / "late.py").write_text(LATE, encoding="utf-8")
    (folder / "checked.py").write_text(UNDER_CHECKED, encoding="utf-8")
    runs = {
        "broken": Child(doctor_command("--arch", "90", "--arch", "110"), environment(
            [site], TRITON_INTERPRET="1", TRITON_PTXAS_PATH=str(ptxas), CUDA_LAUNCH_BLOCKING="1",
            TRITON_CACHE_DIR=str(folder / "broken" / "a-file" / "cache"))),
        "fits": Child(doctor_command("--arch", "90"), environment(
            [fits], TRITON_INTERPRET="1", TRITON_CACHE_DIR=str(folder / "fits" / "cache"))),
        "late": Child([PYTHON, str(folder / "late.py")], environment()),
        "checked": Child([PYTHON, "-m", "triton_faq", "checked", str(folder / "checked.py")], environment()),
        # also: TRITON_PTXAS_PATH, which Triton 3.6 does not read for sm_110, and a ptxas-blackwell that Triton
        # skips because it does not answer --version with a release (Triton falls back to its own)
        "no torch": Child(doctor_command("--arch", "110", python=(PYTHON, "-S")), environment(
            [site_without(folder / "no-torch", "torch", "functorch", "torchgen")], TRITON_PTXAS_PATH=str(ptxas),
            TRITON_PTXAS_BLACKWELL_PATH="/bin/true")),
        "neither": Child(doctor_command(python=(PYTHON, "-S")), environment(
            [site_without(folder / "neither", "torch", "functorch", "torchgen", "triton")])),
    }
    runs["compile"] = Child([PYTHON, "-c", COMPILE], environment())
    runs["folder"], runs["ptxas"] = folder, str(ptxas)
    yield runs
    for child in runs.values():
        if isinstance(child, Child) and child.process.poll() is None:
            child.process.kill()
            child.process.communicate()


@pytest.fixture(scope="module")
def broken(children):
    status, results, facts = children["broken"].doctor()
    return {"status": status, "results": results, "facts": facts, "ptxas": children["ptxas"],
            "folder": children["folder"] / "broken"}


def test_a_problem_makes_the_exit_status_1(broken):
    assert broken["status"] == 1


def test_torch_pinning_another_triton_is_a_problem_naming_tp060(broken):
    [pin] = broken["results"]["pin"]
    assert pin["status"] == "problem" and pin["entry"] == "TP060" and pin["url"] == url_of("TP060")
    assert "torch 2.6.0 pins triton==3.2.0, but triton 3.6.0 is installed" in pin["message"]


def test_numpy_2_4_under_the_interpreter_is_a_problem_naming_tp007(broken):
    [numpy] = broken["results"]["numpy"]
    assert numpy["status"] == "problem" and numpy["entry"] == "TP007" and numpy["url"] == url_of("TP007")
    assert numpy["message"].startswith("NumPy 2.4.1 with Triton 3.6.0")


def test_a_ptxas_without_the_target_is_a_problem_naming_tp061(broken):
    """The stand-in, reached through TRITON_PTXAS_PATH as Triton reaches it, and Triton's own ptxas-blackwell."""
    problems = [r["message"] for r in broken["results"]["ptxas"] if r["status"] == "problem"]
    assert all(r["entry"] == "TP061" for r in broken["results"]["ptxas"])
    assert problems[0].startswith(f"{broken['ptxas']} (CUDA 12.8) does not know sm_90a: point TRITON_PTXAS_PATH")
    assert problems[1].endswith("/ptxas-blackwell (CUDA 12.9) does not know sm_110a: point TRITON_PTXAS_BLACKWELL_PATH "
                                "at the ptxas of a CUDA toolkit that knows this GPU, or upgrade Triton")


def test_a_cache_directory_that_cannot_be_made_is_a_problem_naming_tp038(broken):
    [cache] = broken["results"]["cache"]
    assert cache["status"] == "problem" and cache["entry"] == "TP038"
    assert f"{broken['folder'] / 'a-file'} is a file, not a directory" in cache["message"]
    assert not (broken["folder"] / "a-file").is_dir()  # nothing was created


def test_cuda_launch_blocking_is_a_warning(broken):
    assert statuses(broken["results"], "environment") == ["warning"]


def test_the_same_checks_pass_where_the_stack_fits(children):
    """The control: Triton's own ptxas for sm_90, a writable cache, NumPy 2.3.5, torch pinning 3.6.0."""
    status, results, facts = children["fits"].doctor()
    assert status == 0
    for check in ("pin", "numpy", "ptxas", "cache", "environment", "gpu"):
        assert statuses(results, check) == ["ok"], results[check]
    assert not (children["folder"] / "fits" / "cache").exists()  # the check writes nothing that stays
    assert facts["triton"] == "3.6.0 (triton)" and facts["torch pins"] == "triton==3.6.0"
    # the command runs in a fresh process, where no program of the user's imported anything: not "ok"
    assert statuses(results, "interpret-order") == ["skipped"]
    assert "triton_faq.doctor.check()" in results["interpret-order"][0]["message"]


def test_triton_interpret_set_after_import_is_a_problem_naming_tp040(children):
    """TP040's own tests show the launch that then fails; here, the check that sees the order."""
    status, out, err = children["late"].result()
    assert status == 0, err
    assert out.strip() == "problem TP040"


def test_check_from_a_program_under_the_checked_interpreter(children):
    """``triton-faq checked`` sets TRITON_INTERPRET before the script imports Triton; ``check()`` runs the
    inspection in a child with the script's environment and adds the order check."""
    status, out, err = children["checked"].result()
    assert status == 0, err
    # the child saw the script's TRITON_INTERPRET=1: NumPy is judged for the interpreter (the H200's 2.5 fails)
    numpy = doctor.numpy_for_interpreter(doctor.distribution_version("numpy"), doctor.installed_triton()[1], True)[0]
    assert out.splitlines() == ["[('ok', 'TP040')]", f"[{numpy!r}]"]


def test_without_torch_it_says_so_and_still_checks_triton(children):
    status, results, facts = children["no torch"].doctor()
    assert facts["torch"] is None and facts["triton"] == "3.6.0 (triton)"
    assert statuses(results, "torch") == ["warning"]
    assert results["torch"][0]["message"].startswith("torch is not installed")
    assert statuses(results, "gpu") == ["warning"] and results["gpu"][0]["message"].startswith("without torch")
    assert statuses(results, "ptxas") == ["problem", "warning", "warning"]  # checked without torch
    assert results["ptxas"][0]["message"].endswith("/ptxas-blackwell (CUDA 12.9) does not know sm_110a: point "
                                                   "TRITON_PTXAS_BLACKWELL_PATH at the ptxas of a CUDA toolkit that "
                                                   "knows this GPU, or upgrade Triton")
    assert results["ptxas"][1]["message"] == "TRITON_PTXAS_PATH is set, but Triton 3.6.0 does not read it for sm_110"
    ignored = results["ptxas"][2]["message"]  # what /bin/true printed for --version comes in brackets
    assert ignored.startswith("TRITON_PTXAS_BLACKWELL_PATH=/bin/true does not answer --version with a CUDA release (")
    assert ignored.endswith("): Triton ignores it and runs its own ptxas")
    assert status == 1


def test_without_torch_and_triton_it_says_so(children):
    status, results, facts = children["neither"].doctor()
    assert status == 0
    assert facts["torch"] is None and facts["triton"] is None
    assert statuses(results, "torch") == ["warning"] and statuses(results, "triton") == ["warning"]
    assert statuses(results, "cache") == ["ok"]  # Triton's rule for the directory, without Triton


def test_compile_runs_a_kernel_on_the_interpreter(children):
    """``--compile``: a fresh process, the interpreter forced on, the sum compared exactly."""
    status, out, err = children["compile"].result()
    assert status == 0, err
    assert out.splitlines()[0] == "ok"
    assert out.splitlines()[1].startswith("interpreter: compiled and ran a kernel; its sum is exact (")


@pytest.mark.gpu
def test_gpu_on_the_gpu_every_check_passes_and_hiding_the_gpu_is_a_problem_naming_tp012(tmp_path):
    """On a machine with an NVIDIA GPU: the GPU's own target, the driver, a kernel compiled and run; then the
    same machine with CUDA_VISIBLE_DEVICES='' (the driver still lists the GPU in /proc)."""
    done = Child(doctor_command("--compile"), environment(TRITON_CACHE_DIR=str(tmp_path / "cache"))).doctor()
    hidden = Child(doctor_command(), environment(CUDA_VISIBLE_DEVICES="")).doctor()
    status, results, facts = done
    assert status == 0 and facts["gpus"] and facts["driver CUDA"]
    for check in ("gpu", "ptxas", "driver", "compile"):
        assert set(statuses(results, check)) == {"ok"}, results[check]
    assert [r["message"].split(":")[0] for r in results["compile"]] == ["interpreter", "nvidia"]
    status, results, _ = hidden
    [gpu] = results["gpu"]
    assert status == 1 and gpu["status"] == "problem" and gpu["entry"] == "TP012"
    assert gpu["message"].startswith("CUDA_VISIBLE_DEVICES='' hides the ")


# -- decisions on recorded output ------------------------------------------------------------------------


def test_an_older_driver_than_the_ptxas_is_judged_by_tritons_own_ptx_mapping():
    """Recorded: ``CUDA Version: 11.6`` (driver 510.47.03, cuDriverGetVersion 11060) in
    https://github.com/triton-inference-server/server/issues/5846, and CUDA 12.x drivers; the ptxas
    releases are Triton 3.6's (12.8, 12.9) and CUDA 13.0's (TP061). No machine here has an old driver."""
    from triton.backends.nvidia.compiler import ptx_get_version

    status, message = doctor.driver_against_ptxas(11060, "12.8", ptx_get_version)
    assert status == "problem" and message.startswith("the driver supports CUDA 11.6 (PTX ISA 7.6); Triton's ptxas "
                                                      "is CUDA 12.8 (PTX ISA 8.7)")
    assert doctor.driver_against_ptxas(12020, "12.8", ptx_get_version)[0] == "warning"
    assert doctor.driver_against_ptxas(12080, "12.8", ptx_get_version)[0] == "ok"
    assert doctor.driver_against_ptxas(12080, "13.0", ptx_get_version)[0] == "problem"
    assert doctor.driver_against_ptxas(13000, "12.9", ptx_get_version)[0] == "ok"


RECORDED_WINDOWS = [  # `import triton` on Windows, as users posted it
    # https://github.com/woct0rdho/triton-windows/issues/58
    "ImportError: DLL load failed while importing libtriton: A dynamic link library (DLL) initialization routine failed.",
    # https://github.com/woct0rdho/triton-windows/issues/27
    "ImportError: DLL load failed while importing libtriton: Eine DLL-Initialisierungsroutine ist fehlgeschlagen.",
    # https://github.com/woct0rdho/triton-windows/issues/87
    "ImportError: DLL load failed while importing libtriton: 动态链接库(DLL)初始化例程失败。",
]


@pytest.mark.parametrize("message", RECORDED_WINDOWS)
def test_windows_dll_failures_are_recognised_on_recorded_messages(message):
    """No Windows machine here: the decision is tested on what users posted."""
    assert doctor.windows_dll_failure(message) == "libtriton"


def test_other_import_errors_are_not_taken_for_dll_failures():
    assert doctor.windows_dll_failure("cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'") is None


def test_a_cache_on_nfs_is_recognised_from_proc_mounts():
    """A network file system cannot be mounted here; /proc/mounts lines as proc(5) documents them."""
    mounts = ("/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n"
              "fileserver:/export/home /home nfs4 rw,relatime,vers=4.2,rsize=1048576 0 0\n"
              "/dev/nvme1n1 /home/scratch ext4 rw 0 0\n"
              "server:/my\\040share /mnt/my\\040share cifs rw 0 0\n")
    assert doctor.mount_of("/home/alice/.triton/cache", mounts) == ("/home", "nfs4")
    assert doctor.mount_of("/home/scratch/cache", mounts) == ("/home/scratch", "ext4")
    assert doctor.mount_of("/mnt/my share/x", mounts) == ("/mnt/my share", "cifs")
    assert doctor.mount_of("/homer", mounts) == ("/", "ext4")
    assert "nfs4" in doctor.NETWORK_FILE_SYSTEMS and "ext4" not in doctor.NETWORK_FILE_SYSTEMS


def test_the_numpy_range_is_the_one_tp007s_version_table_records():
    """NumPy 2.4 breaks the interpreter (TP007's page cites the 2.4.0 notes); from which Triton it does not:
    read back from the version matrix, where TP007's pitfall test stops passing."""
    matrix = json.loads((ROOT / "data" / "version-matrix.json").read_text(encoding="utf-8"))
    outcomes = matrix["entries"]["TP007"]["tests"]["test_interpreter_with_numpy_2_4_cannot_loop_to_a_runtime_bound"]
    broken = sorted(doctor.version_tuple(v) for v, outcome in outcomes.items() if outcome == "passed")
    fixed = sorted(doctor.version_tuple(v) for v, outcome in outcomes.items() if outcome == "failed")
    assert broken[-1] < doctor.TRITON_INTERPRETER_FIXED <= fixed[0][:2] and fixed[0][:2] == doctor.TRITON_INTERPRETER_FIXED
    page = (ROOT / find("TP007").page).read_text(encoding="utf-8")
    assert "NumPy 2.4.0 turned it into a `TypeError`" in page and doctor.NUMPY_BREAKS_INTERPRETER == (2, 4)
    assert doctor.numpy_for_interpreter("2.3.5", "3.6.0", True)[0] == "ok"
    assert doctor.numpy_for_interpreter("2.4.0", "3.7.1", True)[0] == "ok"
    assert doctor.numpy_for_interpreter("2.4.0", "3.6.0", False)[0] == "warning"  # a GPU, not the interpreter


# -- the output ------------------------------------------------------------------------------------------


def test_text_zh_and_report(broken):
    report = doctor.Report({"torch": "2.6.0"}, [doctor.Result(**{k: r[k] for k in ("check", "status", "message",
                                                                                    "entry", "anchor")})
                                                for rs in broken["results"].values() for r in rs])
    english, chinese = doctor.render(report, "en"), doctor.render(report, "zh")
    assert f"(see TP060 {url_of('TP060')})" in english
    assert f"(见 TP060 {entry_url(find('TP060').name, 'zh')})" in chinese
    results = english.splitlines()[-len(report.results) - 1:-1]  # one line each, after the facts
    assert [line.split()[0] for line in results] == [r.status for r in report.results]
    assert english.splitlines()[-1] == f"{len(report.problems)} problem(s), 1 warning(s)"
    block = doctor.markdown(report, "en")
    assert block.startswith("<details><summary>triton-faq doctor --report</summary>\n\n```text\n")
    assert block.endswith("\n```\n\n</details>") and english in block


def test_a_bad_arch_is_one_line():
    done = subprocess.run([PYTHON, "-m", "triton_faq", "doctor", "--arch", "hopper"], capture_output=True, text=True,
                          env=environment(), timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "triton-faq doctor: --arch 'hopper' is not a compute capability (90, 9.0 or sm_90)\n"
