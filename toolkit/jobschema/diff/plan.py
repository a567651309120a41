"""A schema compiled for diffing: list keys, sets, volatile fields, quantities, embedded JSON.

The plan is a trie over payload paths (see :mod:`jobschema.schemas.annotated`); each place merges the
``x-jobschema-*`` diff annotations of every schema node that applies there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from jobschema.schemas.annotated import ANY, Trie, compile_pruned

KEYWORDS = (
    "x-jobschema-list-key",
    "x-jobschema-list-set",
    "x-jobschema-volatile",
    "x-jobschema-quantity",
    "x-jobschema-embedded-schema",
    "x-jobschema-secret",
)


@dataclass(frozen=True)
class Place:
    """The diff annotations in force at one place of a payload."""

    list_key: tuple[str, ...] = ()
    list_set: bool = False
    volatile: bool = False
    quantity: bool = False
    embedded: str | None = None
    secret: bool = False
    #: declared ``x-jobschema-secret: false``: a name, not a credential, whatever the name rules say
    public: bool = False


EMPTY = Place()


class Plan:
    """One place of the plan trie, with its merged annotations and its children."""

    __slots__ = ("children", "place")

    def __init__(self, trie: Trie) -> None:
        self.place = _merge(trie.nodes) if trie.nodes else EMPTY
        self.children = {token: Plan(sub) for token, sub in trie.children.items()}

    @property
    def secret_mark(self) -> bool | None:
        """The schema's secret mark here (:class:`jobschema.secrets.walk.Cursor`)."""
        return True if self.place.secret else False if self.place.public else None

    @property
    def embedded(self) -> str | None:
        """The schema of the document embedded here."""
        return self.place.embedded

    def child(self, token: str | int) -> Plan:
        """The plan below ``token`` (a key or an index); an empty plan where nothing is annotated."""
        found = self.children.get(token) if isinstance(token, str) else None
        if found is None:
            found = self.children.get(ANY)
        return found if found is not None else NOTHING


def _list_key(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return ()


def _merge(nodes: list[dict[str, Any]]) -> Place:
    merged: dict[str, Any] = {}
    for node in nodes:
        merged.update({key: node[key] for key in KEYWORDS if key in node})
    marks = (node["x-jobschema-secret"] for node in nodes if isinstance(node.get("x-jobschema-secret"), bool))
    first = next(marks, None)
    merged["x-jobschema-secret"] = first  # (the first node that marks a place decides, as everywhere)
    embedded = merged.get("x-jobschema-embedded-schema")
    return Place(
        list_key=_list_key(merged.get("x-jobschema-list-key")),
        list_set=merged.get("x-jobschema-list-set") is True,
        volatile=merged.get("x-jobschema-volatile") is True,
        quantity=merged.get("x-jobschema-quantity") is True,
        embedded=embedded if isinstance(embedded, str) else None,
        secret=merged.get("x-jobschema-secret") is True,
        public=merged.get("x-jobschema-secret") is False,
    )


NOTHING = Plan(Trie())


def plan_for(schema: dict[str, Any]) -> Plan:
    """The diff plan of a schema document."""
    return Plan(compile_pruned(schema, KEYWORDS))


@cache
def bundled_plan(name: str) -> Plan:
    """The diff plan of a bundled schema, built once."""
    from jobschema.schemas import registry

    return plan_for(registry.load(name).document)
