"""TP090's claims, one test each: snippets/compilation/no_wheel_for_this_python_or_platform.py.

The machines are not reproduced: what pip on them would ask PyPI is asked with `--python-version` and
`--platform` (the reader's file's `releases_for`, and `pip download` into a folder that does not exist, so
nothing is downloaded). Without PyPI these tests skip; they wait on the network, so they are `slow` (run
where CI is set, and by the version matrix). The releases' queries run side by side, once per test run
(`answers`): each is a round trip to PyPI.
"""

import platform
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import triton

from snippets.compilation import no_wheel_for_this_python_or_platform as entry
from triton_faq.testing import NO_DOWNLOAD as NOWHERE, needs_pypi, pip


QUESTIONS = {  # name: releases_for's arguments (a machine other than this one)
    "python 3.13": {"python": "3.13"},
    "python 3.14": {"python": "3.14"},
    "python 3.9": {"python": "3.9"},
    "python 3.10": {"python": "3.10"},
    "aarch64": {"machine": "aarch64", "python": "3.12"},
    "glibc 2.17": {"glibc": "2.17", "python": "3.12"},
    "glibc 2.26": {"glibc": "2.26", "python": "3.12"},
    "glibc 2.27": {"glibc": "2.27", "python": "3.12"},
}


@pytest.fixture(scope="module")
def answers():
    """PyPI's answer to each of QUESTIONS, oldest release last (as pip prints them)."""
    needs_pypi()
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        found = dict(zip(QUESTIONS, pool.map(lambda kwargs: entry.releases_for(**kwargs), QUESTIONS.values())))
    if not any(found.values()):
        pytest.skip("pip found no Triton for any machine: no PyPI here")
    return found


def release(version):
    return tuple(int(part) for part in version.split("."))


# -- the reproducer of the message in the page's `errors:` front matter

def reproduce_python_3_13_and_triton_3_1():
    return "\n".join(pip("download", "--only-binary=:all:", "--no-deps", "--python-version", "3.13",
                         "--platform", "manylinux2014_x86_64", "-d", NOWHERE, "triton==3.1.0"))


@pytest.mark.slow
def test_pitfall_python_3_13_finds_no_triton_3_1():
    lines = reproduce_python_3_13_and_triton_3_1().splitlines()
    assert lines[-1] == "ERROR: No matching distribution found for triton==3.1.0"
    assert lines[-2].startswith("ERROR: Could not find a version that satisfies the requirement triton==3.1.0 "
                                "(from versions: 3.2.0")


@pytest.mark.slow
def test_python_3_13_needs_triton_3_2_and_python_3_14_needs_3_5(answers):
    assert answers["python 3.13"][-1] == "3.2.0"
    assert answers["python 3.14"][-1] == "3.5.0"


@pytest.mark.slow
def test_python_3_9_stops_at_3_4_and_python_3_10_at_3_8(answers):
    assert answers["python 3.9"][0] == "3.4.0"
    assert answers["python 3.10"][0] == "3.8.0"


@pytest.mark.slow
def test_linux_aarch64_has_wheels_from_3_5(answers):
    assert answers["aarch64"][-1] == "3.5.0"
    assert "3.9.0" in answers["aarch64"]


@pytest.mark.slow
def test_glibc_below_2_27_stops_at_3_2(answers):
    assert answers["glibc 2.17"][0] == answers["glibc 2.26"][0] == "3.2.0"
    assert release(answers["glibc 2.27"][0]) >= (3, 9) and "3.3.0" in answers["glibc 2.27"]


@pytest.mark.slow
def test_pitfall_macos_has_no_triton_wheel():
    lines = pip("download", "--only-binary=:all:", "--no-deps", "--python-version", "3.12",
                "--platform", "macosx_14_0_arm64", "-d", NOWHERE, "triton")
    assert lines[-1] == "ERROR: No matching distribution found for triton"
    assert "(from versions: none)" in lines[-2]


@pytest.mark.slow
def test_pitfall_a_dev_build_pinned_in_2022_is_no_longer_on_pypi():
    lines = pip("download", "--only-binary=:all:", "--no-deps", "--python-version", "3.10",
                "--platform", "manylinux2014_x86_64", "-d", NOWHERE, "triton==2.0.0.dev20221202")
    assert lines[-1] == "ERROR: No matching distribution found for triton==2.0.0.dev20221202"
    listed = lines[-2].split("(from versions: ")[1].rstrip(")").split(", ")
    assert "2.0.0" in listed and not any("dev" in version for version in listed)


# -- the fix

def test_fix_this_machine_is_what_pip_matches_wheels_against():
    here = entry.this_machine()
    assert here["python"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert (here["os"], here["machine"]) == (sys.platform, platform.machine())
    libc, version = platform.libc_ver()
    assert here["glibc"] == (version if libc == "glibc" else None)


def test_fix_a_glibc_accepts_every_manylinux_tag_down_to_2_17():
    tags = entry.linux_platforms("x86_64", "2.28")
    assert tags[0] == "manylinux_2_28_x86_64" and tags[-2:] == ["manylinux_2_17_x86_64", "manylinux2014_x86_64"]
    assert len(tags) == 13


@pytest.mark.slow
def test_fix_the_releases_for_this_machine_include_the_installed_triton():
    needs_pypi()
    if "+" in triton.__version__:
        pytest.skip(f"Triton {triton.__version__} is a local build, not a release on PyPI")
    assert triton.__version__ in entry.releases_for()


@pytest.mark.slow
def test_pypi_has_no_source_distribution_to_build_from():
    lines = pip("download", "--no-binary=:all:", "--no-deps", "-d", NOWHERE, "triton")
    assert lines[-1] == "ERROR: No matching distribution found for triton"
    assert "(from versions: none)" in lines[-2]
