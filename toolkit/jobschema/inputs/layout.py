"""Placing values in JSON text of any whitespace layout from the parsed value, without tokenizing
the text (:func:`by_layout`, behind :func:`jobschema.inputs.locate.locate_parsed`).

Text that is orjson's compact writing of its value with whitespace added between the tokens is,
without its whitespace, the same bytes as that writing, so the n-th byte that is not whitespace in
one is the n-th in the other: a place's offset is counted in the writing
(:func:`jobschema.inputs.written.offsets_of`) and the text read forward to it. Text that holds
orjson's two-space lines in another indent takes each place's line from that writing
(:func:`jobschema.inputs.written.lines_of`) and its column from its own line. Text written with
every character beyond ASCII escaped (``json.dumps``' default) is compared with the writing escaped
the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson

from jobschema.inputs.written import WHITESPACE, Place, lines_of, nearest, offsets_of, same_tokens
from jobschema.text import ascii_escaped


def by_layout(text: str, value: Any, asked: list[Place]) -> dict[Place, tuple[int, int]] | None:
    """The places read from ``value``, or ``None`` when ``text`` is not orjson's compact writing of
    it with whitespace added between the tokens."""
    try:
        body = text.encode("utf-8")
        trimmed = body.rstrip(WHITESPACE)
        lined = _by_lines(text, trimmed, value, asked) if b"\n" in trimmed else None
        if lined is not None:
            return lined
        plain = orjson.dumps(value)
    except (UnicodeEncodeError, orjson.JSONEncodeError):
        return None
    written = plain
    if _escapes(body) and (not plain.isascii() or b"\x7f" in plain):
        written = ascii_escaped(plain.decode("utf-8")).encode("ascii")
    exact = trimmed == written
    if not exact and not same_tokens(body, written):
        return None
    found = offsets_of(value, asked)
    if written is not plain:
        found = _escaped_offsets(plain, found)
    offsets = sorted(set(found.values()))
    moved = dict(zip(offsets, offsets, strict=True)) if exact else _spaced(body, written, offsets)
    lines = _byte_line_columns(body, moved.values())
    return {place: lines[moved[found[nearest(place, found)]]] for place in asked}


#: Whitespace within a line.
_SPACING = " \t\r"
_SPACES = re.compile(rb"[ \t\r\n]*")


def _spaced(body: bytes, written: bytes, offsets: list[int]) -> dict[int, int]:
    """``offset in written -> offset in body`` of the same token character, for sorted ``offsets``:
    the two are equal without whitespace, so the n-th other byte of one is the n-th of the other."""
    moved: dict[int, int] = {}
    at = solid_at = 0  # an offset in body, and how many bytes before it are not whitespace
    last = solid = 0  # the same in written (whose only whitespace is spaces in strings)
    for offset in offsets:
        solid += offset - last - written.count(b" ", last, offset)
        last = offset
        while solid_at < solid:  # each step reads only bytes not read before
            at = _skip_spaces(body, at)
            step = at + solid - solid_at
            solid_at += len(body[at:step].translate(None, WHITESPACE))
            at = step
        moved[offset] = at = _skip_spaces(body, at)
    return moved


def _by_lines(
    text: str, trimmed: bytes, value: Any, asked: list[Place]
) -> dict[Place, tuple[int, int]] | None:
    """The places read from ``value`` when ``text`` (``trimmed``: its bytes without the whitespace
    that ends them) holds, line for line, the tokens of orjson's two-space writing of it (any
    indent, spaces around the colons, CRLF line ends): a place's line is its line there
    (:func:`~jobschema.inputs.written.lines_of`) and its column is read from the text's own line."""
    if not same_tokens(trimmed, orjson.dumps(value, option=orjson.OPT_INDENT_2), _SPACING.encode()):
        return None
    found = lines_of(value, asked)
    near_of = {place: nearest(place, found) for place in asked}
    lines = text.split("\n")
    columns: dict[Place, tuple[int, int]] = {}
    for near in set(near_of.values()):
        line, column = found[near]
        # orjson's column: its indent, then ``"key": `` for an object's member
        at = _value_column(lines[line - 1], column - 1 - 2 * len(near))
        if at is None:
            return None
        columns[near] = (line, at)
    return {place: columns[near] for place, near in near_of.items()}


def _value_column(line: str, keyed: int) -> int | None:
    """The 1-based column of the value in ``line``: after its indent and, when ``keyed`` (the
    characters of ``"key": `` in orjson's writing), after the key and its colon (the whitespace
    skipped is the whitespace the lines were compared without, carriage returns too)."""
    at = len(line) - len(line.lstrip(_SPACING))
    if keyed:
        at += keyed - 2  # the key as written, quotes included (the same characters as orjson's)
        at = len(line) - len(line[at:].lstrip(_SPACING))
        if line[at : at + 1] != ":":
            return None
        at = len(line) - len(line[at + 1 :].lstrip(_SPACING))
    return at + 1 if at < len(line) else None


def _escapes(body: bytes) -> bool:
    """Whether ``body`` may be written as ``json.dumps`` writes by default, DEL and every character
    beyond ASCII escaped (it holds neither)."""
    return body.isascii() and b"\x7f" not in body


def _escaped_offsets(plain: bytes, found: dict[Place, int]) -> dict[Place, int]:
    """Offsets in orjson's writing ``plain`` moved to where they stand once every character beyond
    ASCII (and DEL) is escaped (each offset is a token's first byte, so the writing before it is
    whole characters)."""
    moved: dict[int, int] = {}
    at = shift = 0
    for offset in sorted(set(found.values())):
        part = plain[at:offset]
        if not part.isascii() or b"\x7f" in part:
            shift += len(ascii_escaped(part.decode("utf-8"))) - len(part)
        moved[offset] = offset + shift
        at = offset
    return {place: moved[offset] for place, offset in found.items()}


def _skip_spaces(body: bytes, at: int) -> int:
    return _SPACES.match(body, at).end()  # type: ignore[union-attr]  # (it matches the empty string)


def _byte_line_columns(body: bytes, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """:func:`jobschema.inputs.locate.line_columns` of UTF-8 ``body`` at byte offsets (each at a
    character's first byte), the column in characters."""
    found: dict[int, tuple[int, int]] = {}
    ascii_only = body.isascii()
    line, start, at = 1, 0, 0
    before = start_before = 0  # the characters before ``at`` and before the line's start
    for offset in sorted(set(offsets)):
        newlines = body.count(b"\n", at, offset)
        if newlines:
            line += newlines
            start = body.rfind(b"\n", at, offset) + 1
            start_before = before + (start - at if ascii_only else _characters(body[at:start]))
        before += offset - at if ascii_only else _characters(body[at:offset])
        at = offset
        found[offset] = (line, before - start_before + 1)
    return found


def _characters(part: bytes) -> int:
    return len(part.decode("utf-8"))
