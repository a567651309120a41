"""How many times one match of an expression can consume a character, read from the expression.

The secret policy searches for a shape around each anchor it finds. For a shape whose expression
consumes the anchor's first character at most once per match, a match covering an anchor holds no
other occurrence of that character, so it starts after the previous one: the search for the next
anchor need not go back over the matches of the ones before it (:mod:`jobschema.secrets.shapes`).
That bound is read here from the parsed expression, never declared by hand.
"""

from __future__ import annotations

import re
import re._parser as sre  # type: ignore[import-not-found]  # the parser behind re.compile
from typing import Any

#: More than any count we need to tell apart: "unbounded, or not known".
MANY = 1 << 30

_CATEGORIES = {
    "CATEGORY_DIGIT": lambda c: re.match(r"\d", c) is not None,
    "CATEGORY_NOT_DIGIT": lambda c: re.match(r"\D", c) is not None,
    "CATEGORY_SPACE": lambda c: re.match(r"\s", c) is not None,
    "CATEGORY_NOT_SPACE": lambda c: re.match(r"\S", c) is not None,
    "CATEGORY_WORD": lambda c: re.match(r"\w", c) is not None,
    "CATEGORY_NOT_WORD": lambda c: re.match(r"\W", c) is not None,
}


def most_consumed(pattern: re.Pattern[str], char: str) -> int:
    """The most times one match of ``pattern`` can consume ``char`` (:data:`MANY`: unbounded, or
    a construct this reading does not follow). Lookarounds consume nothing; case-insensitive
    parts count ``char`` in either case."""
    folded = bool(pattern.flags & re.IGNORECASE)
    try:
        return _sequence(sre.parse(pattern.pattern, pattern.flags), char, folded)
    except (ValueError, TypeError, re.error):
        return MANY


def _sequence(items: Any, char: str, folded: bool) -> int:
    return min(MANY, sum(_item(op, arg, char, folded) for op, arg in items))


def _item(op: Any, arg: Any, char: str, folded: bool) -> int:
    name = str(op)
    if name in {"ASSERT", "ASSERT_NOT", "AT"}:
        return 0
    if name in {"LITERAL", "NOT_LITERAL", "ANY", "IN"}:
        return int(_one(name, arg, _cases(char, folded)))
    if name in {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}:
        _low, high, inner = arg
        return _repeated(_sequence(inner, char, folded), high)
    return _group(name, arg, char, folded)


def _group(name: str, arg: Any, char: str, folded: bool) -> int:
    if name == "SUBPATTERN":
        _number, add, _remove, inner = arg
        return _sequence(inner, char, folded or bool(add & re.IGNORECASE))
    if name == "ATOMIC_GROUP":
        return _sequence(arg, char, folded)
    if name == "BRANCH":
        return max((_sequence(branch, char, folded) for branch in arg[1]), default=0)
    return MANY  # back-references, conditionals: not followed


def _repeated(count: int, high: int) -> int:
    if count == 0:
        return 0
    return MANY if high >= MANY or high == sre.MAXREPEAT else min(MANY, count * high)


def _cases(char: str, folded: bool) -> set[str]:
    return {char, char.lower(), char.upper()} if folded else {char}


def _one(name: str, arg: Any, chars: set[str]) -> bool:
    """Whether one character step (a literal, its negation, any, a set) can consume one of ``chars``."""
    codes = {ord(c) for c in chars}
    if name == "LITERAL":
        return arg in codes
    if name == "NOT_LITERAL":
        return bool(codes - {arg})
    if name == "ANY":
        return True  # a dot; with DOTALL or not, it consumes every character but a line break
    return any(_in_set(arg, c) for c in chars)


def _in_set(items: Any, char: str) -> bool:
    """Whether a set (``[...]``) can consume ``char``; a form this reading does not know may."""
    negate, found = False, False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            found |= arg == ord(char)
        elif name == "RANGE":
            found |= arg[0] <= ord(char) <= arg[1]
        elif name == "CATEGORY" and str(arg) in _CATEGORIES:
            found |= _CATEGORIES[str(arg)](char)
        else:
            return True
    return found != negate
