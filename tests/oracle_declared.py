"""An independent reference implementation of "which keys does the schema declare", for the tests.

The product code (:mod:`jobschema.validate.strict`, :mod:`jobschema.coverage.collect`) walks a
precompiled place tree; this walks the schema afresh at every value. The tests require both to
find exactly the same keys.

Which keys of a payload its schema declares.

A key is declared when an applicable subschema lists it in ``properties`` or ``patternProperties``,
or describes the object as a map with an ``additionalProperties`` schema. ``$ref`` (local),
``allOf``, and the ``anyOf``/``oneOf`` branches whose ``type`` admits the value are followed.
Where a schema cannot be followed (a remote ``$ref``), nothing below it is reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jobschema.pointer import escape, resolve

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


_OBJECT_KEYWORDS = ("properties", "patternProperties", "additionalProperties")


@dataclass(frozen=True)
class Undeclared:
    """A key the schema does not declare, and its pointer in the payload."""

    pointer: str
    key: str


def _admits(schema: dict[str, Any], value: Any) -> bool:
    declared = schema.get("type")
    if declared is None:
        return True
    names = [declared] if isinstance(declared, str) else declared
    if isinstance(value, bool):
        return "boolean" in names
    return any(isinstance(value, _JSON_TYPES.get(name, ())) for name in names)


class _Walker:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def expand(self, schema: Any, value: Any, seen: frozenset[int] = frozenset()) -> Iterator[Any]:
        """Yield every subschema that applies at this location; ``None`` means 'cannot follow'."""
        if not isinstance(schema, dict) or id(schema) in seen:
            return
        seen = seen | {id(schema)}
        yield schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            yield from self._follow(ref, value, seen)
        for sub in schema.get("allOf", ()):
            yield from self.expand(sub, value, seen)
        for keyword in ("anyOf", "oneOf"):
            for sub in schema.get(keyword, ()):
                if isinstance(sub, dict) and _admits(self._target(sub), value):
                    yield from self.expand(sub, value, seen)

    def _target(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            try:
                found = resolve(self.root, ref[1:])
            except KeyError:
                return schema
            return found if isinstance(found, dict) else schema
        return schema

    def _follow(self, ref: str, value: Any, seen: frozenset[int]) -> Iterator[Any]:
        if not ref.startswith("#"):
            yield None
            return
        try:
            target = resolve(self.root, ref[1:])
        except KeyError:
            yield None
            return
        yield from self.expand(target, value, seen)

    def walk(self, value: Any, schemas: list[Any], pointer: str) -> Iterator[Undeclared]:
        if any(schema is None for schema in schemas):
            return
        if isinstance(value, dict):
            yield from self._walk_object(value, schemas, pointer)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                children = [_item_schema(schema, index) for schema in schemas]
                yield from self._descend(item, children, f"{pointer}/{index}")

    def _walk_object(self, value: dict[str, Any], schemas: list[Any], pointer: str) -> Iterator[Undeclared]:
        if not any(keyword in schema for schema in schemas for keyword in _OBJECT_KEYWORDS):
            return  # a free-form object: the schema says nothing about its keys
        for key in sorted(value):
            children = [child for schema in schemas for child in _property_schemas(schema, key)]
            child_pointer = f"{pointer}/{escape(key)}"
            if not children:
                yield Undeclared(child_pointer, key)
                continue
            yield from self._descend(value[key], children, child_pointer)

    def _descend(self, value: Any, children: list[Any], pointer: str) -> Iterator[Undeclared]:
        expanded = [sub for child in children if child is not None for sub in self.expand(child, value)]
        if not expanded:
            return
        yield from self.walk(value, expanded, pointer)


def _item_schema(schema: dict[str, Any], index: int) -> Any:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and index < len(prefix):
        return prefix[index]
    items = schema.get("items")
    return items if isinstance(items, dict) else None


def _property_schemas(schema: dict[str, Any], key: str) -> list[Any]:
    found = []
    properties = schema.get("properties")
    if isinstance(properties, dict) and key in properties:
        found.append(properties[key])
    for pattern, sub in (schema.get("patternProperties") or {}).items():
        if re.search(pattern, key):
            found.append(sub)
    additional = schema.get("additionalProperties")
    if not found and isinstance(additional, dict):
        found.append(additional)
    return found


def undeclared(document: Any, schema: dict[str, Any]) -> list[Undeclared]:
    """Every key of ``document`` that ``schema`` does not declare, in document order of pointers."""
    walker = _Walker(schema)
    roots = list(walker.expand(schema, document))
    return list(walker.walk(document, roots, ""))
