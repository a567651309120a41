"""What changed between two schemas of one response, judged from the side of a program that reads it.

Each change has a rule (:data:`RULES`) and one of four classes:

- ``breaking``: breaks every reader: a property removed, a type or format changed or dropped (a
  reader parses a ``date-time`` or ``uuid``: OpenAPI's type/format), a type widened
  (``integer`` to ``number``, a value becoming nullable, the items of an array of any type), a value
  that was always present becoming optional, a value a closed set never held (an enum value added, an
  enum dropped: a reader's ``switch`` over the values, or a closed enum such as runapy's
  ``DistributedFramework(str, Enum)``, fails on it);
- ``strict``: breaks readers that take the schema as closed (``extra=forbid`` models such as
  jobschema's, validating readers): a property added to an object that took no other, a pattern or
  bound loosened so that values the old schema never allowed arrive;
- ``info``: a deprecation, the documentation;
- ``safe``: a property added where others were allowed, a constraint tightened (an enum value removed:
  a reader that handles it still reads every value the new schema allows; oasdiff's
  ``response-property-enum-value-removed`` is informational too).

Equivalence is decided on the sets of values, not on the keywords: a ``pattern: ".*"`` added to a
string is no change, two patterns are compared by strings each accepts and the other does not
(drawn by hypothesis, :mod:`.patterns`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from jobschema.changes.places import ANY, LOWER, UPPER, Place, Spot, places

Kind = Literal["breaking", "strict", "info", "safe"]
KINDS: tuple[Kind, ...] = ("breaking", "strict", "info", "safe")

#: rule -> (class, what it means for a reader).
RULES: dict[str, tuple[Kind, str]] = {
    "property-removed": ("breaking", "a property the old schema had is gone: readers of it get nothing"),
    "required-removed": ("breaking", "a property that was always present may be missing"),
    "type-changed": (
        "breaking",
        "the value's type changed (or its format: readers that parse the old one fail)",
    ),
    "format-removed": ("breaking", "strings of any format may arrive: readers that parse the old one fail"),
    "type-widened": ("breaking", "the value may be of a type it never was (integer to number, say)"),
    "nullable-added": ("breaking", "the value may be null where it never was"),
    "enum-value-added": ("breaking", "a value a reader's switch (a closed enum) does not know may arrive"),
    "enum-removed": (
        "breaking",
        "a field that took a fixed set of values takes any: a reader's switch fails",
    ),
    "property-added-closed": ("strict", "a property added to an object that took no other"),
    "additional-properties-opened": ("strict", "an object that took no undeclared property now may"),
    "pattern-loosened": ("strict", "strings the old pattern never allowed may arrive"),
    "pattern-changed": ("strict", "the pattern changed both ways: strings the old never allowed may arrive"),
    "bound-loosened": ("strict", "values beyond the old bound may arrive"),
    "deprecated": ("info", "the property is deprecated"),
    "deprecation-removed": ("info", "the property is no longer deprecated"),
    "documentation": ("info", "the description changed"),
    "property-added": ("safe", "an optional property added where others were allowed"),
    "required-added": ("safe", "a property that may have been missing is always present"),
    "type-narrowed": ("safe", "the value is of fewer types than before"),
    "enum-added": ("safe", "a field that took any value takes a fixed set"),
    "enum-value-removed": ("safe", "a value is no longer sent: readers that handle it read every other"),
    "pattern-tightened": ("safe", "the pattern accepts fewer strings"),
    "bound-tightened": ("safe", "the bound accepts fewer values"),
    "format-added": ("safe", "the strings have a format"),
    "additional-properties-closed": ("safe", "an object no longer takes undeclared properties"),
}


@dataclass(frozen=True)
class Change:
    """One change at one place: its rule and class, what it was and is, and the version that made
    it (between two versions of a bundled schema)."""

    rule: str
    place: Place
    message: str
    old: Any = None
    new: Any = None
    since: str | None = None
    schema: str = ""

    @property
    def kind(self) -> Kind:
        return RULES[self.rule][0]

    @property
    def path(self) -> str:
        """The place as a pointer (``*``: any item or map value): ``/spec/compute/migProfile``."""
        return "".join(f"/{token.replace('~', '~0').replace('/', '~1')}" for token in self.place)

    @property
    def fingerprint(self) -> str:
        """The same change has the same fingerprint on every run and machine."""
        text = json.dumps(
            [self.schema, self.rule, self.path, self.old, self.new], sort_keys=True, default=str
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def between(
    old: dict[str, Any], new: dict[str, Any], old_start: str = "#", new_start: str = "#"
) -> list[Change]:
    """Every change from the schema at ``old_start`` in document ``old`` to the one at ``new_start``
    in ``new``, sorted by place, then rule."""
    before, after = places(old, old_start), places(new, new_start)
    before, after = as_map_values(before, after), as_map_values(after, before)
    found: list[Change] = []
    for place in sorted(set(before) | set(after)):
        if place in before and place in after:
            found += _changed(place, before[place], after[place])
        elif place in before and not _below_one(place, before, after):
            if place[-1] == ANY and _takes_any(after.get(place[:-1])):
                found.append(
                    Change(
                        "type-widened", place, "may be of any type", sorted(before[place].types or ()), None
                    )
                )
            else:
                found.append(Change("property-removed", place, "removed"))
        elif place in after and place[-1] == ANY and _takes_any(before.get(place[:-1])):
            found.append(
                Change("type-narrowed", place, "has a schema", None, sorted(after[place].types or ()))
            )
        elif place in after and not _below_one(place, after, before):
            parent = before.get(place[:-1])
            closed = parent is not None and not parent.opens and place[-1] != ANY
            rule = "property-added-closed" if closed else "property-added"
            if after[place].required:
                rule = "property-added-closed" if closed else "required-added"
            found.append(Change(rule, place, "added"))
    return sorted(found, key=order)


def order(change: Change) -> tuple[Any, ...]:
    """Changes sorted by schema, place, rule and values: the same order on every run."""
    values = json.dumps([change.old, change.new], sort_keys=True, default=str)
    return (change.schema, change.place, change.rule, values)


def as_map_values(side: dict[Place, Spot], other: dict[Place, Spot]) -> dict[Place, Spot]:
    """``side`` with a property the ``other`` side declares read, where ``side`` does not declare it but
    takes it as a value of its object's map (``additionalProperties`` with a schema), as that map's
    values: a reader of the map read it so (a property declared from a map of strings is no new
    property, one left to the map again is no property removed)."""
    extra: dict[Place, Spot] = {}
    maps: dict[Place, list[Place]] = {}  # a map's values' place -> the places below it, by prefix
    for place in side:
        holder = side.get(place[:-1]) if place and place[-1] == ANY else None
        if holder is not None and isinstance(holder.node.get("additionalProperties"), dict):
            maps[place] = []
    if not maps:
        return side
    for place in side:
        for index in range(len(place)):
            if place[index] == ANY and place[: index + 1] in maps:
                maps[place[: index + 1]].append(place)
    for place in other:
        parent = place[:-1]
        if not place or place[-1] == ANY or place in side or (*parent, ANY) not in maps:
            continue
        size = len(parent) + 1
        for below in maps[(*parent, ANY)]:
            alias = (*parent, place[-1], *below[size:])
            spot = side[below]
            extra.setdefault(alias, replace(spot, required=False) if alias == place else spot)
    return {**side, **extra} if extra else side


def _takes_any(parent: Spot | None) -> bool:
    """True when the items or map values of ``parent`` (an array or object without a schema for
    them) may be of any type."""
    if parent is None:
        return False
    node = parent.node
    if "array" in (parent.types or ()) and "items" not in node and "prefixItems" not in node:
        return True
    return "object" in (parent.types or ()) and node.get("additionalProperties", True) is True


def _below_one(place: Place, side: dict[Place, Spot], other: dict[Place, Spot]) -> bool:
    """True when a place above ``place`` is on ``side`` only (its change says it all)."""
    return any(place[:n] in side and place[:n] not in other for n in range(1, len(place)))


def _name(place: Place) -> str:
    return ".".join(place) or "(root)"


#: OpenAPI's number formats, (narrower, wider): every value of the first is one of the second.
_WIDER = frozenset({("int32", "int64"), ("float", "double")})


def _changed(place: Place, old: Spot, new: Spot) -> Iterator[Change]:
    yield from _types(place, old, new)
    if old.required and not new.required:
        yield Change("required-removed", place, "is no longer always present")
    elif new.required and not old.required:
        yield Change("required-added", place, "is always present")
    yield from _enums(place, old, new)
    yield from _patterns(place, old, new)
    yield from _bounds(place, old, new)
    if old.format != new.format:
        if new.format is None:
            yield Change("format-removed", place, f"format {old.format} dropped", old.format)
        elif old.format is None:
            yield Change("format-added", place, f"format {new.format}", None, new.format)
        elif (old.format, new.format) in _WIDER or (new.format, old.format) in _WIDER:
            rule = "type-widened" if (old.format, new.format) in _WIDER else "type-narrowed"
            yield Change(rule, place, f"format {old.format} is now {new.format}", old.format, new.format)
        else:
            yield Change(  # (OpenAPI's type/format: a reader parses a uuid, a date-time...)
                "type-changed",
                place,
                f"format {old.format} is now {new.format}",
                old.format,
                new.format,
            )
    if old.opens != new.opens and (old.types is None or "object" in (old.types or ())):
        rule = "additional-properties-opened" if new.opens else "additional-properties-closed"
        yield Change(rule, place, f"{'takes' if new.opens else 'no longer takes'} undeclared properties")
    if new.deprecated and not old.deprecated:
        yield Change("deprecated", place, "is deprecated")
    if old.deprecated and not new.deprecated:
        yield Change("deprecation-removed", place, "is no longer deprecated")
    if old.description.strip() != new.description.strip() and old.description and new.description:
        yield Change("documentation", place, "description changed", old.description, new.description)


def _types(place: Place, old: Spot, new: Spot) -> Iterator[Change]:
    before, after = old.types, new.types
    if before == after:
        return
    if after is None:
        yield Change("type-widened", place, "may be of any type", sorted(before or ()), None)
        return
    if before is None:
        yield Change("type-narrowed", place, f"is {'/'.join(sorted(after))}", None, sorted(after))
        return
    added, removed = after - before, before - after
    if added == {"null"} and not removed:
        yield Change(
            "nullable-added",
            place,
            "may be null",
            sorted(before),
            sorted(after),
        )
    elif added and removed:
        yield Change(
            "type-changed",
            place,
            f"{'/'.join(sorted(before))} -> {'/'.join(sorted(after))}",
            sorted(before),
            sorted(after),
        )
    elif added:
        yield Change(
            "type-widened",
            place,
            f"may also be {'/'.join(sorted(added))}",
            sorted(before),
            sorted(after),
        )
    else:
        yield Change(
            "type-narrowed",
            place,
            f"is no longer {'/'.join(sorted(removed))}",
            sorted(before),
            sorted(after),
        )


def _enums(place: Place, old: Spot, new: Spot) -> Iterator[Change]:
    if old.enum == new.enum:
        return
    if new.enum is None:
        yield Change("enum-removed", place, "takes any value", list(old.enum or ()), None)
        return
    if old.enum is None:
        yield Change("enum-added", place, f"takes one of {len(new.enum)} values", None, list(new.enum))
        return
    before, after = _keys(old.enum), _keys(new.enum)
    null_moved = ("null" in (old.types or ())) != ("null" in (new.types or ()))  # the type rule says it
    for key, value in after.items():
        if key not in before and not (value is None and null_moved):
            yield Change("enum-value-added", place, f"value {key} added", None, value)
    for key, value in before.items():
        if key not in after and not (value is None and null_moved):
            yield Change("enum-value-removed", place, f"value {key} removed", value, None)


def _keys(values: tuple[Any, ...]) -> dict[str, Any]:
    """Enum values by their JSON text: ``1`` and ``true`` (equal in Python) are two values."""
    return {json.dumps(value, sort_keys=True): value for value in values}


def _patterns(place: Place, old: Spot, new: Spot) -> Iterator[Change]:
    if old.pattern == new.pattern:
        return
    from jobschema.changes.patterns import relation

    kind, only_new, only_old = relation(old.pattern, new.pattern)
    if kind == "same":
        return
    message = f"pattern {old.pattern or '(none)'} -> {new.pattern or '(none)'}"
    seen = [f"now accepts {json.dumps(only_new)}" if only_new is not None else ""]
    seen.append(f"no longer accepts {json.dumps(only_old)}" if only_old is not None else "")
    message += f" ({', '.join(part for part in seen if part)})" if any(seen) else ""
    rule = {"tightened": "pattern-tightened", "loosened": "pattern-loosened"}.get(kind, "pattern-changed")
    yield Change(rule, place, message, old.pattern, new.pattern)


#: A number's inclusive and exclusive bound on one side: one bound, said by either keyword.
_PAIRS = (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum"))


def _bounds(place: Place, old: Spot, new: Spot) -> Iterator[Change]:
    paired: set[str] = set()
    edges: dict[str, tuple[Any, Any]] = {}  # keyword -> (before, after): the bound each pair says
    for pair in _PAIRS:
        was, now = _edge(old.bounds, pair), _edge(new.bounds, pair)
        paired.update(pair)
        if was == now:
            continue
        if was[0] is None or now[0] is None or was[0] == now[0]:  # a bound added, dropped or moved
            keyword = was[0] or now[0] or pair[0]
            edges[keyword] = (was[1], now[1])
        else:  # one keyword for the other
            yield _pair_change(place, pair, (was[0], was[1]), (now[0], now[1]))
    keywords = (set(old.bounds) | set(new.bounds)) - paired
    for keyword in sorted(keywords | set(edges)):
        before, after = edges.get(keyword, (old.bounds.get(keyword), new.bounds.get(keyword)))
        if before == after:
            continue
        if keyword in LOWER:
            looser = after is None or (before is not None and after < before)
        elif keyword in UPPER:
            looser = after is None or (before is not None and after > before)
        elif keyword == "multipleOf":  # multiples of 4 are multiples of 2: 2 -> 4 tightens
            looser = after is None or (before is not None and not _divides(before, after))
        else:  # uniqueItems
            looser = after is None
        rule = "bound-loosened" if looser else "bound-tightened"
        yield Change(rule, place, _bound_text(keyword, before, after), before, after)


def _edge(bounds: dict[str, Any], pair: tuple[str, str]) -> tuple[str | None, Any]:
    """The tightest of a pair's bounds: ``(keyword, value)``, ``(None, None)`` when neither is set."""
    inclusive, exclusive = (bounds.get(keyword) for keyword in pair)
    if inclusive is None or exclusive is None:
        return (
            (pair[1], exclusive)
            if exclusive is not None
            else (pair[0] if inclusive is not None else None, inclusive)
        )
    lower = pair[0] == "minimum"
    tighter = exclusive >= inclusive if lower else exclusive <= inclusive
    return (pair[1], exclusive) if tighter else (pair[0], inclusive)


def _pair_change(place: Place, pair: tuple[str, str], was: tuple[str, Any], now: tuple[str, Any]) -> Change:
    """A bound said by the other keyword of its pair (``minimum 0`` to ``exclusiveMinimum 0``)."""
    sign = 1 if pair[0] == "minimum" else -1  # a larger minimum, a smaller maximum: tighter

    def rank(edge: tuple[str, Any]) -> tuple[Any, bool]:
        return (sign * edge[1], edge[0] == pair[1])

    rule = "bound-tightened" if rank(now) > rank(was) else "bound-loosened"
    text = f"{was[0]} {was[1]} -> {now[0]} {now[1]}"
    return Change(rule, place, text, {was[0]: was[1]}, {now[0]: now[1]})


def _divides(divisor: Any, value: Any) -> bool:
    """True when ``value`` is a whole multiple of ``divisor`` (decided on their decimal texts)."""
    try:
        quotient = Fraction(str(value)) / Fraction(str(divisor))
    except (ValueError, ZeroDivisionError):
        return False
    return quotient.denominator == 1


def _bound_text(keyword: str, before: Any, after: Any) -> str:
    if before is None:
        return f"{keyword} {after} added"
    if after is None:
        return f"{keyword} {before} dropped"
    return f"{keyword} {before} -> {after}"
