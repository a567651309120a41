"""Compile a JSON Schema into a hypothesis strategy of values valid against it.

Walks the schema once: ``type`` unions (with ``null`` now and then), ``enum``, ``const``, ``format``
(``uuid``, ``date-time``, ``hostname``), ``pattern`` (``st.from_regex``), lengths, bounds, ``required``
(always drawn) against optional properties (drawn with the odds of a :class:`Density`; ``deprecated``
ones rarely, since each is a warning), ``$ref``/``allOf`` (merged), ``anyOf``, arrays of at most three
items (unique by their ``x-jobschema-list-key``, whose first key is always filled), sets of enum
values, ``additionalProperties`` maps, and the warn-only annotations (``x-jobschema-known-values``,
``-format``, ``-pattern``), so that no warning fires either. Leaf values come from
:mod:`jobschema.testing.values`, chosen by format, annotation or property name.

Not supported (the bundled schemas do not use them): ``oneOf``, ``not``, ``if``/``then``,
``patternProperties``, ``prefixItems``, ``exclusiveMinimum``/``exclusiveMaximum``, remote ``$ref``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from jobschema.pointer import escape
from jobschema.testing import values
from jobschema.testing.schema import SchemaView, types_of

MAX_ITEMS = 3
#: Sets of enum values (Linux capabilities) hold up to this many.
MAX_ENUM_ITEMS = 6
Embedded = Callable[[str], SearchStrategy[str]]

Field = tuple[str, SearchStrategy[Any], SearchStrategy[bool] | None]


def _odds(yes: int, no: int) -> SearchStrategy[bool]:
    """True ``yes`` times in ``yes + no``; "no" comes first, so hypothesis shrinks towards it."""
    return st.sampled_from((False,) * no + (True,) * yes)


@dataclass(frozen=True)
class Density:
    """How full generated objects are: the odds of drawing an optional (or deprecated) property, and of
    a nullable value not being null. Payloads mix a sparse and a dense density ("swarm" generation):
    sparse ones are cheap, dense ones reach the deeply nested properties."""

    optional: SearchStrategy[bool]
    deprecated: SearchStrategy[bool]
    non_null: SearchStrategy[bool]


SPARSE = Density(optional=_odds(1, 2), deprecated=_odds(1, 19), non_null=_odds(3, 1))
DENSE = Density(optional=_odds(5, 1), deprecated=_odds(1, 3), non_null=_odds(9, 1))


@dataclass(frozen=True)
class Place:
    """Where a node sits: its schema location, property name, enclosing ``$defs`` name and parent key."""

    loc: str
    key: str = ""
    owner: str = ""
    parent: str = ""
    force: frozenset[str] = frozenset()
    non_null: bool = False


@st.composite
def _gated(draw: Any, gate: SearchStrategy[bool], inner: SearchStrategy[Any], default: Any) -> Any:
    """``inner``'s value when ``gate`` draws True, else a fresh copy of ``default``."""
    return draw(inner) if draw(gate) else (default() if callable(default) else default)


def nullable(inner: SearchStrategy[Any], non_null: SearchStrategy[bool]) -> SearchStrategy[Any]:
    """``inner`` when ``non_null`` draws True, else ``None``."""
    return _gated(non_null, inner, None)


@st.composite
def _fields(draw: Any, fields: tuple[Field, ...], extra: SearchStrategy[dict[str, Any]] | None) -> Any:
    """An object in schema order: each field drawn when it has no gate or its gate says yes."""
    drawn = {key: draw(strategy) for key, strategy, gate in fields if gate is None or draw(gate)}
    if extra is not None:
        drawn.update(draw(extra))
    return drawn


class Compiler:
    """Strategies for the nodes of one schema; ``overrides`` replace the strategy at a schema location."""

    def __init__(
        self,
        document: dict[str, Any],
        embedded: Embedded,
        overrides: Mapping[str, SearchStrategy[Any]] | None = None,
        always: frozenset[str] = frozenset(),
        density: Density = SPARSE,
        realistic: bool = True,
    ) -> None:
        self.view = SchemaView(document)
        #: Realistic strings for known property names (images, job names); False: the schema's alone,
        #: for schemas of other APIs, where a name's realistic values may be outside its constraints.
        self.realistic = realistic
        self.embedded = embedded
        self.overrides = dict(overrides or {})
        self.always = always
        self.density = density
        self._cache: dict[tuple[Any, ...], SearchStrategy[Any]] = {}

    def root(self) -> SearchStrategy[Any]:
        """Values of the whole document."""
        return self.compile(self.view.document, Place("#"))

    def at(self, ref: str) -> SearchStrategy[Any]:
        """Values of the node at a local ``$ref`` (``#/$defs/Pod``)."""
        return self.compile({"$ref": ref}, Place(ref, owner=ref.rsplit("/", 1)[-1]))

    def compile(self, node: dict[str, Any], place: Place) -> SearchStrategy[Any]:
        """The strategy of ``node`` at ``place`` (cached); an override at the place or at the ``$ref``
        target wins."""
        if place.loc in self.overrides:
            return self.overrides[place.loc]
        owner = self.view.ref_name(node)
        if owner:
            place = replace(place, owner=owner, loc=node["$ref"])
            if place.loc in self.overrides:
                return self.overrides[place.loc]
        key = (id(node), place)
        if key not in self._cache:
            self._cache[key] = self._build(node, place)
        return self._cache[key]

    def _build(self, node: dict[str, Any], place: Place) -> SearchStrategy[Any]:
        eff = self.view.effective(node)
        types = types_of(eff)
        if place.non_null:
            types = [t for t in types if t != "null"] or types
        if "const" in eff:
            return st.just(eff["const"])
        if "anyOf" in eff:
            rest = {key: value for key, value in eff.items() if key != "anyOf"}
            if not set(rest) & _CONSTRAINTS:  # alternatives alone: each branch is the whole schema
                return st.one_of([self.compile(sub, place) for sub in eff["anyOf"]])
            branches = [_merged(rest, self.view.effective(sub)) for sub in eff["anyOf"]]
            return st.one_of([self._build(branch, place) for branch in branches])
        if "enum" in eff:
            return values.pick([v for v in eff["enum"] if v is not None or "null" in types])
        concrete = [t for t in types if t != "null"]
        if not concrete:
            return st.none()
        inner = st.one_of([self._typed(kind, eff, place) for kind in _kinds(concrete)])
        return nullable(inner, self.density.non_null) if "null" in types and len(types) > 1 else inner

    def _typed(self, kind: str, eff: dict[str, Any], place: Place) -> SearchStrategy[Any]:
        builders: dict[str, Callable[[dict[str, Any], Place], SearchStrategy[Any]]] = {
            "object": self._object,
            "array": self._array,
            "string": self._string,
            "integer": _integer,
            "number": _number,
            "boolean": lambda _e, _p: st.booleans(),
        }
        return builders[kind](eff, place)

    def _object(self, eff: dict[str, Any], place: Place) -> SearchStrategy[dict[str, Any]]:
        """Required and always-filled properties (the latter never null), two optional ones in three,
        deprecated ones one time in ten, then entries of an ``additionalProperties`` map."""
        properties: dict[str, Any] = eff.get("properties") or {}
        always = {k for k in properties if f"{place.loc}/properties/{escape(k)}" in self.always}
        filled = place.force | always
        required = set(eff.get("required", ())) | filled
        fields: list[Field] = [
            (
                key,
                self._child(properties.get(key, {}), key, place, key in filled),
                self._gate(properties, key, required),
            )
            for key in [*properties, *sorted(required - set(properties))]
        ]
        return _fields(tuple(fields), self._additional(eff, properties, place))

    def _gate(self, properties: dict[str, Any], key: str, required: set[str]) -> SearchStrategy[bool] | None:
        if key in required:
            return None
        node = properties.get(key)
        deprecated = isinstance(node, dict) and node.get("deprecated") is True
        return self.density.deprecated if deprecated else self.density.optional

    def _child(self, node: Any, key: str, place: Place, non_null: bool = False) -> SearchStrategy[Any]:
        if not isinstance(node, dict):
            return values.text()
        loc = f"{place.loc}/properties/{escape(key)}"
        return self.compile(node, Place(loc, key, place.owner, place.key, non_null=non_null))

    def _additional(
        self, eff: dict[str, Any], properties: dict[str, Any], place: Place
    ) -> SearchStrategy[dict[str, Any]] | None:
        extra = eff.get("additionalProperties")
        if not isinstance(extra, dict):
            free = not properties and extra is None  # an object the schema says nothing about
            return st.dictionaries(values.label_key(), values.text(), max_size=2) if free else None
        names = Place(f"{place.loc}/additionalProperties", "*", place.owner, place.key)
        keys = _hinted(values.STRING_HINTS, names)
        keys = (values.kube_name() if keys is None else keys).filter(lambda k: k not in properties)
        child = Place(names.loc, "", place.owner, place.key)
        return st.dictionaries(keys, self.compile(extra, child), max_size=2)

    def _array(self, eff: dict[str, Any], place: Place) -> SearchStrategy[list[Any]]:
        items = eff.get("items")
        choices = self.view.effective(items).get("enum") if isinstance(items, dict) else None
        if isinstance(choices, list) and eff.get("x-jobschema-list-set") and not eff.get("minItems"):
            return enum_sets(choices)
        list_key = eff.get("x-jobschema-list-key")
        keys = [list_key] if isinstance(list_key, str) else list(list_key or ())
        first = keys[0].lstrip("/").split("/")[0] if keys else None
        child = Place(f"{place.loc}/items", place.key, place.owner, place.parent, non_null=True)
        if first:
            child = replace(child, force=frozenset({first}))
        element = self.compile(items, child) if isinstance(items, dict) else values.text()
        low = int(eff.get("minItems", 0))
        high = max(low, min(int(eff.get("maxItems", MAX_ITEMS)), MAX_ITEMS))
        if keys:
            return st.lists(element, min_size=low, max_size=high, unique_by=partial(_item_key, keys))
        unique = bool(eff.get("x-jobschema-list-set"))
        return st.lists(element, min_size=low, max_size=high, unique=unique)

    def _string(self, eff: dict[str, Any], place: Place) -> SearchStrategy[str]:
        found = self._special_string(eff, place)
        if found is None:
            pattern = eff.get("pattern") or eff.get("x-jobschema-pattern")
            hinted = _hinted(values.STRING_HINTS, place) if self.realistic else None
            if hinted is not None:
                found = hinted.filter(_matcher(pattern)) if pattern else hinted
            elif pattern:
                found = st.from_regex(pattern, fullmatch=True)
            else:
                found = values.text() if self.realistic else _plain(eff)
        return _sized(found, eff)

    def _special_string(self, eff: dict[str, Any], place: Place) -> SearchStrategy[str] | None:
        target = eff.get("x-jobschema-embedded-schema")
        if isinstance(target, str):
            return self.embedded(target)
        known = eff.get("x-jobschema-known-values")
        if isinstance(known, list) and known:
            return values.pick(known)
        fmt = eff.get("format") or eff.get("x-jobschema-format")
        if fmt in FORMATS:
            return FORMATS[fmt]()
        if eff.get("x-jobschema-quantity"):
            return values.quantity()
        return None


def enum_sets(choices: list[Any]) -> SearchStrategy[list[Any]]:
    """Distinct values of an enum, as a stride through it from a random offset: three choices cover up
    to six values, so a few hundred payloads reach every value of a long enum."""
    size = len(choices)
    strides = [s for s in (1, 3, 5, 7, 11) if s < size and math.gcd(s, size) == 1] or [1]

    def build(count: int, offset: int, stride: int) -> list[Any]:
        return [choices[(offset + i * stride) % size] for i in range(min(count, size))]

    return st.builds(
        build, st.integers(0, MAX_ENUM_ITEMS), values.pick(range(size)), st.sampled_from(strides)
    )


FORMATS: dict[str, Callable[[], SearchStrategy[str]]] = {
    "date-time": values.date_time,
    "uuid": values.uuid,
    "hostname": values.hostname,
}


def _kinds(types: list[str]) -> list[str]:
    """Draw ``integer`` and ``number`` as one kind: a number strategy that yields both."""
    if "number" in types:
        return [t for t in types if t != "integer"]
    return types


def _hinted(hints: dict[str, Any], place: Place) -> SearchStrategy[Any] | None:
    for name in (f"{place.owner}.{place.key}", f"{place.parent}.{place.key}", place.key):
        if name in hints:
            return hints[name]()
    return None


def _matcher(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern)
    return lambda value: compiled.search(value) is not None


def _plain(eff: dict[str, Any]) -> SearchStrategy[str]:
    """Text within the schema's length bounds (up to 16 characters beyond the lower one)."""
    low = int(eff.get("minLength") or 0)
    high = eff.get("maxLength")
    top = max(low, int(high)) if high is not None else low + 16
    return st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=low, max_size=top)


def _sized(strategy: SearchStrategy[str], eff: dict[str, Any]) -> SearchStrategy[str]:
    low, high = eff.get("minLength"), eff.get("maxLength")
    if low is None and high is None:
        return strategy
    return strategy.filter(lambda s: (low is None or len(s) >= low) and (high is None or len(s) <= high))


def _integer(eff: dict[str, Any], place: Place) -> SearchStrategy[int]:
    """Within the schema's bounds; where a bound is missing, within a realistic range for the name."""
    hint_low, hint_high = values.INTEGER_RANGES.get(place.key, (0, 100000))
    low, high = eff.get("minimum"), eff.get("maximum")
    if high is not None:
        return st.integers(min(hint_low, int(high)) if low is None else int(low), int(high))
    low = hint_low if low is None else max(int(low), hint_low)
    return st.integers(low, max(low, hint_high))


def _number(eff: dict[str, Any], place: Place) -> SearchStrategy[Any]:
    hinted = _hinted(values.NUMBER_HINTS, place)
    if hinted is not None:
        return hinted
    low, high = eff.get("minimum"), eff.get("maximum")
    if (low is None or low <= 0) and high is None:
        return values.amount()
    low = 0 if low is None else low
    high = low + 1e6 if high is None else high
    return st.one_of(st.integers(int(low) + (int(low) < low), int(high)), st.floats(low, high))


def _item_key(keys: list[str], item: Any) -> Any:
    if not isinstance(item, dict):
        return repr(item)
    return tuple(_lookup(item, key) for key in keys)


def _lookup(item: dict[str, Any], key: str) -> Any:
    if not key.startswith("/"):
        return repr(item.get(key))
    value: Any = item
    for token in key[1:].split("/"):
        value = value.get(token) if isinstance(value, dict) else None
    return repr(value)


#: Keywords that constrain a value: beside them, an ``anyOf`` branch adds to the schema, not replaces it.
_CONSTRAINTS = frozenset({"type", "properties", "required", "items", "additionalProperties", "enum", "const"})


def _merged(base: dict[str, Any], branch: dict[str, Any]) -> dict[str, Any]:
    """``base`` with an ``anyOf`` branch applied: its required members added, its properties merged,
    its other keywords in force."""
    merged = {**base, **branch}
    merged["required"] = [*base.get("required", ()), *branch.get("required", ())]
    merged["properties"] = {**base.get("properties", {}), **branch.get("properties", {})}
    return merged
