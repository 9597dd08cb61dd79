"""TP064's claims, one test each: snippets/compilation/triton_on_windows.py.

Windows itself is not reproduced here. What pip does for a Windows machine is: `pip download --platform win_amd64`
asks PyPI exactly what pip on Windows would ask (no download happens; without PyPI those tests skip). They
wait on the network, so they are `slow`: they run where CI is set, and in the version matrix.
"""

import subprocess
import sys

import pytest
import triton

from snippets.compilation import triton_on_windows as entry
from triton_faq.testing import NO_DOWNLOAD, pip

WINDOWS = ["--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.12", "--no-deps"]


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_no_windows_wheel_of_triton():
    return "\n".join(pip("download", *WINDOWS, "-d", NO_DOWNLOAD, "triton"))


@pytest.mark.slow
def test_pitfall_pypi_has_no_triton_for_windows():
    assert reproduce_no_windows_wheel_of_triton().splitlines()[-2:] == [
        "ERROR: Could not find a version that satisfies the requirement triton (from versions: none)",
        "ERROR: No matching distribution found for triton"]


@pytest.mark.slow
def test_pypi_has_triton_for_linux():
    lines = pip("index", "versions", "triton", "--only-binary=:all:", "--platform", "manylinux_2_28_x86_64",
                "--python-version", "3.12")
    assert lines[0].startswith("triton (3.")


@pytest.mark.slow
def test_fix_pypi_has_triton_windows_wheels_for_windows():
    lines = pip("index", "versions", "triton-windows", *WINDOWS[:-1])
    assert lines[0].startswith("triton-windows (3."), lines


def test_fix_install_command_runs_pip_of_this_very_python():
    command = entry.install_command()
    assert command.startswith(subprocess.list2cmdline([sys.executable]))
    assert command.endswith("-m pip install -U " + entry.package_for_this_system())


def test_fix_package_is_triton_windows_on_windows(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    assert entry.package_for_this_system() == "triton-windows"
    monkeypatch.setattr(sys, "platform", "linux")
    assert entry.package_for_this_system() == "triton"


def test_installed_names_the_triton_of_this_python():
    assert entry.installed().get("triton") == triton.__version__


def test_embedded_python_without_include_and_libs_is_reported(monkeypatch, tmp_path):
    home = tmp_path / "python_embeded"
    (home / "include").mkdir(parents=True)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(sys, "executable", str(home / "python.exe"))
    assert entry.embedded_python_is_missing() == ["libs"]
    (home / "libs").mkdir()
    assert entry.embedded_python_is_missing() == []


def test_main_prints_the_install_command(capsys):
    entry.main()
    assert capsys.readouterr().out.splitlines()[-1] == (
        "install or upgrade Triton for this Python with: " + entry.install_command())
