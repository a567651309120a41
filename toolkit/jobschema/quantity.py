"""Kubernetes resource quantities (``500Mi``, ``1G``, ``0.5``, ``1e3``) as exact numbers.

Values are :class:`~decimal.Decimal` computed in a context wide enough that nothing is rounded (at
most 64 characters of digits, an exponent of at most 64, a suffix of at most 2**60: far below its
precision), so two quantities compare exactly, and with ints and floats too.
"""

from __future__ import annotations

import re
from decimal import Context, Decimal
from functools import lru_cache

#: Wide enough for every quantity :func:`parse_quantity` accepts: no operation here ever rounds.
_EXACT = Context(prec=400, Emax=999, Emin=-999)

_SUFFIXES: dict[str, int | Decimal] = {
    "": 1,
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": 10**3,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}
_QUANTITY = re.compile(r"^([+-]?)(\d+\.?\d*|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkKMGTPE])?)$")


#: Longer text, or a larger exponent, is not a quantity a cluster would report (and would cost time).
MAX_LENGTH = 64
MAX_EXPONENT = 64


def parse_quantity(text: str) -> Decimal | None:
    """The exact value of a quantity string, or ``None`` when it is not one."""
    return _parse(text) if isinstance(text, str) and len(text) <= MAX_LENGTH else None


@lru_cache(maxsize=4096)  # the same few quantities ("1", "500m", "8Gi") recur in every payload
def _parse(text: str) -> Decimal | None:
    match = _QUANTITY.match(text.strip())
    if match is None:
        return None
    sign, number, exponent, suffix = match.groups()
    if exponent and abs(int(exponent[1:])) > MAX_EXPONENT:
        return None
    value = Decimal(number)  # (exact: a Decimal from a string is never rounded)
    if exponent:
        value = value.scaleb(int(exponent[1:]), _EXACT)
    else:
        value = _EXACT.multiply(value, _SUFFIXES[suffix or ""])
    return _EXACT.minus(value) if sign == "-" else value
