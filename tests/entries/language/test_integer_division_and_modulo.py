"""TP049's claims, one test each: snippets/language/integer_division_and_modulo.py.

Every test without a marker runs on both backends: the interpreter and the compiled kernel give
the same answers, so one test states each claim for both.
"""

import inspect

import torch
import triton

from snippets.language import integer_division_and_modulo as entry

A = [7, -7, 7, -7, -5, -8]
B = [2, 2, -2, -2, 4, 4]


def example():
    return (torch.tensor(A, dtype=torch.int32, device=entry.DEVICE),
            torch.tensor(B, dtype=torch.int32, device=entry.DEVICE))


def fresh_ints(n=1000):
    """Fresh random int32 dividends in [-100, 100] and nonzero divisors in [-9, 9]."""
    generator = torch.Generator().manual_seed(torch.seed())
    a = torch.randint(-100, 101, (n,), generator=generator, dtype=torch.int32)
    b = torch.randint(1, 10, (n,), generator=generator, dtype=torch.int32)
    b = b * (torch.randint(0, 2, (n,), generator=generator, dtype=torch.int32) * 2 - 1)
    return a.to(entry.DEVICE), b.to(entry.DEVICE)


def exact(a, b):
    """Python's a // b, a % b and ceil(a / b), element by element on Python ints."""
    pairs = list(zip(a.tolist(), b.tolist()))
    return [x // y for x, y in pairs], [x % y for x, y in pairs], [-(-x // y) for x, y in pairs]


# -- the pitfall

def test_pitfall_example_values():
    q, r, c = entry.divide(entry.div_mod_cdiv, *example())
    assert q.tolist() == [3, -3, -3, 3, -1, -2]
    assert r.tolist() == [1, -1, 1, -1, -1, 0]
    assert c.tolist() == [4, -3, -2, 5, 0, -1]


def test_tensor_floordiv_and_mod_round_toward_zero():
    """On both backends, `//` is torch's trunc division and `%` is torch.fmod, on fresh random signs."""
    a, b = fresh_ints()
    q, r, _ = entry.divide(entry.div_mod_cdiv, a, b)
    assert torch.equal(q.cpu(), torch.div(a, b, rounding_mode="trunc").cpu())
    assert torch.equal(r.cpu(), torch.fmod(a, b).cpu())
    assert not torch.equal(q.cpu(), torch.div(a, b, rounding_mode="floor").cpu())  # Python's rounding differs


def test_compiler_emits_signed_truncating_division():
    """The compiled kernel's `//` and `%` on signed ints are LLVM's sdiv and srem (they round toward zero)."""
    from triton.language import semantic

    assert "create_sdiv" in inspect.getsource(semantic.TritonSemantic.floordiv)
    assert "create_srem" in inspect.getsource(semantic.TritonSemantic.mod)


def test_compiler_emits_unsigned_division_for_unsigned_integers():
    """Unsigned integers get LLVM's udiv and urem instead (no negative operands to round)."""
    from triton.language import semantic

    floordiv, mod = (inspect.getsource(f) for f in (semantic.TritonSemantic.floordiv, semantic.TritonSemantic.mod))
    assert "create_udiv" in floordiv and "create_urem" in mod
    assert floordiv.index("is_int_signed()") < floordiv.index("create_sdiv") < floordiv.index("create_udiv")


def test_int_arguments_round_toward_zero_constexprs_follow_python():
    assert entry.scalar_results(-7, 2) == [-3, -1, -4, 1]


def test_tl_cdiv_is_wrong_for_negative_operands():
    a, b = example()
    _, _, c = entry.divide(entry.div_mod_cdiv, a, b)
    _, _, ceil = exact(a, b)
    wrong = [(x, y) for x, y, got, want in zip(A, B, c.tolist(), ceil) if got != want]
    assert wrong == [(7, -2), (-7, -2), (-5, 4), (-8, 4)]  # every negative divisor, and a < 0 with b > 0


def test_host_triton_cdiv_is_right_for_a_negative_dividend_only():
    assert triton.cdiv(-5, 4) == -1  # Python's // on the host: floor, so (a + b - 1) // b is the ceiling
    assert triton.cdiv(-7, -2) == 5  # ceil(3.5) is 4: the formula assumes b > 0


# -- the fix

def test_fix_example_values():
    q, r, c = entry.divide(entry.div_mod_cdiv_fixed, *example())
    assert (q.tolist(), r.tolist(), c.tolist()) == exact(*example())


def test_fix_matches_exact_integer_reference():
    """Fresh random signs; outputs pre-filled with -999, a value no division here produces."""
    a, b = fresh_ints()
    q, r, c = entry.divide(entry.div_mod_cdiv_fixed, a, b)
    assert (q.tolist(), r.tolist(), c.tolist()) == exact(a, b)
    assert torch.equal(q.cpu(), torch.div(a, b, rounding_mode="floor").cpu())
    assert torch.equal(r.cpu(), torch.remainder(a, b).cpu())
