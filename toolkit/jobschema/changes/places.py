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

import json
import re
from dataclasses import dataclass, field
from typing import Any

from jobschema.schemas import keywords
from jobschema.schemas.refs import local_target

Place = tuple[str, ...]
ANY = "*"
TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
BOUNDS = (*keywords.BOUNDS, "minProperties", "maxProperties", "multipleOf", "uniqueItems")
#: The bounds a larger value of tightens, and those a smaller value of does.
LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
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
    ``anyOf``/``oneOf`` branches and its ``then``/``else`` joined (a value may be of any of them)."""
    merged = {key: value for key, value in node.items() if key not in _COMBINED}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in refs:
        target = local_target(root, ref)
        if isinstance(target, dict):
            inner, refs = _merged(root, target, (*refs, ref))
            merged = _both(inner, merged)
    elif isinstance(ref, str):  # a schema that recurses: its own type, enum and bounds, not its places
        target = local_target(root, ref)
        if isinstance(target, dict):
            merged = _both({k: v for k, v in target.items() if k not in _NESTED}, merged)
    for sub in node.get("allOf", ()):
        if isinstance(sub, dict):
            inner, _ = _merged(root, sub, refs)
            merged = _both(merged, inner)
    branches = [sub for key in ("anyOf", "oneOf") for sub in node.get(key, ()) if isinstance(sub, dict)]
    if branches:
        joined = [_merged(root, sub, refs)[0] for sub in branches]
        merged = _both(merged, _either(joined))
    if isinstance(node.get("then"), dict) or isinstance(node.get("else"), dict):  # one or the other
        sides: list[dict[str, Any]] = [_dict(node.get(key)) for key in ("then", "else")]
        merged = _both(merged, _either([_merged(root, sub, refs)[0] for sub in sides]))
    return merged, refs


#: The keywords whose subschemas :func:`_merged` folds into a node.
_COMBINED = frozenset({"$ref", "allOf", "anyOf", "oneOf", "if", "then", "else"})
#: The keywords that lead below a node (or to another one): left out where a schema recurses.
_NESTED = frozenset(
    {"$ref", "allOf", "anyOf", "oneOf", "properties", "items", "additionalProperties", "patternProperties"}
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _both(one: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Two schema nodes that both apply: properties joined (one declared in both is both its
    declarations: ``allOf``), types and enums met, the tighter bound, deprecated when either says so,
    the rest the later one's."""
    merged = {**one, **other}
    if isinstance(one.get("properties"), dict) and isinstance(other.get("properties"), dict):
        joined = dict(one["properties"])
        for name, sub in other["properties"].items():
            joined[name] = {"allOf": [joined[name], sub]} if name in joined and joined[name] != sub else sub
        merged["properties"] = joined
    for keyword in ("items", "additionalProperties"):
        sub, other_sub = one.get(keyword), other.get(keyword)
        if isinstance(sub, dict) and isinstance(other_sub, dict) and sub != other_sub:
            merged[keyword] = {"allOf": [sub, other_sub]}
    if one.get("additionalProperties") is False or other.get("additionalProperties") is False:
        merged["additionalProperties"] = False  # closed by either: closed
    if "required" in one and "required" in other:
        merged["required"] = sorted({*one["required"], *other["required"]})
    types = [_types(n) for n in (one, other) if "type" in n]
    if len(types) == 2 and types[0] is not None and types[1] is not None:
        merged["type"] = sorted(types[0] & types[1])
    if isinstance(one.get("enum"), list) and isinstance(other.get("enum"), list):
        merged["enum"] = [value for value in other["enum"] if _has(one["enum"], value)]
    for keyword in BOUNDS:
        if _number(one.get(keyword)) and _number(other.get(keyword)):
            pick = max if keyword in LOWER else min if keyword in UPPER else None
            if pick is not None:
                merged[keyword] = pick(one[keyword], other[keyword])
    if one.get("deprecated") is True or other.get("deprecated") is True:
        merged["deprecated"] = True
    return merged


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _has(values: list[Any], value: Any) -> bool:
    """``value`` among ``values`` by its JSON text (``1`` and ``true`` are two values)."""
    text = json.dumps(value, sort_keys=True)
    return any(json.dumps(other, sort_keys=True) == text for other in values)


def _either(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """Branches of which any may apply: types, properties, items and enums joined (a property or the
    items declared in several branches may be what any of them says: ``anyOf``); a property is always
    present only when every branch requires it; a pattern, format or bound only when every branch has
    the same."""
    joined: dict[str, Any] = {}
    types: set[str] = set()
    declared: dict[str, list[Any]] = {}
    for node in nodes:
        found = _types(node)
        if found is None:
            types = set(TYPES)
        else:
            types |= found
        if isinstance(node.get("properties"), dict):
            for name, sub in node["properties"].items():
                declared.setdefault(name, []).append(sub)
        if "description" in node and "description" not in joined:
            joined["description"] = node["description"]
    for subs in declared.values():
        if len(subs) < len(nodes):  # a branch that does not declare it requires nothing below it
            subs.append(_unrequired(subs[0]))
    if declared:
        joined["properties"] = {name: _any_of(subs) for name, subs in declared.items()}
    _shared(nodes, joined)
    joined["type"] = sorted(types)
    if all("enum" in node or _types(node) == {"null"} for node in nodes) and any("enum" in n for n in nodes):
        values = [value for node in nodes for value in node.get("enum", [None])]
        joined["enum"] = values
    elif _closed_beside_others(nodes):
        # (the enum's values are a closed set of their types all the same: anyOf [{enum: [a]}, {type:
        # integer}] takes the strings a only; null branches add null, as above)
        joined["enum"] = [
            value for node in nodes for value in node.get("enum", [None] * (_types(node) == {"null"}))
        ]
    return joined


def _closed_beside_others(nodes: list[dict[str, Any]]) -> bool:
    """Whether the enum branches of ``nodes`` hold values of types no other branch takes."""
    closed = [node for node in nodes if isinstance(node.get("enum"), list)]
    if not closed:
        return False
    kinds = {_json_type(value) for node in closed for value in node["enum"]}
    kinds |= {"number"} if "integer" in kinds else set()
    for node in nodes:
        if node in closed:
            continue
        types = _types(node)
        if types is None or (types - {"null"}) & kinds:
            return False
    return True


def _shared(nodes: list[dict[str, Any]], joined: dict[str, Any]) -> None:
    """What every branch that takes a value other than null says, into ``joined``: the items and map
    values (any of the branches'), a pattern, format, bound or deprecation they all have, and the
    properties they all require."""
    valued = [node for node in nodes if _types(node) != {"null"}] or nodes  # (null has none of these)
    for keyword in ("items", "additionalProperties"):
        subs = [node[keyword] for node in valued if isinstance(node.get(keyword), dict)]
        if subs and len(subs) == len(valued):
            joined[keyword] = _any_of(subs)
    if all(node.get("additionalProperties") is False for node in valued):
        joined["additionalProperties"] = False  # closed in every branch: closed
    for keyword in ("pattern", "format", "deprecated", *BOUNDS):
        values = [json.dumps(node.get(keyword), sort_keys=True) for node in valued]
        if keyword in valued[0] and len(set(values)) == 1:
            joined[keyword] = valued[0][keyword]
    needed = [set(node.get("required") or ()) for node in valued]
    always = set.intersection(*needed) if needed else set()
    if always:
        joined["required"] = sorted(always)


def _unrequired(node: Any) -> Any:
    """``node`` without any ``required`` in it, at any depth: what it declares, of which nothing
    need be present."""
    if isinstance(node, list):
        return [_unrequired(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: _unrequired(value) for key, value in node.items() if key != "required"}


def _any_of(subs: list[Any]) -> Any:
    """One schema that is any of ``subs`` (equal ones once)."""
    unique: list[Any] = []
    for sub in subs:
        if sub not in unique:
            unique.append(sub)
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


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
    if isinstance(enum, list) and node.get("nullable") is True and None not in enum:
        enum = [*enum, None]  # OpenAPI 3.0: nullable lets null in beside the enum's values
    if isinstance(enum, list) and "const" not in node:
        enum = [value for value in enum if _takes(node, types, value)]
    pattern = node.get("pattern")
    return Spot(
        types=frozenset(types) if types is not None else None,
        enum=tuple(enum) if isinstance(enum, list) else None,
        pattern=pattern if isinstance(pattern, str) else None,
        format=node.get("format") if isinstance(node.get("format"), str) else None,
        bounds=_bounds(node),
        required=required,
        closed=closed,
        opens=node.get("additionalProperties") is not False,
        deprecated=node.get("deprecated") is True,
        description=node.get("description", "") if isinstance(node.get("description"), str) else "",
        node=node,
    )


def _takes(node: dict[str, Any], types: set[str] | None, value: Any) -> bool:
    """Whether ``node``'s own type, pattern, length and bounds let ``value`` (one of its enum's) in:
    a value they reject is none the schema can send (``{"type": "string", "enum": ["A", null]}``
    sends no null). A pattern Python cannot read (ECMA-262's ``\\p{L}``) lets every string in."""
    kind = _json_type(value)
    if kind == "number" and float(value).is_integer():
        kind = "integer"  # (JSON Schema: 2.0 is an integer)
    if types is not None and kind not in types:
        return False
    if isinstance(value, str):
        return _string_takes(node, value)
    if kind in ("integer", "number"):
        return _number_takes(node, value)
    return True


def _number_takes(node: dict[str, Any], value: float) -> bool:
    def bound(keyword: str, flag_of: str | None = None) -> float | None:
        found: Any = node.get(keyword)
        if found is True and flag_of is not None:  # (OpenAPI 3.0: a flag beside minimum/maximum)
            found = node.get(flag_of)
        return float(found) if _number(found) else None

    low, high = bound("minimum"), bound("maximum")
    above, below = bound("exclusiveMinimum", "minimum"), bound("exclusiveMaximum", "maximum")
    step = bound("multipleOf")
    outside = (
        (low is not None and value < low)
        or (high is not None and value > high)
        or (above is not None and value <= above)
        or (below is not None and value >= below)
    )
    off_step = step is not None and step > 0 and not float(value / step).is_integer()
    return not (outside or off_step)


def _string_takes(node: dict[str, Any], value: str) -> bool:
    shortest, longest, pattern = node.get("minLength"), node.get("maxLength"), node.get("pattern")
    if isinstance(shortest, int) and len(value) < shortest:
        return False
    if isinstance(longest, int) and len(value) > longest:
        return False
    if not isinstance(pattern, str):
        return True
    try:
        return re.search(pattern, value) is not None
    except (re.error, RecursionError):
        return True


def _bounds(node: dict[str, Any]) -> dict[str, Any]:
    """The bounds of ``node``: numbers (a boolean is none), ``uniqueItems`` when true, and OpenAPI
    3.0's ``exclusiveMinimum: true`` beside a ``minimum`` read as JSON Schema's ``exclusiveMinimum``
    of that value (``false``: no bound of its own)."""
    found = {key: node[key] for key in BOUNDS if _number(node.get(key))}
    if node.get("uniqueItems") is True:
        found["uniqueItems"] = True
    for flag, base in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if node.get(flag) is True and base in found:
            found[flag] = found.pop(base)
    return found


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
