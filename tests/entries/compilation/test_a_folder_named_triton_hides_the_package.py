"""TP091's claims, one test each: snippets/compilation/a_folder_named_triton_hides_the_package.py.

Each state is made real in a temporary folder and run by a fresh Python: a project with its own `triton.py` or
`triton/` package beside the script, and an environment (a new virtual environment, without pip) whose
site-packages holds a `triton` folder without its `__init__.py`, what an install looks like once another
distribution that shared the folder was uninstalled.
"""

import os
import subprocess
import sys
import tempfile
import venv

import pytest
import triton

from snippets.compilation import a_folder_named_triton_hides_the_package as entry

KERNEL = "import triton\n\n\n@triton.jit\ndef kernel(x_ptr):\n    pass\n"


def run(python, script, folder):
    """Run `script` (a file in `folder`) with `python`: its exit status and last line of output, stderr included.
    The broken environment's Python gets no PYTHONPATH, which may name a working Triton (the version matrix)."""
    env = dict(os.environ)
    if python != sys.executable:
        env.pop("PYTHONPATH", None)
    done = subprocess.run([python, script], cwd=folder, capture_output=True, text=True, timeout=120, env=env)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, lines[-1] if lines else ""


def own_package(folder):
    """A project's own package named triton (an empty __init__.py) in `folder`."""
    os.makedirs(os.path.join(folder, "triton"))
    open(os.path.join(folder, "triton", "__init__.py"), "w").close()


def broken_environment(home):
    """A new Python environment in `home` whose triton folder lost its __init__.py: only subfolders are left.
    Its Python and that folder."""
    venv.EnvBuilder(with_pip=False).create(home)
    python = os.path.join(home, "bin", "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    for part in ("runtime", "language", "backends"):
        os.makedirs(os.path.join(site, "triton", part))
    return python, os.path.join(site, "triton")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "kernel.py").write_text(KERNEL)
    return tmp_path


@pytest.fixture(scope="module")
def broken_install(tmp_path_factory):
    return broken_environment(str(tmp_path_factory.mktemp("env")))


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_own_package_named_triton():
    with tempfile.TemporaryDirectory() as folder:
        own_package(folder)
        with open(os.path.join(folder, "kernel.py"), "w") as stream:
            stream.write(KERNEL)
        return run(sys.executable, "kernel.py", folder)[1]


def reproduce_unknown_location():
    with tempfile.TemporaryDirectory() as home:
        python, _ = broken_environment(home)
        with open(os.path.join(home, "use.py"), "w") as stream:
            stream.write("from triton import cdiv\n")
        return run(python, "use.py", home)[1]


# -- the pitfall

def test_pitfall_an_own_package_named_triton_beside_the_script_hides_triton(project):
    own_package(project)
    assert run(sys.executable, "kernel.py", project) == (1, "AttributeError: module 'triton' has no attribute 'jit'")


def test_pitfall_an_own_triton_py_beside_the_script_hides_triton(project):
    (project / "triton.py").write_text("VERSION = 1\n")
    assert run(sys.executable, "kernel.py", project) == (1, "AttributeError: module 'triton' has no attribute 'jit'")


def test_pitfall_a_script_named_triton_py_imports_itself(tmp_path):
    (tmp_path / "triton.py").write_text(KERNEL)
    assert run(sys.executable, "triton.py", tmp_path) == (
        1, "AttributeError: partially initialized module 'triton' has no attribute 'jit' "
           "(most likely due to a circular import)")


def test_a_folder_without_init_beside_the_script_does_not_hide_an_installed_triton(project):
    (project / "triton" / "language").mkdir(parents=True)
    (project / "use.py").write_text("import triton\nprint(triton.__file__)\n")
    assert run(sys.executable, "use.py", project) == (0, triton.__file__)


def test_pitfall_an_install_without_its_init_is_an_empty_namespace_package(broken_install, tmp_path):
    python, _ = broken_install
    (tmp_path / "use.py").write_text("from triton import cdiv\n")
    assert run(python, "use.py", tmp_path) == (1, "ImportError: cannot import name 'cdiv' from 'triton' (unknown location)")
    (tmp_path / "kernel.py").write_text(KERNEL)
    assert run(python, "kernel.py", tmp_path) == (1, "AttributeError: module 'triton' has no attribute 'jit'")


# -- the fix

def test_fix_which_triton_names_the_package_that_hides_triton(project):
    own_package(project)
    found = entry.which_triton(str(project))
    assert found == {"file": str(project / "triton" / "__init__.py"), "folders": [str(project / "triton")],
                     "is_triton": False}


def test_fix_which_triton_tells_an_install_without_its_init(broken_install, tmp_path, monkeypatch):
    python, folder = broken_install
    monkeypatch.delenv("PYTHONPATH", raising=False)  # which may name a working Triton (the version matrix)
    assert entry.which_triton(str(tmp_path), python) == {"file": None, "folders": [folder], "is_triton": False}


def test_fix_which_triton_finds_the_installed_triton_elsewhere(tmp_path):
    found = entry.which_triton(str(tmp_path))
    assert found == {"file": triton.__file__, "folders": list(triton.__path__), "is_triton": True}


def test_fix_renaming_the_own_package_lets_the_kernel_import_triton(project):
    own_package(project)
    (project / "triton").rename(project / "my_triton_utils")
    assert run(sys.executable, "kernel.py", project) == (0, "")
