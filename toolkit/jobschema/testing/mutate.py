"""Invalid payloads: one mutation of a valid payload, at a place the schema constrains.

The payload is walked together with its schema; every constraint that applies to a present value
offers a mutation that is certain to break it: a value of a type the node does not admit, a string
outside its ``enum``, a number just outside ``minimum``/``maximum``, a string that fails its
``format``, ``pattern`` or length, or a required property removed (reported at the parent object, as
JSON Schema reports ``required``). Places under an ``anyOf`` are left alone (their errors surface at
the ``anyOf``); an embedded JSON document (``x-jobschema-embedded-schema``) is mutated inside, and
the pointer continues into it, as the validator's findings do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from jobschema.inputs.parse import parse_text
from jobschema.pointer import from_path
from jobschema.testing.schema import JSON_TYPES, SchemaView, admits, types_of

Path = tuple[str | int, ...]

#: One value of each JSON type: a type mutation puts one the node does not admit.
WRONG_TYPES: tuple[Any, ...] = (True, "wrong", 12345, 0.5, [], {}, None)
BAD_FORMATS = {"date-time": "yesterday", "uuid": "not-a-uuid", "hostname": "not a host name!"}
PATTERN_BREAKERS = ("!@#", "no match here", "0999", "-", " ", "")


@dataclass(frozen=True)
class Mutation:
    """Replace the value at ``path`` (``kind`` ``required``: remove key ``value`` from the object there;
    ``embedded``: apply ``inner`` to the JSON document held in the string there)."""

    path: Path
    kind: str
    value: Any = None
    inner: Mutation | None = None

    @property
    def pointer(self) -> str:
        """Where the validator reports the violation."""
        own = from_path(self.path)
        return own + self.inner.pointer if self.inner is not None else own


class Sites:
    """The mutations a payload of one schema offers; ``embedded(name)`` gives another schema's document."""

    def __init__(self, document: dict[str, Any], embedded: Callable[[str], dict[str, Any]]) -> None:
        self.view = SchemaView(document)
        self.embedded = embedded

    def of(self, payload: Any) -> list[Mutation]:
        return list(self._walk(self.view.document, payload, ()))

    def _walk(self, node: dict[str, Any], value: Any, path: Path) -> Iterator[Mutation]:
        eff = self.view.effective(node)
        yield from _value_sites(self.view, eff, value, path)
        if "anyOf" in eff and not (isinstance(value, dict) and "properties" in eff):
            return  # alternatives of a value: which one a mutation breaks cannot be told
        # (an object whose anyOf branches only require members: its properties are mutated as any
        # object's, the members a branch requires are not: another branch may not need them)
        target = eff.get("x-jobschema-embedded-schema")
        if isinstance(target, str) and isinstance(value, str):
            yield from self._embedded_sites(target, value, path)
        elif isinstance(value, dict):
            yield from self._object_sites(eff, value, path)
        elif isinstance(value, list) and isinstance(eff.get("items"), dict):
            for index, item in enumerate(value):
                yield from self._walk(eff["items"], item, (*path, index))

    def _object_sites(self, eff: dict[str, Any], value: dict[str, Any], path: Path) -> Iterator[Mutation]:
        for key in eff.get("required", ()):
            if key in value:
                yield Mutation(path, "required", key)
        properties = eff.get("properties") or {}
        extra = eff.get("additionalProperties")
        for key, item in value.items():
            child = properties.get(key, extra)
            if isinstance(child, dict):
                yield from self._walk(child, item, (*path, key))

    def _embedded_sites(self, target: str, text: str, path: Path) -> Iterator[Mutation]:
        parsed = parse_text(text)
        if not parsed.ok:
            return
        for mutation in Sites(self.embedded(target), self.embedded).of(parsed.value):
            yield Mutation(path, "embedded", inner=mutation)


def _value_sites(view: SchemaView, eff: dict[str, Any], value: Any, path: Path) -> Iterator[Mutation]:
    types = _admitted(view, eff)
    if len(types) < len(JSON_TYPES):
        for wrong in WRONG_TYPES:
            if not admits(types, wrong):
                yield Mutation(path, "type", wrong)
    if isinstance(value, str):
        yield from _string_sites(view, eff, path)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield from _number_sites(eff, types, path)


def _admitted(view: SchemaView, eff: dict[str, Any]) -> list[str]:
    if "anyOf" in eff:
        branches = [types_of(view.effective(sub)) for sub in eff["anyOf"]]
        return list(dict.fromkeys(t for branch in branches for t in branch))
    return types_of(eff)


def _string_sites(view: SchemaView, eff: dict[str, Any], path: Path) -> Iterator[Mutation]:
    if isinstance(eff.get("enum"), list):
        yield Mutation(path, "enum", "NotAKnownValue")
    formats = [eff.get("format")] + [view.effective(sub).get("format") for sub in eff.get("anyOf", ())]
    for name in formats:
        if name in BAD_FORMATS:
            yield Mutation(path, "format", BAD_FORMATS[name])
    pattern = eff.get("pattern")
    if isinstance(pattern, str):
        compiled = re.compile(pattern)
        breaker = next((s for s in PATTERN_BREAKERS if not compiled.search(s)), None)
        if breaker is not None:
            yield Mutation(path, "pattern", breaker)
    if isinstance(eff.get("minLength"), int) and eff["minLength"] > 0:
        yield Mutation(path, "minLength", "x" * (eff["minLength"] - 1))
    if isinstance(eff.get("maxLength"), int):
        yield Mutation(path, "maxLength", "x" * (eff["maxLength"] + 1))


def _number_sites(eff: dict[str, Any], types: list[str], path: Path) -> Iterator[Mutation]:
    step = 0.5 if "number" in types else 1
    if isinstance(eff.get("minimum"), int | float):
        yield Mutation(path, "minimum", eff["minimum"] - step)
    if isinstance(eff.get("maximum"), int | float):
        yield Mutation(path, "maximum", eff["maximum"] + step)


def apply(payload: Any, mutation: Mutation) -> Any:
    """A copy of ``payload`` with ``mutation`` made (only the containers on its path are copied)."""
    return _replace(payload, mutation.path, lambda old: _mutated(old, mutation))


def _mutated(old: Any, mutation: Mutation) -> Any:
    if mutation.kind == "required":
        return {key: value for key, value in old.items() if key != mutation.value}
    if mutation.kind == "embedded" and mutation.inner is not None:
        return json.dumps(apply(parse_text(old).value, mutation.inner), ensure_ascii=False)
    return mutation.value


def _replace(value: Any, path: Path, change: Callable[[Any], Any]) -> Any:
    if not path:
        return change(value)
    head, rest = path[0], path[1:]
    copy: Any = list(value) if isinstance(value, list) else dict(value)
    copy[head] = _replace(value[head], rest, change)
    return copy


def _kind(mutation: Mutation) -> str:
    return _kind(mutation.inner) if mutation.inner is not None else mutation.kind


def mutations(
    valid: SearchStrategy[dict[str, Any]],
    document: dict[str, Any],
    embedded: Callable[[str], dict[str, Any]],
) -> SearchStrategy[tuple[dict[str, Any], str]]:
    """``(payload, pointer)`` pairs: a ``valid`` payload with one mutation, and where it shows."""
    return _mutations(valid, Sites(document, embedded))


#: The kinds of mutation, simplest first (hypothesis shrinks towards the first).
KINDS = ("required", "type", "enum", "format", "pattern", "minimum", "maximum", "minLength", "maxLength")
#: A wide integer taken modulo the number of choices spreads them evenly (a small ``sampled_from``
#: leans on its first items in hypothesis' early, small examples) and still shrinks towards the first.
_SPREAD = st.integers(0, 2**20)


@st.composite
def _mutations(draw: Any, valid: Any, sites: Sites) -> tuple[dict[str, Any], str]:
    payload = draw(valid)
    found = sites.of(payload)
    if not found:
        reject()
    offered = {_kind(m) for m in found}
    start = draw(_SPREAD) % len(KINDS)
    kind = next(k for k in KINDS[start:] + KINDS[:start] if k in offered)
    candidates = [m for m in found if _kind(m) == kind]
    inner = [m for m in candidates if m.inner is not None]
    if inner and len(inner) < len(candidates):  # as often inside an embedded document as outside
        candidates = inner if draw(_SPREAD) % 2 else [m for m in candidates if m.inner is None]
    mutation = candidates[draw(_SPREAD) % len(candidates)]
    return apply(payload, mutation), mutation.pointer
