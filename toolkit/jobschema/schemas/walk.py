"""The payload places of a schema document and the schema nodes that apply at each, with their
locations in the document: ``/spec/storage/pvc/*/claimName`` -> ``#/$defs/PvcVolume/properties/claimName``.

A place is a JSON Pointer into the payload whose array items (and map values) are ``*``. Each place
lists its *entry* nodes (the subschemas of the parent's ``properties``, ``items`` or
``additionalProperties``) and every node reached from them through ``$ref``, ``allOf``, ``anyOf`` and
``oneOf``. Works on any document with local ``$ref`` (a bundled schema, an OpenAPI excerpt), so the
version tools read the official specs and the hand-authored schemas with one walker.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jobschema.pointer import escape
from jobschema.schemas.refs import local_target

#: The token of an array item (or a map value) in a place.
ANY = "*"
MAX_DEPTH = 64


@dataclass
class Located:
    """One schema node at a place: where it is in the document, and whether it is an entry node."""

    location: str
    node: dict[str, Any]
    entry: bool


@dataclass
class Spot:
    """A payload place: its parent place, its last token, and the nodes that apply there."""

    place: str
    parent: str | None
    key: str
    nodes: list[Located] = field(default_factory=list)

    @property
    def entries(self) -> list[Located]:
        """The nodes that declare the place in its parent."""
        return [found for found in self.nodes if found.entry]


def places(document: dict[str, Any], start: str = "#") -> dict[str, Spot]:
    """Every place of the value the node at ``start`` describes (``""`` is that value itself)."""
    root = local_target(document, start)
    found: dict[str, Spot] = {}
    if isinstance(root, dict):
        _visit(document, found, Spot("", None, ""), [(start.removeprefix("#"), root)], 0)
    return found


def _visit(
    document: dict[str, Any],
    found: dict[str, Spot],
    spot: Spot,
    entries: list[tuple[str, dict[str, Any]]],
    depth: int,
) -> None:
    if depth > MAX_DEPTH:
        return
    spot = found.setdefault(spot.place, spot)
    children: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for location, entry in entries:
        for reached, node, is_entry in _expand(document, location, entry, (), True):
            spot.nodes.append(Located(f"#{reached}", node, is_entry))
            for key, sub, at in _children(node, reached):
                children.setdefault(key, []).append((at, sub))
    for key, subs in children.items():
        place = f"{spot.place}/{escape(key)}" if key != ANY else f"{spot.place}/{ANY}"
        _visit(document, found, Spot(place, spot.place, key), subs, depth + 1)


def _expand(
    document: dict[str, Any], location: str, node: dict[str, Any], refs: tuple[str, ...], entry: bool
) -> Iterator[tuple[str, dict[str, Any], bool]]:
    yield location, node, entry
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in refs:
        target = local_target(document, ref)
        if isinstance(target, dict):
            yield from _expand(document, ref.removeprefix("#"), target, (*refs, ref), False)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for index, sub in enumerate(node.get(keyword) or ()):
            if isinstance(sub, dict):
                yield from _expand(document, f"{location}/{keyword}/{index}", sub, refs, False)


def _children(node: dict[str, Any], location: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    properties = node.get("properties")
    if isinstance(properties, dict):
        for key, sub in properties.items():
            if isinstance(sub, dict):
                yield key, sub, f"{location}/properties/{escape(key)}"
    for keyword in ("items", "additionalProperties"):
        sub = node.get(keyword)
        if isinstance(sub, dict):
            yield ANY, sub, f"{location}/{keyword}"


def node_at(document: dict[str, Any], location: str) -> dict[str, Any]:
    """The schema node at ``location`` (``#/$defs/Compute``); ``KeyError`` when there is none."""
    found = local_target(document, location)
    if not isinstance(found, dict):
        raise KeyError(location)
    return found
