"""TP091: module 'triton' has no attribute 'jit': `import triton` found something else than the installed Triton.

Run it: python a_folder_named_triton_hides_the_package.py [FOLDER]  (which `triton` Python imports when it runs a
script in FOLDER, the current one by default, and whether it is the real package)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import json  # noqa: E402  (which_triton)
import subprocess  # noqa: E402
import sys  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
# Python takes the first `triton` on sys.path, whose first entry is the script's folder (the current folder for
# `python -c` and notebooks):
#     my_project/triton.py or my_project/triton/__init__.py    # your own module or package named triton
#     python my_project/kernel.py     # AttributeError: module 'triton' has no attribute 'jit'
#     python triton.py                # ... partially initialized module 'triton' has no attribute 'jit'
# An install whose triton/__init__.py is gone (two distributions shared the folder, one was uninstalled) leaves a
# folder Python imports as an empty namespace package:
#     from triton import cdiv         # ImportError: cannot import name 'cdiv' from 'triton' (unknown location)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def which_triton(folder=".", python=sys.executable):
    """What `import triton` gives a script in `folder` run by `python`: where it comes from, and whether it is
    Triton itself."""
    code = ("import json, triton; print(json.dumps([getattr(triton, '__file__', None), "
            "list(getattr(triton, '__path__', [])), hasattr(triton, 'jit')]))")
    done = subprocess.run([python, "-c", code], cwd=folder, capture_output=True, text=True, timeout=60)
    origin, folders, real = json.loads(done.stdout)  # -c puts `folder` first on sys.path, as a script there does
    return {"file": origin, "folders": folders, "is_triton": real}  # file None: a folder without __init__.py
# --8<-- [end:fix]


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]) else "."
    found = which_triton(folder)
    print(f"a script in {os.path.abspath(folder)} imports triton from", found["file"] or found["folders"])
    if found["is_triton"]:
        print("that is Triton", triton.__version__ if found["file"] == triton.__file__ else "(another install)")
    elif found["file"] is None:
        print("a folder without __init__.py: reinstall Triton (pip uninstall every triton distribution, then install one)")
    else:
        print("not Triton: rename that file or folder, or run the script from elsewhere")


if __name__ == "__main__":
    main()
