"""Editing JSON text in place: replace a few scalar values and keep every other byte of the text.

Used by ``jobschema redact``, which must change a capture exactly where a secret was and nowhere else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol

from jobschema.inputs.locate import locate
from jobschema.pointer import to_path

_DECODER = json.JSONDecoder()


class Edit(Protocol):
    """One value to replace: where it is, what it was, and what it becomes."""

    @property
    def pointer(self) -> str: ...

    @property
    def old(self) -> Any: ...

    @property
    def new(self) -> Any: ...


def apply(value: Any, changes: Sequence[Edit]) -> Any:
    """``value`` with every change made, copying only the containers on the changed paths."""
    holder = [value]
    copied: set[int] = set()
    for change in changes:
        container: Any = holder
        path: list[str | int] = [0, *to_path(change.pointer)]
        for token in path[:-1]:
            key = int(token) if isinstance(container, list) else token
            child = container[key]
            if id(child) not in copied:
                child = child.copy()
                container[key] = child
                copied.add(id(child))
            container = child
        container[int(path[-1]) if isinstance(container, list) else path[-1]] = change.new
    return holder[0]


def splice(text: str, changes: Sequence[Edit], redacted: Any) -> str | None:
    """``text`` with the changed values replaced where they stand; None when that is not safe."""
    located = locate(text, [to_path(change.pointer) for change in changes])
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    edits: list[tuple[int, int, str]] = []
    for change in changes:
        place = tuple(to_path(change.pointer))
        if place not in located:
            return None
        line, column = located[place]
        start = starts[line - 1] + column - 1
        scalar = _scalar_at(text, start)
        if scalar is None or scalar[0] != change.old:
            return None
        end = scalar[1]
        edits.append((start, end, json.dumps(change.new, ensure_ascii=text[start:end].isascii())))
    pieces: list[str] = []
    at = 0
    for start, end, replacement in sorted(edits):
        pieces += [text[at:start], replacement]
        at = end
    new = "".join([*pieces, text[at:]])
    return new if _parses_to(new, redacted) else None


def _scalar_at(text: str, start: int) -> tuple[Any, int] | None:
    """The string or number token at ``start`` and where it ends; None for anything else."""
    if text[start : start + 1] in ("{", "[", ""):
        return None
    try:
        return _DECODER.raw_decode(text, start)
    except ValueError:
        return None


def _parses_to(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


def dump_like(value: Any, text: str) -> str:
    """``value`` as JSON in the style of ``text``: indentation, separators, escapes, ends, space around."""
    body = text.strip()
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', body)
    comma, colon = re.search(r",( ?)", bare), re.search(r":( ?)", bare)
    indent = _indent(body)
    separators = (
        "," + (comma[1] if comma and indent is None else ""),
        ":" + (colon[1] if colon else " "),
    )
    dumped = json.dumps(value, indent=indent, separators=separators, ensure_ascii=body.isascii())
    if "\r\n" in text:
        dumped = dumped.replace("\n", "\r\n")
    lead = text[: len(text) - len(text.lstrip())]
    return lead + dumped + text[len(text.rstrip()) :]


def _indent(body: str) -> int | str | None:
    lines = body.split("\n", 2)
    if len(lines) < 2:
        return None
    space = re.match(r"[ \t]*", lines[1])
    text = space.group() if space else ""
    return "\t" if "\t" in text else len(text)
