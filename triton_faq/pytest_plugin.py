"""pytest fixture ``checked_interpreter``: the test's kernels run with bounds and race checks.

Use it by name in a test (``def test_x(checked_interpreter): ...``). It is loaded by this
project's conftest; elsewhere add ``-p triton_faq.pytest_plugin`` or
``pytest_plugins = ["triton_faq.pytest_plugin"]``.
"""

import pytest


@pytest.fixture
def checked_interpreter():
    from triton_faq import backend  # noqa: F401  (picks the interpreter before Triton loads when there is no GPU)
    from triton_faq.checking import checked

    with checked():
        yield
