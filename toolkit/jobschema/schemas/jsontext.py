"""Changing the members of objects in a hand-written JSON file and keeping every other byte of it.

The version annotations are written into the hand-authored schemas, whose layout (arrays of words on
one line, objects on many) is part of how people read them: :func:`set_members` replaces the members
of given names in given objects, adding new ones after an object's last member, in its indentation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # C speed, not in the stubs
from typing import Any

from jobschema.pointer import escape

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


@dataclass
class Member:
    """One member of an object in the text: where its key starts and its value ends."""

    key: str
    start: int
    value_start: int
    end: int


@dataclass
class Span:
    """One object of the text: its braces and members."""

    start: int
    end: int
    members: list[Member] = field(default_factory=list)


def objects(text: str) -> dict[str, Span]:
    """Every object of the JSON ``text`` by its JSON Pointer."""
    found: dict[str, Span] = {}
    _value(text, _skip(text, 0), "", found)
    return found


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def _value(text: str, at: int, pointer: str, found: dict[str, Span]) -> int:
    char = text[at]
    if char == "{":
        return _object(text, at, pointer, found)
    if char == "[":
        at, index = _skip(text, at + 1), 0
        while text[at] != "]":
            at = _skip(text, _value(text, at, f"{pointer}/{index}", found))
            index += 1
            if text[at] == ",":
                at = _skip(text, at + 1)
        return at + 1
    return int(_DECODER.raw_decode(text, at)[1])


def _object(text: str, at: int, pointer: str, found: dict[str, Span]) -> int:
    span = Span(at, at)
    at = _skip(text, at + 1)
    while text[at] != "}":
        start = at
        key, at = scanstring(text, at + 1)
        at = _skip(text, _skip(text, at) + 1)  # the colon
        value_start = at
        at = _value(text, at, f"{pointer}/{escape(key)}", found)
        span.members.append(Member(key, start, value_start, at))
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    span.end = at + 1
    found[pointer] = span
    return at + 1


def dumps(value: Any) -> str:
    """A member's value on one line, as the schemas write short values."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def set_members(
    text: str,
    changes: Mapping[str, Mapping[str, Any]],
    names: frozenset[str],
    anchors: Mapping[str, str] | None = None,
) -> str:
    """``text`` with the members named in ``names`` of each object in ``changes`` (by pointer) set
    to the values given there: a member not given is removed, one given is written after the object's
    last other member, or after the member ``anchors`` names for that object (in place when they
    already stand there with those values)."""
    spans = objects(text)
    edits: list[tuple[int, int, str]] = []
    for pointer in sorted(
        set(changes) | {p for p, s in spans.items() if any(m.key in names for m in s.members)}
    ):
        span = spans.get(pointer)
        if span is None:
            raise KeyError(f"no object at {pointer or '(root)'}")
        anchor = (anchors or {}).get(pointer)
        edits += _edits(text, span, dict(changes.get(pointer, {})), names, anchor)
    return _apply(text, edits)


def _edits(
    text: str, span: Span, wanted: dict[str, Any], names: frozenset[str], anchor: str | None
) -> list[tuple[int, int, str]]:
    current = {m.key: json.loads(text[m.value_start : m.end]) for m in span.members if m.key in names}
    kept = [m for m in span.members if m.key not in names]
    last = next((m for m in kept if m.key == anchor), kept[-1] if kept else None)
    at = span.members.index(last) + 1 if last is not None else 0
    in_place = [m.key for m in span.members[at : at + len(current)]] == list(current)
    if current == wanted and list(current) == list(wanted) and in_place:
        return []
    edits = [_removal(text, span, m) for m in span.members if m.key in names]
    if wanted:
        if last is None:
            raise ValueError("an object of annotations only cannot be written")
        inline = "\n" not in text[span.start : span.end]
        line_start = text.rfind("\n", 0, last.start) + 1
        indent = text[line_start : last.start]
        joint = ", " if inline else f",\n{indent}"
        added = "".join(f"{joint}{json.dumps(key)}: {dumps(value)}" for key, value in wanted.items())
        edits.append((last.end, last.end, added))
    return edits


def _removal(text: str, span: Span, member: Member) -> tuple[int, int, str]:
    """The text of ``member`` with the comma and space that tie it to the member before it (or, for
    the first member, to the one after it)."""
    index = span.members.index(member)
    if index > 0:
        return (span.members[index - 1].end, member.end, "")
    if len(span.members) > 1:
        return (member.start, span.members[1].start, "")
    return (member.start, member.end, "")


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    pieces, at = [], 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1] != edit[0])):
        if start < at:
            raise ValueError("overlapping edits")
        pieces += [text[at:start], replacement]
        at = end
    return "".join([*pieces, text[at:]])
