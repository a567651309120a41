"""Kubernetes resource quantities (``500Mi``, ``1G``, ``0.5``, ``1e3``) as exact numbers."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_SUFFIXES: dict[str, Fraction] = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "k": Fraction(10**3),
    "K": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
}
_QUANTITY = re.compile(r"^([+-]?)(\d+\.?\d*|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkKMGTPE])?)$")


#: Longer text, or a larger exponent, is not a quantity a cluster would report (and would cost time).
MAX_LENGTH = 64
MAX_EXPONENT = 64


def parse_quantity(text: str) -> Fraction | None:
    """The exact value of a quantity string, or ``None`` when it is not one."""
    return _parse(text) if isinstance(text, str) and len(text) <= MAX_LENGTH else None


@lru_cache(maxsize=4096)  # the same few quantities ("1", "500m", "8Gi") recur in every payload
def _parse(text: str) -> Fraction | None:
    match = _QUANTITY.match(text.strip())
    if match is None:
        return None
    sign, number, exponent, suffix = match.groups()
    if exponent and abs(int(exponent[1:])) > MAX_EXPONENT:
        return None
    value = Fraction(number)
    if exponent:
        value *= Fraction(10) ** int(exponent[1:])
    else:
        value *= _SUFFIXES[suffix or ""]
    return -value if sign == "-" else value
