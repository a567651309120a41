"""What changed between two API versions or two schemas, judged from the side of a program that
reads the responses.

>>> from jobschema.changes import compare
>>> found = compare("runai@2.18", "runai@2.24")
>>> [(c.kind, c.path, c.since) for c in found if c.rule == "enum-value-added" and c.place[0] == "spec"]
[('breaking', '/spec/distributedFramework', '2.21'), ('breaking', '/spec/tolerations/*/effect', '2.19')]

``compare(old, new)`` takes two sides as ``jobschema changes`` does (``runai@2.19``, a bundled schema
name, a schema file, ``FILE#POINTER``; :mod:`.sides`) or two schema documents, and returns every
change (:class:`~jobschema.changes.compare.Change`: its ``rule``, ``kind``, ``path``, ``since``).
The rules and their classes are :data:`~jobschema.changes.compare.RULES`. Witness payloads
(:mod:`.witness`) and capture impact (:mod:`.impact`) are separate steps; the CLI runs them.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from jobschema.changes.compare import KINDS, RULES, Change, between, order
from jobschema.changes.sides import Side, pair, read_side, steps

__all__ = ["KINDS", "RULES", "Change", "Side", "compare", "compare_sides", "sides_of"]


def compare(
    old: str | os.PathLike[str] | dict[str, Any], new: str | os.PathLike[str] | dict[str, Any]
) -> list[Change]:
    """Every change from ``old`` to ``new`` (named sides or schema documents), in a stable order."""
    return compare_sides(sides_of(old, new))


def sides_of(
    old: str | os.PathLike[str] | dict[str, Any], new: str | os.PathLike[str] | dict[str, Any]
) -> list[tuple[Side, Side]]:
    """The schema pairs two sides name (a document is a side of its own)."""
    return pair(_side(old, "old"), _side(new, "new"))


def compare_sides(pairs: list[tuple[Side, Side]]) -> list[Change]:
    """Every change of every pair; between two versions of a bundled schema, each change names the
    version that made it (``since``), found by comparing each pair of adjacent versions between them."""
    found: list[Change] = []
    for old, new in pairs:
        changes = between(old.document, new.document, old.start, new.start)
        made = _made_by(old, new)
        found += [replace(change, schema=old.schema, since=made(change)) for change in changes]
    return sorted(found, key=order)


def _side(given: str | os.PathLike[str] | dict[str, Any], label: str) -> list[Side]:
    if isinstance(given, dict):
        return [Side(label, label, given)]
    if isinstance(given, os.PathLike):
        given = os.fspath(given)
    if not isinstance(given, str):
        raise TypeError(
            f"{label}: expected a side (runai@2.19, a bundled schema's name, a schema file) or a schema "
            f"document (dict), not {type(given).__name__}"
        )
    return read_side(given)


def _made_by(old: Side, new: Side) -> Any:
    """``change -> version``: the last adjacent step with the same change (else any change at its
    place); ``None`` for every change when the sides are no two versions of one schema."""
    walked = [(after.version, between(before.document, after.document)) for before, after in steps(old, new)]

    def made(change: Change) -> str | None:
        for matches in (_same, _same_rule, _same_place):
            hits = [version for version, step in walked if any(matches(change, other) for other in step)]
            if hits:
                return hits[-1]
        return None

    return made


def _same(one: Change, other: Change) -> bool:
    return (one.rule, one.place, one.old, one.new) == (other.rule, other.place, other.old, other.new)


def _same_rule(one: Change, other: Change) -> bool:
    return (one.rule, one.place) == (other.rule, other.place)


def _same_place(one: Change, other: Change) -> bool:
    return one.place == other.place
