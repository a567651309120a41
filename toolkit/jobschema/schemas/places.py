"""A schema compiled into a tree of places: one per schema location a payload value can sit at.

``$ref``, ``allOf``, ``anyOf`` and ``oneOf`` are merged (``anyOf``/``oneOf`` branches count only for
the kinds of value their ``type`` admits); a ``$ref`` cycle becomes an edge back to the ancestor place,
so recursive schemas stay finite. Compiled once per schema, a place tree lets one linear pass over a
payload attribute every value to its schema location (:func:`exercise`): :mod:`jobschema.coverage`
counts with it and :mod:`jobschema.validate.strict` finds undeclared keys with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from jobschema.pointer import Tokens
from jobschema.schemas.refs import local_target
from jobschema.text import join_path, key_segment

__all__ = ["Exercised", "Place", "compile_places", "exercise", "join_path", "key_segment", "value_key"]

MAX_DEPTH = 64
ValueKey = tuple[str, Any]


def value_key(value: Any) -> ValueKey | None:
    """A hashable key of a scalar JSON value (``true`` and ``1`` differ, ``1`` and ``1.0`` do not)."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    return None


@dataclass(eq=False)
class Place:
    """A schema location: where it is (``segments``), what it is, and what lies below it.

    ``keyed``: the schema says which keys an object here may have (``properties``,
    ``patternProperties`` or ``additionalProperties``), so other keys are undeclared; ``opaque``: a
    ``$ref`` here or above cannot be followed, so nothing is undeclared (as in
    :mod:`jobschema.validate.strict`); ``nullable``: every ``type`` the schema gives a value here
    (through ``$ref`` and ``allOf``, not the branches of ``anyOf`` or ``oneOf``) admits ``null``, and
    one does.
    """

    segments: tuple[str, ...]
    kind: str  # "root", "property", "map" (additionalProperties), "pattern", "items"
    values: tuple[Any, ...] = ()
    embedded: str | None = None
    opaque: bool = False
    keyed: bool = False
    properties: dict[str, Place] = field(default_factory=dict)
    patterns: list[tuple[re.Pattern[str], Place]] = field(default_factory=list)
    additional: Place | None = None
    items: Place | None = None
    prefix: list[Place] = field(default_factory=list)
    nullable: bool = False

    @property
    def path(self) -> str:
        """The readable dotted path of this place."""
        return join_path(self.segments)

    def child(self, key: str) -> Place | None:
        """The place of the value of ``key`` in an object here (a property, a pattern, or the map)."""
        found = self.properties.get(key)
        if found is not None:
            return found
        for pattern, place in self.patterns:
            if pattern.search(key):
                return place
        return self.additional

    def item(self, index: int) -> Place | None:
        """The place of item ``index`` of an array here."""
        return self.prefix[index] if index < len(self.prefix) else self.items


_ALL = frozenset({"object", "array", "scalar"})
_OBJECT_KEYWORDS = ("properties", "patternProperties", "additionalProperties")
_Ancestors = dict[frozenset[int], Place]
_Nodes = list[dict[str, Any]]


class _Compiler:
    """Builds the place tree of one schema document; ``anyOf``/``oneOf`` branches count only for the
    kinds of value (object, array, scalar) their ``type`` admits, as in :mod:`jobschema.validate.strict`."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.places: list[Place] = []

    def expand(
        self, node: Any, kinds: frozenset[str], seen: frozenset[int]
    ) -> Iterator[tuple[Any, frozenset[str]]]:
        """Every subschema that applies here with the value kinds it applies to; ``None``: cannot follow."""
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen = seen | {id(node)}
        yield node, kinds
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self._resolve(ref)
            yield from self.expand(target, kinds, seen) if target is not None else [(None, kinds)]
        for sub in _list(node, "allOf"):
            yield from self.expand(sub, kinds, seen)
        for sub in (*_list(node, "anyOf"), *_list(node, "oneOf")):
            admitted = kinds & _admitted(self._target(sub))
            if admitted:
                yield from self.expand(sub, admitted, seen)

    def _resolve(self, ref: str) -> Any:
        return local_target(self.root, ref)

    def _nullable(self, subs: list[Any]) -> bool:
        """Whether every ``type`` of ``subs``, followed through ``$ref`` and ``allOf``, admits
        ``null`` (and there is one)."""
        types: list[Any] = []
        stack, seen = list(subs), set()
        while stack:
            node = stack.pop()
            if not isinstance(node, dict) or id(node) in seen:
                continue
            seen.add(id(node))
            if "type" in node:
                types.append(node["type"])
            ref = node.get("$ref")
            if isinstance(ref, str):
                stack.append(self._resolve(ref))
            stack += _list(node, "allOf")
        return bool(types) and all(
            kind == "null" or (isinstance(kind, list) and "null" in kind) for kind in types
        )

    def _target(self, node: Any) -> Any:
        ref = node.get("$ref") if isinstance(node, dict) else None
        found = self._resolve(ref) if isinstance(ref, str) else None
        return found if isinstance(found, dict) else node

    def place(
        self, subs: list[Any], segments: tuple[str, ...], kind: str, up: _Ancestors, opaque: bool
    ) -> Place:
        """The place of a value described by ``subs``; an ancestor's place again on a ``$ref`` cycle."""
        found: dict[int, tuple[dict[str, Any], set[str]]] = {}
        for sub in subs:
            for node, kinds in self.expand(sub, _ALL, frozenset()):
                if node is None:
                    opaque = True
                else:
                    found.setdefault(id(node), (node, set()))[1].update(kinds)
        key = frozenset(found)
        if key in up:
            return up[key]
        nodes = list(found.values())
        scalar = [node for node, kinds in nodes if "scalar" in kinds]
        place = Place(segments, kind, _listed(scalar), _embedded(scalar), opaque)
        place.nullable = self._nullable(subs)
        self.places.append(place)
        if len(segments) < MAX_DEPTH:
            inner = {**up, key: place}
            self._object(place, [node for node, kinds in nodes if "object" in kinds], inner)
            self._array(place, [node for node, kinds in nodes if "array" in kinds], inner)
        return place

    def _object(self, place: Place, nodes: _Nodes, up: _Ancestors) -> None:
        at, opaque = place.segments, place.opaque
        place.keyed = any(keyword in node for node in nodes for keyword in _OBJECT_KEYWORDS)
        for name in dict.fromkeys(name for node in nodes for name in _mapping(node, "properties")):
            subs = [sub for node in nodes for sub in _key_schemas(node, name)]
            place.properties[name] = self.place(subs, (*at, key_segment(name)), "property", up, opaque)
        patterns: dict[str, list[Any]] = {}
        for node in nodes:
            for pattern, sub in _mapping(node, "patternProperties").items():
                patterns.setdefault(pattern, []).append(sub)
        for pattern, subs in patterns.items():
            with suppress(re.error):
                compiled = re.compile(pattern)
                child = self.place(subs, (*at, f"{{/{pattern}/}}"), "pattern", up, opaque)
                place.patterns.append((compiled, child))
        extra = [
            node["additionalProperties"]
            for node in nodes
            if isinstance(node.get("additionalProperties"), dict)
        ]
        place.additional = self.place(extra, (*at, "{}"), "map", up, opaque) if extra else None

    def _array(self, place: Place, nodes: _Nodes, up: _Ancestors) -> None:
        at, opaque = place.segments, place.opaque
        items = [node["items"] for node in nodes if isinstance(node.get("items"), dict)]
        place.items = self.place(items, (*at, "[]"), "items", up, opaque) if items else None
        prefixes = [node["prefixItems"] for node in nodes if isinstance(node.get("prefixItems"), list)]
        for index in range(max(map(len, prefixes), default=0)):
            subs = [prefix[index] for prefix in prefixes if index < len(prefix)]
            place.prefix.append(self.place(subs, (*at, f"[{index}]"), "items", up, opaque))


def _list(node: dict[str, Any], keyword: str) -> list[Any]:
    found = node.get(keyword)
    return found if isinstance(found, list) else []


def _mapping(node: dict[str, Any], keyword: str) -> dict[str, Any]:
    found = node.get(keyword)
    return found if isinstance(found, dict) else {}


def _admitted(schema: Any) -> frozenset[str]:
    """The kinds of value a schema's ``type`` admits (all without a ``type``)."""
    declared = schema.get("type") if isinstance(schema, dict) else None
    if declared is None:
        return _ALL
    names = {declared} if isinstance(declared, str) else set(declared)
    kinds = {kind for kind in ("object", "array") if kind in names}
    if names - {"object", "array"}:
        kinds.add("scalar")
    return frozenset(kinds)


def _admits_null(declared: Any) -> bool:
    """Whether a ``type`` keyword's value admits ``null``."""
    return declared == "null" or (isinstance(declared, list) and "null" in declared)


def _key_schemas(node: dict[str, Any], key: str) -> list[Any]:
    """The subschemas of one node that apply to ``key`` (``additionalProperties`` only if no other)."""
    found = [_mapping(node, "properties")[key]] if key in _mapping(node, "properties") else []
    found += [sub for pattern, sub in _mapping(node, "patternProperties").items() if _search(pattern, key)]
    extra = node.get("additionalProperties")
    return found or ([extra] if isinstance(extra, dict) else [])


def _search(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return False


def _listed(nodes: _Nodes) -> tuple[Any, ...]:
    """The non-null values of ``enum`` and ``x-jobschema-known-values`` here, first listing first;
    none at a secret's place, so no value of a secret is ever counted or shown."""
    values: dict[ValueKey, Any] = {}
    if any(node.get("x-jobschema-secret") is True for node in nodes):
        return ()
    for node in nodes:
        for value in (*_list(node, "enum"), *_list(node, "x-jobschema-known-values")):
            key = value_key(value)
            if key is not None:
                values.setdefault(key, value)
    return tuple(values.values())


def _embedded(nodes: _Nodes) -> str | None:
    names = (node.get("x-jobschema-embedded-schema") for node in nodes)
    return next((name for name in names if isinstance(name, str)), None)


def compile_places(document: dict[str, Any]) -> tuple[Place, list[Place]]:
    """The root place of a schema document, and every place in first-visit order."""
    compiler = _Compiler(document)
    root = compiler.place([document], (), "root", {}, False)
    return root, compiler.places


@dataclass
class Exercised:
    """What one payload exercised: the places it filled (with a value, with ``null``), the listed
    places' values, its undeclared keys (path segments, tokens) and its embedded documents (tokens,
    text, schema name)."""

    present: set[Place] = field(default_factory=set)
    null: set[Place] = field(default_factory=set)
    values: set[tuple[Place, ValueKey]] = field(default_factory=set)
    undeclared: list[tuple[tuple[str, ...], Tokens]] = field(default_factory=list)
    embedded: list[tuple[Tokens, str, str]] = field(default_factory=list)


def exercise(root: Place, value: Any) -> Exercised:
    """Walk one payload with its schema's place tree, in one linear pass (may raise ``RecursionError``).

    What ``jobschema coverage`` counts and what ``validate --strict`` reports as undeclared both come
    from this walk, so the two never disagree.
    """
    hits = Exercised()
    _walk(root, value, hits, [])
    return hits


def _walk(place: Place, value: Any, hits: Exercised, path: list[str | int]) -> None:
    if value is None:
        hits.null.add(place)
        return
    hits.present.add(place)
    if place.values:
        key = value_key(value)
        if key is not None:
            hits.values.add((place, key))
    if place.embedded is not None and isinstance(value, str):
        hits.embedded.append((tuple(path), value, place.embedded))
    if isinstance(value, dict):
        _walk_object(place, value, hits, path)
    elif isinstance(value, list) and (place.items is not None or place.prefix):
        for index, item in enumerate(value):
            child = place.item(index)
            if child is not None:
                path.append(index)
                _walk(child, item, hits, path)
                path.pop()


def _walk_object(place: Place, value: dict[str, Any], hits: Exercised, path: list[str | int]) -> None:
    for name, item in value.items():
        child = place.child(name)
        path.append(name)
        if child is not None:
            _walk(child, item, hits, path)
        elif place.keyed and not place.opaque:
            hits.undeclared.append(((*place.segments, key_segment(name)), tuple(path)))
        path.pop()
