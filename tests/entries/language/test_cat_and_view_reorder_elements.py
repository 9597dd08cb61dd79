"""TP051's claims, one test each: snippets/language/cat_and_view_reorder_elements.py.

Triton 3.9's deprecation warnings come from the version matrix's copy of 3.9 (.cache/matrix/, fetched
once from PyPI), run on the interpreter in a subprocess whatever release runs the tests.
"""

import warnings

import pytest
import torch
import triton
import triton.language as tl

from snippets.language import cat_and_view_reorder_elements as entry
from triton_faq.backend import DEVICE
from triton_faq.testing import assert_matches_float64, fresh_randn, on_release

CAT_MESSAGE = "current implementation of `cat` always may reorder elements"
CAT_DEPRECATED = ("tl.cat(can_reorder=True) is deprecated and will be removed in Triton 3.10, when concatenation "
                  "will always be deterministic. Pass can_reorder=False (the default) to adopt the new behavior.")
RESHAPE_DEPRECATED = ("tl.reshape(can_reorder=True) is deprecated and will be removed in Triton 3.10. "
                      "Pass can_reorder=False (the default) to adopt the new behavior.")


def with_triton_3_9():
    """Triton 3.9 on the interpreter: its version, the warnings the two pitfalls print (each run
    twice), and tl.cat without the flag."""
    return on_release("3.9.0", entry.__file__, (
        "x = torch.arange(16.0).reshape(2, 8); y = x + 100\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    for _ in range(2):\n"
        "        m['cat_rows'](m['cat_pitfall'], x, y); m['flatten'](m['flatten_pitfall'], x)\n"
        "print(triton.__version__)\n"
        "print(*[str(w.message) for w in caught if 'deprecated' in str(w.message)], sep='\\n')\n"
        "print(torch.equal(m['cat_rows'](m['cat_without_flag'], x[:1], y[:1]), torch.cat([x[:1], y[:1]], dim=1)))\n"))


# -- reproducers of the messages in the page's `errors:` front matter

def reproduce_cat_without_can_reorder():
    x = torch.arange(8.0, device=DEVICE)
    entry.cat_without_flag[(1,)](x, x, torch.empty(16, device=DEVICE), N=8)


def reproduce_cat_deprecation_on_triton_3_9():
    return "\n".join(with_triton_3_9())


def reproduce_reshape_deprecation_on_triton_3_9():
    return "\n".join(with_triton_3_9())


def test_triton_3_9_warns_once_that_can_reorder_goes_in_3_10_and_accepts_cat_without_it():
    assert with_triton_3_9() == ["3.9.0", CAT_DEPRECATED, RESHAPE_DEPRECATED, "True"]


# -- what this Triton offers

def test_cat_without_can_reorder_is_refused():
    with pytest.raises(Exception, match=CAT_MESSAGE):
        reproduce_cat_without_can_reorder()


@pytest.mark.interpreter
def test_interpreter_view_warns_and_reshapes_with_can_reorder():
    @triton.jit
    def flatten_with_view(x_ptr, out_ptr):
        tile = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
        tl.store(out_ptr + tl.arange(0, 32), tl.view(tile, (32,)))

    tile = torch.arange(32.0, device=DEVICE)
    out = torch.full((32,), float("nan"), device=DEVICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        flatten_with_view[(1,)](tile, out)
    assert "view is deprecated, please use reshape with can_reorder being true." in [str(w.message) for w in caught]
    assert out.tolist() == tile.tolist()


# -- the pitfall: the interpreter keeps the order, compiled code is allowed not to

@pytest.mark.interpreter
def test_interpreter_cat_with_can_reorder_keeps_the_order():
    x, y = fresh_randn(3, 16), fresh_randn(3, 16)
    assert torch.equal(entry.cat_rows(entry.cat_pitfall, x, y), torch.cat([x, y], dim=1))


@pytest.mark.interpreter
def test_interpreter_reshape_with_can_reorder_keeps_the_order():
    tile = fresh_randn(8, 16)
    assert torch.equal(entry.flatten(entry.flatten_pitfall, tile), tile.reshape(-1))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [16, 128])
def test_compiled_cuda_cat_with_can_reorder_keeps_every_element(n):
    """The order is the compiler's choice (the GPU table records it); the elements are all there."""
    x, y = fresh_randn(3, n), fresh_randn(3, n)
    out = entry.cat_rows(entry.cat_pitfall, x, y)
    expected = torch.cat([x, y], dim=1)
    assert torch.equal(out.sort(dim=1).values, expected.sort(dim=1).values)


@pytest.mark.gpu
def test_compiled_cuda_reshape_with_can_reorder_keeps_every_element():
    tile = fresh_randn(8, 16)
    out = entry.flatten(entry.flatten_pitfall, tile)
    assert torch.equal(out.sort().values, tile.reshape(-1).sort().values)


def test_sum_of_a_reordering_cat_matches_float64():
    x, y = fresh_randn(4, 64), fresh_randn(4, 64)
    out = torch.full((4,), float("nan"), device=DEVICE)
    entry.sum_of_cat[(4,)](x, y, out, N=64)
    assert_matches_float64(out, torch.cat([x, y], dim=1).double().sum(dim=1))


# -- the fix

@pytest.mark.parametrize("n", [1, 16, 64])
def test_fix_cat_in_order_matches_torch_cat(n):
    x, y = fresh_randn(3, n), fresh_randn(3, n)
    out = entry.cat_rows(entry.cat_fixed, x, y)
    assert_matches_float64(out, torch.cat([x.double(), y.double()], dim=1))
    assert torch.equal(out, torch.cat([x, y], dim=1))  # a copy: bit for bit


@pytest.mark.parametrize("rows, cols", [(4, 8), (8, 16), (16, 4)])
def test_fix_plain_reshape_keeps_row_major_order(rows, cols):
    tile = fresh_randn(rows, cols)
    out = entry.flatten(entry.flatten_fixed, tile)
    assert_matches_float64(out, tile.double().reshape(-1))
    assert torch.equal(out, tile.reshape(-1))


def test_triton_3_6_docstring_of_cat_says_only_for_reductions():
    if triton.__version__ != "3.6.0":
        pytest.skip(f"this records Triton 3.6.0's docstring; installed: {triton.__version__}")
    doc = " ".join(tl.cat.__doc__.split())
    assert "Only use if the order does not matter (e.g., result is only used in reduction ops)." in doc
    assert "Current implementation of `cat` supports only can_reorder=True." in doc
