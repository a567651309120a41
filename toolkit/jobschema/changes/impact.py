"""How many captured payloads carry the places a list of changes touches.

Captures are read as ``jobschema validate`` reads them (files, folders, globs, NDJSON, HAR; ``-``
for stdin). Each payload counts once per place it carries, an array item or map value being the
place's ``*``: ``{"spec": {"tolerations": [{"effect": "Any"}]}}`` carries ``spec``,
``spec.tolerations``, ``spec.tolerations.*`` and ``spec.tolerations.*.effect``. For a change about a
value (an enum value, ``null``) the payloads carrying that value there are counted too.

A payload counts for a schema pair when it is of that schema: detected as the bundled schema of
that name, or, when the pair's schemas are files of other names, every payload read. Memory is one
counter per place and value watched, whatever the number of payloads.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from jobschema.changes.compare import Change
from jobschema.changes.places import ANY, Place
from jobschema.changes.sides import Side
from jobschema.coverage.collect import unread_line
from jobschema.inputs.files import expand, named
from jobschema.inputs.payload import Payload
from jobschema.inputs.read import read_payloads
from jobschema.schemas import registry
from jobschema.schemas.detect import detect

#: The rules whose change is about one value at its place (counted besides the place).
VALUE_RULES = {"enum-value-added": "new", "enum-value-removed": "old", "nullable-added": None}


@dataclass
class Impact:
    """What the captures of one schema carry: payloads read, and per place (and watched value)."""

    payloads: int = 0
    places: Counter[Place] = field(default_factory=Counter)
    values: Counter[tuple[Place, str]] = field(default_factory=Counter)

    def carrying(self, change: Change) -> int:
        """The payloads carrying the change's place."""
        return self.places[change.place]

    def with_value(self, change: Change) -> int | None:
        """The payloads carrying the value the change is about at its place (None: no such value)."""
        if change.rule not in VALUE_RULES:
            return None
        return self.values[(change.place, _key(watched_value(change)))]


@dataclass
class Captures:
    """The impact per schema name, and the inputs that could not be read."""

    impacts: dict[str, Impact]
    unread: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: ``WHERE: PROBLEM`` of each unread capture, as coverage and validate place it
    problems: list[str] = field(default_factory=list)

    @property
    def payloads(self) -> int:
        return sum(impact.payloads for impact in self.impacts.values())


def watched_value(change: Change) -> Any:
    side = VALUE_RULES[change.rule]
    return change.new if side == "new" else change.old if side == "old" else None


def count(
    inputs: Sequence[str],
    pairs: Sequence[tuple[Side, Side]],
    changes: Iterable[Change],
    stdin: BinaryIO | None = None,
) -> Captures:
    """Read every capture in ``inputs`` once and count, per schema pair, the places it carries."""
    expansion = expand(inputs)
    known = {old.schema: _places(old, new) for old, new in pairs}
    watched: dict[str, set[Place]] = {schema: set() for schema in known}
    for change in changes:
        if change.rule in VALUE_RULES and change.schema in watched:
            watched[change.schema].add(change.place)
    captures = Captures({schema: Impact() for schema in known}, notes=list(expansion.notes))
    by_detection = all(schema in registry.BUNDLED for schema in known)
    for payload in read_payloads(expansion.files, stdin):
        if not isinstance(payload, Payload):
            continue
        if not payload.parsed:
            captures.unread.append(payload.source)
            captures.problems.append(unread_line(payload))
            continue
        schema = _schema_of(payload.value, known, by_detection)
        if schema is not None:
            _carried(payload.value, known[schema], watched[schema], captures.impacts[schema])
        elif by_detection and (why := _ambiguous(payload.value, known)):
            captures.unread.append(payload.source)  # (its schema cannot be told: counted as none,
            captures.problems.append(f"{named(payload.source)}: {why}")  # and named, as unread)
    return captures


def _ambiguous(value: Any, known: dict[str, frozenset[Place]]) -> str:
    """Why a capture that holds the marks of several schemas, one of them compared, is not counted
    (empty for any other capture: another API's, or no job payload at all)."""
    found = detect(value)
    return found.why if found.ambiguous and set(found.fits) & set(known) else ""


def _places(old: Side, new: Side) -> frozenset[Place]:
    from jobschema.changes.places import places

    return frozenset(places(old.document, old.start)) | frozenset(places(new.document, new.start))


def _schema_of(value: Any, known: dict[str, frozenset[Place]], by_detection: bool) -> str | None:
    if not by_detection:
        return next(iter(known)) if len(known) == 1 else None
    name = detect(value).schema
    return name if name in known else None


def _carried(value: Any, known: frozenset[Place], watched: set[Place], impact: Impact) -> None:
    impact.payloads += 1
    seen: set[Place] = set()
    values: set[tuple[Place, str]] = set()
    stack: list[tuple[Place, Any]] = [((), value)]
    while stack:
        place, here = stack.pop()
        if place in watched and not isinstance(here, dict | list):
            values.add((place, _key(here)))
        if isinstance(here, dict):
            for key, sub in here.items():
                stack.append((_step(place, str(key), known), sub))
        elif isinstance(here, list):
            stack.extend(((*place, ANY), item) for item in here)
        seen.add(place)
    impact.places.update(seen - {()})
    impact.values.update(values)


def _step(place: Place, key: str, known: frozenset[Place]) -> Place:
    """The place of ``key`` under ``place``: a declared property, else a map's ``*``."""
    named = (*place, key)
    if named in known:
        return named
    mapped = (*place, ANY)
    return mapped if mapped in known else named


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
