"""How two ``pattern`` keywords relate, decided on the strings each accepts.

``relation(old, new)`` searches for a string the new pattern accepts and the old one does not, and for
the reverse, with hypothesis (derandomized, so every run gives the same answer and the same witness):
strings drawn from the regular expression itself (:func:`hypothesis.strategies.from_regex`), and
for the side without a pattern (any string) a few edge strings (empty, line breaks) before arbitrary
text. No string either way: the two accept the same strings (``.*`` and no pattern, ``^a|b`` and
``b|^a``). The search proves a difference, never an equivalence; a difference hypothesis cannot
reach is taken for none, which errs towards reporting a change as safe only where two patterns
agree on every string the search tried.

A pattern is searched as JSON Schema applies it: anywhere in the string (``re.search``), with
Python's ``re`` standing in for ECMA-262. A pattern ``re`` cannot compile is compared by its text.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from jobschema.changes.search import NOT_FOUND, smallest

Relation = Literal["same", "loosened", "tightened", "changed"]
#: Patterns that accept every string, known without a search (Run:ai 2.23 added 112 ``.*``).
MATCH_ALL = frozenset({"", ".*", "^.*", ".*$", "[\\s\\S]*", "^[\\s\\S]*$", "(?s).*", "(?s)^.*$"})
#: Strings tried before arbitrary text where one side has no pattern.
EDGES = ("", " ", "a", "0", "-", "\n", "a\nb", "\r\n", "\t", "\u2028", "é", "A_b.c/d")
EXAMPLES = 250


def relation(old: str | None, new: str | None) -> tuple[Relation, str | None, str | None]:
    """``(relation, only_new, only_old)``: ``loosened`` when the new pattern accepts a string the old
    does not (``only_new``) and not the reverse, ``tightened`` for the reverse (``only_old``),
    ``changed`` both ways, ``same`` neither. ``None`` is no pattern (any string)."""
    old, new = _plain(old), _plain(new)
    if old == new:
        return "same", None, None
    if not (_compiles(old) and _compiles(new)):
        return "changed", None, None
    only_new, only_old = _beyond(new, old), _beyond(old, new)
    if only_new is None and only_old is None:
        return "same", None, None
    if only_old is None:
        return "loosened", only_new, None
    if only_new is None:
        return "tightened", None, only_old
    return "changed", only_new, only_old


def accepts(pattern: str | None, text: str) -> bool:
    """Whether ``pattern`` (``None``: no pattern) accepts ``text`` as JSON Schema applies it."""
    pattern = _plain(pattern)
    return pattern is None or re.search(pattern, text) is not None


def _plain(pattern: str | None) -> str | None:
    return None if pattern is None or pattern in MATCH_ALL else pattern


def _compiles(pattern: str | None) -> bool:
    if pattern is None:
        return True
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


@cache
def _beyond(inside: str | None, outside: str | None) -> str | None:
    """A string ``inside`` accepts and ``outside`` does not (the shortest hypothesis finds), or None."""
    if outside is None:
        return None  # no pattern accepts every string
    rejected = re.compile(outside)
    from hypothesis import strategies as st

    strategy = st.one_of(st.sampled_from(EDGES), st.text()) if inside is None else st.from_regex(inside)
    found = smallest(strategy, lambda text: rejected.search(text) is None, EXAMPLES)
    return None if found is NOT_FOUND else str(found)
