"""Kubernetes quantities: :func:`jobschema.quantity.parse_quantity` gives the exact value, checked
against an independent oracle in exact rational arithmetic (``fractions.Fraction``)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobschema.quantity import MAX_LENGTH, parse_quantity

_SCALE = {"": 1, "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3)}
_SCALE |= {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_SCALE |= {f"{p}i": 2 ** (10 * n) for n, p in enumerate("KMGTPE", start=1)}

DIGITS = st.text("0123456789", min_size=1, max_size=25)  # within MAX_LENGTH, signs and all
NUMBERS = st.one_of(
    DIGITS, st.tuples(DIGITS, DIGITS).map(".".join), DIGITS.map(".".__add__), DIGITS.map("{}.".format)
)
SIGNS = st.sampled_from(["", "+", "-"])


def _oracle(sign: str, number: str, exponent: int | None, suffix: str) -> Fraction:
    value = Fraction(number) * (Fraction(10) ** exponent if exponent is not None else _SCALE[suffix])
    return -value if sign == "-" else value


@given(SIGNS, NUMBERS, st.sampled_from(sorted(_SCALE)))
def test_a_suffixed_quantity_is_its_exact_value(sign: str, number: str, suffix: str) -> None:
    got = parse_quantity(sign + number + suffix)
    assert got is not None
    assert Fraction(got) == _oracle(sign, number, None, suffix)


@given(SIGNS, NUMBERS, st.sampled_from("eE"), st.integers(-64, 64))
def test_an_exponent_quantity_is_its_exact_value(sign: str, number: str, e: str, exponent: int) -> None:
    got = parse_quantity(f"{sign}{number}{e}{exponent:+d}")
    assert got is not None
    assert Fraction(got) == _oracle(sign, number, exponent, "")


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [("500m", "1"), ("1023Ki", "1Mi"), ("999M", "1G"), ("1G", "1Gi"), ("1e-9", "2n"), ("-1Ei", "-1E")],
)
def test_quantities_order_exactly(smaller: str, larger: str) -> None:
    a, b = parse_quantity(smaller), parse_quantity(larger)
    assert a is not None and b is not None and a < b


@pytest.mark.parametrize("text", ["", "1.2.3", "Mi", "1mi", "1e65", "1e", "0x10", "1" * (MAX_LENGTH + 1)])
def test_what_is_not_a_quantity_is_none(text: str) -> None:
    assert parse_quantity(text) is None


def test_values_compare_with_ints_and_floats() -> None:
    assert parse_quantity("2") == 2
    assert parse_quantity("500m") == 0.5
    assert isinstance(parse_quantity("1Ki"), Decimal)
