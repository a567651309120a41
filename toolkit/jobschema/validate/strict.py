"""Which keys of a payload its schema does not declare (``jobschema validate --strict``).

A key is declared when an applicable subschema lists it in ``properties`` or ``patternProperties``,
or describes the object as a map with an ``additionalProperties`` schema. ``$ref`` (local),
``allOf``, and the ``anyOf``/``oneOf`` branches whose ``type`` admits the value are followed; where
a schema cannot be followed (a remote ``$ref``), or says nothing about an object's keys, nothing
below it is reported. The work is done by a place tree (:mod:`jobschema.schemas.places`) compiled
once per schema and its walk (:func:`~jobschema.schemas.places.exercise`), the walk
``jobschema coverage`` counts with, so ``--strict`` and ``jobschema coverage`` always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jobschema.pointer import Tokens
from jobschema.schemas.places import Place, compile_places, exercise

_COMPILED: dict[int, tuple[dict[str, Any], Place]] = {}


@dataclass(frozen=True)
class Undeclared:
    """A key the schema does not declare, and its place in the payload."""

    tokens: Tokens
    key: str


def _root(schema: dict[str, Any]) -> Place:
    cached = _COMPILED.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = (schema, compile_places(schema)[0])
        _COMPILED[id(schema)] = cached
    return cached[1]


def _order(tokens: Tokens) -> tuple[tuple[int, int | str], ...]:
    """Pointer order with indices compared as numbers (``/pods/2`` before ``/pods/10``)."""
    return tuple((0, int(token)) if _index(token) else (1, str(token)) for token in tokens)


def _index(token: str | int) -> bool:
    return isinstance(token, int) or token.isdigit()


def undeclared(document: Any, schema: dict[str, Any]) -> list[Undeclared]:
    """Every key of ``document`` that ``schema`` does not declare, in pointer order (may raise
    ``RecursionError`` on absurdly deep documents)."""
    found = sorted((tokens for _, tokens in exercise(_root(schema), document).undeclared), key=_order)
    return [Undeclared(tokens, str(tokens[-1])) for tokens in found]
