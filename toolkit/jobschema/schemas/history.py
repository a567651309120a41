"""What each version of an API changed, from the version annotations of a bundled schema: the
versions that have a payload place or an enum value, and every change between consecutive versions
(places added and removed, enum values, patterns, bounds and deprecations).

>>> from jobschema.schemas.history import history, versions_of
>>> versions_of("runai-distributed-workload", "/spec/tolerations/0/effect", "Any")[0]
'2.19'
>>> from jobschema.schemas.history import describe
>>> [describe(c) for c in history("runai-distributed-workload") if c.what == "value"][2]
'/spec/distributedFramework: value "JAX" added'
"""

from __future__ import annotations

import itertools
import json
from functools import cache
from typing import Any, NamedTuple

from jobschema.schemas import registry
from jobschema.schemas.versions import (
    API_VERSIONS,
    TRACKED,
    UnknownVersion,
    api_of,
    derive,
    document_of,
    known,
)
from jobschema.schemas.walk import ANY, Spot, places


class Change(NamedTuple):
    """Something a version changed at a payload place: a ``property`` (or an array's ``items``) or an
    enum ``value`` added or removed, or a keyword's value changed (``before`` -> ``after``; None: the
    keyword was absent)."""

    version: str
    place: str
    what: str  # "property", "items", "value", or the keyword (pattern, maxLength, deprecated, ...)
    kind: str  # "added", "removed", "changed"
    value: Any = None  # the enum value, for "value"
    before: Any = None
    after: Any = None


def versions_of(name: str, place: str, value: Any = None) -> tuple[str, ...]:
    """The known versions whose ``name`` payload may hold ``place`` (``/spec/tolerations/*/effect``;
    array indices may be given as numbers), or, with ``value``, that enum value there."""
    api = api_of(registry.load(name).document)
    if api is None:
        raise UnknownVersion(f"{name}: has no API versions (it is the same in every version)")
    versions = known(api)
    spots = _spots(name)
    wanted = _normalised(place, spots)
    if wanted not in spots:
        raise KeyError(f"{name}: no place {place}")
    own = registry.load(name).document.get(API_VERSIONS) or versions  # (AIHC v1 has no aihc-v2-job)
    has = [v for v in versions if v in own and wanted in _places_in(name, v)]
    if value is None:
        return tuple(has)
    return tuple(v for v in has if value in _enum_at(name, v, wanted))


@cache
def _spots(name: str) -> frozenset[str]:
    return frozenset(places(registry.load(name).document))


def _normalised(place: str, spots: frozenset[str]) -> str:
    if place in spots:
        return place
    tokens = place.split("/")
    for index, token in enumerate(tokens):
        if token.isascii() and token.isdigit() and "/".join([*tokens[:index], ANY]) in spots:
            tokens[index] = ANY
    return "/".join(tokens)


@cache
def _places_in(name: str, version: str) -> frozenset[str]:
    return frozenset(places(document_of(name, version)))


def _enum_at(name: str, version: str, place: str) -> tuple[Any, ...]:
    spot = places(document_of(name, version)).get(place)
    found: list[Any] = []
    for located in spot.nodes if spot else ():
        found += [v for v in located.node.get("enum") or () if v not in found]
    return tuple(found)


def history(name: str) -> list[Change]:
    """Every change between consecutive known versions of bundled ``name``, by version then place."""
    return history_of(registry.load(name).document)


def history_of(document: dict[str, Any]) -> list[Change]:
    """:func:`history` of an annotated schema document."""
    versions = tuple(document.get(API_VERSIONS) or ())
    derived = {version: places(derive(document, version)) for version in versions}
    changes: list[Change] = []
    for before, after in itertools.pairwise(versions):
        old, new = derived[before], derived[after]
        for place in sorted(set(old) | set(new)):
            changes += _place_changes(after, place, old.get(place), new.get(place))
    return changes


def describe(change: Change) -> str:
    """One line of a change: ``/spec/preemptibility: property added``."""
    if change.what == "value":
        return f"{change.place}: value {json.dumps(change.value)} {change.kind}"
    if change.what in ("property", "items"):
        return f"{change.place}: {change.what} {change.kind}"
    return f"{change.place}: {change.what} {json.dumps(change.before)} -> {json.dumps(change.after)}"


def _place_changes(version: str, place: str, old: Spot | None, new: Spot | None) -> list[Change]:
    if old is None or new is None:
        what = "items" if place.rsplit("/", 1)[-1] == ANY else "property"
        return [Change(version, place, what, "added" if old is None else "removed")]
    found: list[Change] = []
    was, now = _facts(old), _facts(new)
    for value in [v for v in was.get("enum", ()) if v not in now.get("enum", ())]:
        found.append(Change(version, place, "value", "removed", value))
    for value in [v for v in now.get("enum", ()) if v not in was.get("enum", ())]:
        found.append(Change(version, place, "value", "added", value))
    for keyword in TRACKED:
        if was.get(keyword) != now.get(keyword):
            found.append(Change(version, place, keyword, "changed", None, was.get(keyword), now.get(keyword)))
    return found


def _facts(spot: Spot) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for located in spot.nodes:
        for keyword in ("enum", *TRACKED):
            if keyword in located.node:
                facts.setdefault(keyword, located.node[keyword])
    if "enum" in facts:
        facts["enum"] = tuple(v for v in facts["enum"] if v is not None)
    return facts
