"""Which keys of a payload its schema does not declare (``jobschema validate --strict``).

A key is declared when an applicable subschema lists it in ``properties`` or ``patternProperties``,
or describes the object as a map with an ``additionalProperties`` schema. ``$ref`` (local),
``allOf``, and the ``anyOf``/``oneOf`` branches whose ``type`` admits the value are followed; where
a schema cannot be followed (a remote ``$ref``), or says nothing about an object's keys, nothing
below it is reported. The work is done by a place tree (:mod:`jobschema.schemas.places`) compiled
once per schema, with the walk :mod:`jobschema.coverage.collect` counts with, so ``--strict`` and
``jobschema coverage`` always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jobschema.pointer import to_path

_COMPILED: dict[int, tuple[dict[str, Any], Any]] = {}


@dataclass(frozen=True)
class Undeclared:
    """A key the schema does not declare, and its pointer in the payload."""

    pointer: str
    key: str


def _root(schema: dict[str, Any]) -> Any:
    cached = _COMPILED.get(id(schema))
    if cached is None or cached[0] is not schema:
        from jobschema.schemas.places import compile_places

        cached = (schema, compile_places(schema)[0])
        _COMPILED[id(schema)] = cached
    return cached[1]


def _order(pointer: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(token)) if token.isdigit() else (1, token) for token in to_path(pointer))


def undeclared(document: Any, schema: dict[str, Any]) -> list[Undeclared]:
    """Every key of ``document`` that ``schema`` does not declare, sorted by pointer (may raise
    ``RecursionError`` on absurdly deep documents)."""
    from jobschema.coverage.collect import exercise

    pointers = sorted((pointer for _, pointer in exercise(_root(schema), document).undeclared), key=_order)
    return [Undeclared(pointer, to_path(pointer)[-1]) for pointer in pointers]
