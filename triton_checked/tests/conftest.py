"""The checked interpreter's own tests: they run on Triton's interpreter, on the CPU.

Run on their own (``python -m pytest tests`` inside the package) they need nothing but the
package, Triton, numpy, torch and pytest; the interpreter is chosen here, before Triton is
imported, unless the caller already chose a backend.
"""

import os
import sys

if "triton" not in sys.modules:
    os.environ.setdefault("TRITON_INTERPRET", "1")


def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter: a claim about Triton's CPU interpreter; skipped on CUDA")
    config.addinivalue_line("markers", "slow: a pip install; in the handbook's suite it runs where CI is set")
