"""Editing JSON text in place: replace a few scalar values and keep every other byte of the text.

Used by ``jobschema redact``, which must change a capture exactly where a secret was and nowhere else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from jobschema.inputs.locate import locate
from jobschema.pointer import to_path

_DECODER = json.JSONDecoder()
_SURROGATE = re.compile("[\ud800-\udfff]")


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
        edits.append((start, end, dumps(change.new, text[start:end].isascii())))
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


@dataclass(frozen=True)
class Number:
    """A JSON number as its text has it (``1.50``, ``1E2``, ``-0``, 30 significant digits)."""

    text: str


def load_numbers(text: str) -> Any:
    """The JSON ``text`` parsed with every number a :class:`Number` (for :func:`dump_like`)."""
    return json.loads(text, parse_int=Number, parse_float=Number)


def dump_like(value: Any, text: str) -> str:
    """``value`` as JSON in the style of ``text``: indentation, separators, escapes, ends, space around;
    a :class:`Number` as it is written."""
    body = text.strip()
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', body)
    comma, colon = re.search(r",( ?)", bare), re.search(r":( ?)", bare)
    indent = _indent(body)
    style = _Style(
        None if indent is None else indent if isinstance(indent, str) else " " * indent,
        "," + (comma[1] if comma and indent is None else ""),
        ":" + (colon[1] if colon else " "),
        body.isascii(),
    )
    parts: list[str] = []
    _dump(value, style, 0, parts)
    dumped = "".join(parts)
    if "\r\n" in text:
        dumped = dumped.replace("\n", "\r\n")
    lead = text[: len(text) - len(text.lstrip())]
    return lead + dumped + text[len(text.rstrip()) :]


@dataclass(frozen=True)
class _Style:
    indent: str | None
    comma: str
    colon: str
    ascii: bool


def _dump(value: Any, style: _Style, depth: int, parts: list[str]) -> None:
    """Append ``value`` written as ``json.dumps`` writes it in ``style`` (numbers kept as written)."""
    if isinstance(value, Number):
        parts.append(value.text)
    elif isinstance(value, dict | list) and value:
        opening, closing = "{}" if isinstance(value, dict) else "[]"
        inner = None if style.indent is None else "\n" + style.indent * (depth + 1)
        parts.append(opening)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for index, (key, item) in enumerate(items):
            if index:
                parts.append(style.comma)
            if inner is not None:
                parts.append(inner)
            if isinstance(value, dict):
                parts += [dumps(key, style.ascii), style.colon]
            _dump(item, style, depth + 1, parts)
        if style.indent is not None:
            parts.append("\n" + style.indent * depth)
        parts.append(closing)
    else:
        parts.append(dumps(value, style.ascii))


def dumps(value: Any, ascii: bool) -> str:
    """``value`` as JSON, non-ASCII characters escaped or not; a lone surrogate (the value of a
    ``\\ud800`` escape) is always an escape, since UTF-8 cannot hold it."""
    dumped = json.dumps(value, ensure_ascii=ascii)
    return dumped if ascii else _SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", dumped)


def _indent(body: str) -> int | str | None:
    lines = body.split("\n", 2)
    if len(lines) < 2:
        return None
    space = re.match(r"[ \t]*", lines[1])
    text = space.group() if space else ""
    return "\t" if "\t" in text else len(text)
