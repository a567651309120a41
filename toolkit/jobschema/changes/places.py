"""A JSON Schema read as the places of a payload and what each may hold: the view a program that
reads the responses has of a schema.

A place is a tuple of property names, with ``*`` for any item of an array or value of a map. At each
place a :class:`Spot` says what the schema allows there: the JSON types, the enum, the pattern, the
bounds, whether its object requires it and
whether that object is closed to other properties, whether it is deprecated, its description, and the
schema node itself (to draw witness values from). ``$ref`` and ``allOf`` are merged as the validator
applies them; the branches of ``anyOf``/``oneOf`` are taken together (a value may be of any of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jobschema.schemas import keywords
from jobschema.schemas.refs import local_target

Place = tuple[str, ...]
ANY = "*"
TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
BOUNDS = (*keywords.BOUNDS, "multipleOf")
MAX_DEPTH = 32


@dataclass
class Spot:
    """What a schema allows at one place of a payload."""

    types: frozenset[str] | None = None  # None: any
    enum: tuple[Any, ...] | None = None  # None: any value
    pattern: str | None = None
    format: str | None = None
    bounds: dict[str, Any] = field(default_factory=dict)
    required: bool = False
    closed: bool = False  # the object holding it takes no other property
    opens: bool = True  # this object takes properties it does not declare
    deprecated: bool = False
    description: str = ""
    node: dict[str, Any] = field(default_factory=dict)

    @property
    def nullable(self) -> bool:
        return self.types is None or "null" in self.types


def places(document: dict[str, Any], start: str = "#") -> dict[Place, Spot]:
    """Every place the schema at ``start`` in ``document`` declares (``#``: the document itself;
    ``#/components/schemas/DistributedWorkload`` in an OpenAPI document), with its spot; the root
    place is ``()``. ``$ref`` resolves against the whole document."""
    found: dict[Place, Spot] = {}
    root = local_target(document, start)
    if isinstance(root, dict):
        _collect(document, root, (), found, required=True, closed=False, refs=())
    return found


def _collect(
    root: dict[str, Any],
    node: Any,
    place: Place,
    found: dict[Place, Spot],
    *,
    required: bool,
    closed: bool,
    refs: tuple[str, ...],
) -> None:
    if not isinstance(node, dict) or len(place) > MAX_DEPTH:
        return
    merged, refs = _merged(root, node, refs)
    spot = _spot(merged, required, closed)
    if place in found:  # declared twice (two branches): what either allows
        spot = _union(found[place], spot)
    found[place] = spot
    needed = set(merged.get("required", ()))
    shut = merged.get("additionalProperties") is False
    for name, sub in merged.get("properties", {}).items():
        _collect(root, sub, (*place, name), found, required=name in needed, closed=shut, refs=refs)
    for keyword in ("items", "additionalProperties"):
        sub = merged.get(keyword)
        if isinstance(sub, dict):
            _collect(root, sub, (*place, ANY), found, required=False, closed=False, refs=refs)


def _merged(
    root: dict[str, Any], node: dict[str, Any], refs: tuple[str, ...]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``node`` with its ``$ref`` target and ``allOf`` folded in (constraints of both apply), and its
    ``anyOf``/``oneOf`` branches joined (a value may be of any of them)."""
    merged = {key: value for key, value in node.items() if key not in ("$ref", "allOf", "anyOf", "oneOf")}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in refs:
        target = local_target(root, ref)
        if isinstance(target, dict):
            inner, refs = _merged(root, target, (*refs, ref))
            merged = _both(inner, merged)
    for sub in node.get("allOf", ()):
        if isinstance(sub, dict):
            inner, _ = _merged(root, sub, refs)
            merged = _both(merged, inner)
    branches = [sub for key in ("anyOf", "oneOf") for sub in node.get(key, ()) if isinstance(sub, dict)]
    if branches:
        joined = [_merged(root, sub, refs)[0] for sub in branches]
        merged = _both(merged, _either(joined))
    return merged, refs


def _both(one: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Two schema nodes that both apply: properties joined, types met, the rest the later one's."""
    merged = {**one, **other}
    if "properties" in one and "properties" in other:
        merged["properties"] = {**one["properties"], **other["properties"]}
    if "required" in one and "required" in other:
        merged["required"] = sorted({*one["required"], *other["required"]})
    types = [_types(n) for n in (one, other) if "type" in n]
    if len(types) == 2 and types[0] is not None and types[1] is not None:
        merged["type"] = sorted(types[0] & types[1])
    return merged


def _either(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """Branches of which any may apply: types, properties and enums joined."""
    joined: dict[str, Any] = {}
    types: set[str] = set()
    for node in nodes:
        found = _types(node)
        if found is None:
            types = set(TYPES)
        else:
            types |= found
        if isinstance(node.get("properties"), dict):
            joined.setdefault("properties", {}).update(node["properties"])
        for key in ("items", "additionalProperties", "pattern", "format", "description", "deprecated"):
            if key in node and key not in joined:
                joined[key] = node[key]
    joined["type"] = sorted(types)
    if all("enum" in node or _types(node) == {"null"} for node in nodes) and any("enum" in n for n in nodes):
        values = [value for node in nodes for value in node.get("enum", [None])]
        joined["enum"] = values
    return joined


def _types(node: dict[str, Any]) -> set[str] | None:
    kind = node.get("type")
    if isinstance(kind, str):
        found = {kind}
    elif isinstance(kind, list):
        found = {item for item in kind if isinstance(item, str)}
    elif "enum" in node and isinstance(node["enum"], list):
        return {_json_type(value) for value in node["enum"]}
    elif "const" in node:
        return {_json_type(node["const"])}
    else:
        return None
    if node.get("nullable") is True:  # OpenAPI 3.0's spelling of "null" among the types
        found.add("null")
    if "number" in found:
        found.add("integer")  # JSON Schema: every integer is a number
    return found


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _spot(node: dict[str, Any], required: bool, closed: bool) -> Spot:
    types = _types(node)
    enum = node.get("enum")
    if "const" in node:
        enum = [node["const"]]
    pattern = node.get("pattern")
    return Spot(
        types=frozenset(types) if types is not None else None,
        enum=tuple(enum) if isinstance(enum, list) else None,
        pattern=pattern if isinstance(pattern, str) else None,
        format=node.get("format") if isinstance(node.get("format"), str) else None,
        bounds={key: node[key] for key in BOUNDS if isinstance(node.get(key), int | float)},
        required=required,
        closed=closed,
        opens=node.get("additionalProperties") is not False,
        deprecated=node.get("deprecated") is True,
        description=node.get("description", "") if isinstance(node.get("description"), str) else "",
        node=node,
    )


def _union(one: Spot, other: Spot) -> Spot:
    types = None if one.types is None or other.types is None else one.types | other.types
    enum = None if one.enum is None or other.enum is None else tuple(dict.fromkeys((*one.enum, *other.enum)))
    return Spot(
        types=types,
        enum=enum,
        pattern=one.pattern if one.pattern == other.pattern else None,
        format=one.format if one.format == other.format else None,
        bounds={k: v for k, v in one.bounds.items() if other.bounds.get(k) == v},
        required=one.required and other.required,
        closed=one.closed and other.closed,
        opens=one.opens or other.opens,
        deprecated=one.deprecated and other.deprecated,
        description=one.description or other.description,
        node=one.node,
    )
