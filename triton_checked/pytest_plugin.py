"""pytest fixture ``checked_interpreter``: the test's kernels run with bounds and race checks.

Installed with ``triton_checked``, pytest loads it by itself; use the fixture by name
(``def test_x(checked_interpreter): ...``). The tests must run on Triton's interpreter
(``TRITON_INTERPRET=1`` before Triton is imported).
"""

import pytest


@pytest.fixture
def checked_interpreter():
    from triton_checked.checker import checked

    with checked():
        yield
