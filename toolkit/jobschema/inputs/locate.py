"""Map JSON Pointers back to line and column in the JSON text they came from.

One pass over the text finds every wanted pointer, stepping into only the values on the way to one
(everything else is skipped by the C JSON decoder); a pointer that does not exist in the text (a
missing required key, a place inside an embedded document) is located at its nearest existing
ancestor. Only payloads with findings pay for it.

Text that is exactly orjson's two-space writing of a parsed value needs no text at all
(:func:`locate_written`): its layout follows from the value, so a place's line is counted from
orjson's writing of the values before it, in C, each read once whatever the number of places.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from json.decoder import scanstring  # type: ignore[attr-defined]  # C speed, not in the stubs
from typing import Any

import orjson

from jobschema.text import ascii_escaped

#: A place in the text: its reference tokens, every one a string (array indices too).
Place = tuple[str, ...]

_WS = re.compile(r"[ \t\n\r]*")
#: Skips a whole value at C speed (NaN and Infinity included, as the text may hold them).
_DECODER = json.JSONDecoder()
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")


def _ws(text: str, i: int) -> int:
    """The offset after the whitespace at ``i``."""
    match = _WS.match(text, i)
    return match.end() if match else i


def _offsets(text: str, wanted: set[Place]) -> dict[Place, int]:
    found: dict[Place, int] = {}
    if not wanted:
        return found
    tokens: list[str] = []
    kinds: list[str] = []
    i = _ws(text, 0)
    while True:
        pointer = tuple(tokens)
        if pointer in wanted and pointer not in found:
            found[pointer] = i
            if len(found) == len(wanted):
                return found
        if pointer not in wanted:  # wanted holds every prefix: nothing wanted lies inside this value
            i, opened = _DECODER.raw_decode(text, i)[1], False
        else:
            i, opened = _open_value(text, i, tokens, kinds)
        if opened:
            continue
        i, more = _close_values(text, i, tokens, kinds)
        if not more:
            return found


def _open_value(text: str, i: int, tokens: list[str], kinds: list[str]) -> tuple[int, bool]:
    """Consume a scalar, or enter a non-empty container; True when a new member value starts."""
    char = text[i] if i < len(text) else ""
    if char in "{[":
        j = _ws(text, i + 1)
        if text[j : j + 1] in "}]":
            return j + 1, False
        kinds.append(char)
        if char == "{":
            key, j = _key(text, j)
            tokens.append(key)
        else:
            tokens.append("0")
        return j, True
    if char == '"':
        return scanstring(text, i + 1)[1], False
    match = _SCALAR.match(text, i)
    if match is None:
        raise ValueError(f"not JSON at offset {i}")
    return match.end(), False


def _key(text: str, i: int) -> tuple[str, int]:
    key, i = scanstring(text, i + 1)
    i = _ws(text, i) + 1  # the colon
    return key, _ws(text, i)


def _close_values(text: str, i: int, tokens: list[str], kinds: list[str]) -> tuple[int, bool]:
    """Step past separators and closing brackets; True when another member value starts."""
    while kinds:
        i = _ws(text, i)
        if text[i] == ",":
            i = _ws(text, i + 1)
            if kinds[-1] == "{":
                tokens[-1], i = _key(text, i)
            else:
                tokens[-1] = str(int(tokens[-1]) + 1)
            return i, True
        kinds.pop()
        tokens.pop()
        i += 1
    return i, False


def _prefixes(place: Place) -> list[Place]:
    """``place`` and each of its ancestors, nearest first."""
    return [place[:n] for n in range(len(place), -1, -1)]


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``offset``."""
    return line_columns(text, [offset])[offset]


def line_columns(text: str, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """``offset -> (line, column)`` for many offsets in one pass over ``text`` (linear in its length,
    whatever the number of offsets)."""
    found: dict[int, tuple[int, int]] = {}
    line, line_start, at = 1, 0, 0
    for offset in sorted(set(offsets)):
        newlines = text.count("\n", at, offset)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", at, offset) + 1
        at = offset
        found[offset] = (line, offset - line_start + 1)
    return found


def locate(text: str, places: Iterable[Sequence[str | int]]) -> dict[Place, tuple[int, int]]:
    """``place -> (line, column)`` of the value each place names (or its nearest ancestor), in one
    pass over ``text`` however many are asked for. A place is a sequence of reference tokens (keys,
    indices); the result is keyed by the place with every token a string. Text that is exactly
    orjson's two-space writing of a parsed value is better read from the value (:func:`locate_written`)."""
    wanted_places = [tuple(str(token) for token in place) for place in places]
    wanted = {prefix for place in wanted_places for prefix in _prefixes(place)}
    try:
        offsets = _offsets(text, wanted)
    except (ValueError, IndexError):
        return {}
    starts = {}
    for place in wanted_places:
        offset = next((offsets[p] for p in _prefixes(place) if p in offsets), None)
        if offset is not None:
            starts[place] = offset
    lines = line_columns(text, starts.values())
    return {place: lines[offset] for place, offset in starts.items()}


def locate_written(value: Any, places: Iterable[Sequence[str | int]]) -> dict[Place, tuple[int, int]]:
    """:func:`locate` of the text that is exactly orjson's two-space writing of ``value``
    (:attr:`jobschema.inputs.parse.Parsed.indented`), read from the value: a member starts one line
    below its container plus the lines of the members before it (orjson writes each member the same
    way wherever it sits, only indented deeper), at the column after its indent and key. The lines of
    the members before a place are counted in orjson's writing of them (C speed); the places are
    visited as one tree, so each container's members are written once whatever the number asked."""
    asked = _asked(places)
    found = _written(value, asked)
    return {place: found[_nearest(place, found)] for place in asked}


def locate_parsed(
    text: str, value: Any, places: Iterable[Sequence[str | int]]
) -> dict[Place, tuple[int, int]]:
    """:func:`locate` of ``text``, whose parsed value is ``value``: read from the value whenever the
    text is orjson's compact writing of it with whitespace added between the tokens, whatever the
    layout (``json.dumps`` with or without an indent, ``kubectl -o json``, ``jq --tab``, a server's
    answer as ``curl`` saved it, CRLF line ends), and by the text otherwise (escapes orjson would
    not write, numbers written otherwise).

    A place's offset in the compact writing is counted from the value as :func:`locate_written`
    counts lines (C speed, each member written once). The two texts are the same bytes once their
    whitespace is dropped (compared in full: a string's spaces are in both), so the n-th byte that
    is not whitespace in one is the n-th in the other: the text is read to each place a step at a
    time, each step dropping the whitespace of bytes not read before (linear in the text).
    ``tests/test_locate.py`` compares the two on random documents in random layouts. Text longer
    than :data:`LAYOUT_LIMIT` is searched."""
    asked = _asked(places)
    located = _by_layout(text, value, asked) if len(text) <= LAYOUT_LIMIT else None
    return located if located is not None else locate(text, asked)


#: Text longer than this (in characters) is searched: comparing it whole with orjson's writing
#: would hold several copies of it, where the search holds nothing and stops at the last place.
LAYOUT_LIMIT = 1 << 20


def _by_layout(text: str, value: Any, asked: list[Place]) -> dict[Place, tuple[int, int]] | None:
    """The places read from ``value``, or ``None`` when ``text`` is not orjson's compact writing of
    it with whitespace added between the tokens."""
    try:
        body = text.encode("utf-8")
        lined = _by_lines(text, body, value, asked) if b"\n" in body.rstrip(_WHITESPACE) else None
        if lined is not None:
            return lined
        plain = orjson.dumps(value)
    except (UnicodeEncodeError, orjson.JSONEncodeError):
        return None
    written = plain
    if _escapes(body) and (not plain.isascii() or b"\x7f" in plain):
        written = ascii_escaped(plain.decode("utf-8")).encode("ascii")
    exact = body.rstrip(_WHITESPACE) == written
    if not exact and body.translate(None, _WHITESPACE) != written.translate(None, b" "):
        return None
    found = _compact(value, asked)
    if written is not plain:
        found = _escaped_offsets(plain, found)
    offsets = sorted(set(found.values()))
    moved = dict(zip(offsets, offsets, strict=True)) if exact else _spaced(body, written, offsets)
    lines = _byte_line_columns(body, moved.values())
    return {place: lines[moved[found[_nearest(place, found)]]] for place in asked}


#: Whitespace within a line.
_SPACING = " \t\r"
#: Whitespace between JSON tokens (orjson's compact writing has none; a string may hold spaces).
_WHITESPACE = b" \t\r\n"
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
            solid_at += len(body[at:step].translate(None, _WHITESPACE))
            at = step
        moved[offset] = at = _skip_spaces(body, at)
    return moved


def _by_lines(text: str, body: bytes, value: Any, asked: list[Place]) -> dict[Place, tuple[int, int]] | None:
    """The places read from ``value`` when ``text`` holds, line for line, the tokens of orjson's
    two-space writing of it (any indent, spaces around the colons, CRLF line ends): a place's line
    is its line there (:func:`locate_written`) and its column is read from the text's own line."""
    written = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    if body.rstrip(_WHITESPACE).translate(None, _SPACING.encode()) != written.translate(None, b" "):
        return None
    found = _written(value, asked)
    nearest = {place: _nearest(place, found) for place in asked}
    lines = text.split("\n")
    columns: dict[Place, tuple[int, int]] = {}
    for near in set(nearest.values()):
        line, column = found[near]
        # orjson's column: its indent, then ``"key": `` for an object's member
        at = _value_column(lines[line - 1], column - 1 - 2 * len(near))
        if at is None:
            return None
        columns[near] = (line, at)
    return {place: columns[near] for place, near in nearest.items()}


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
    """:func:`line_columns` of UTF-8 ``body`` at byte offsets (each at a character's first byte), the
    column in characters."""
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


def _asked(places: Iterable[Sequence[str | int]]) -> list[Place]:
    return [tuple(str(token) for token in place) for place in places]


def _tree(asked: list[Place]) -> dict[str, Any]:
    """The places asked as one tree of tokens."""
    tree: dict[str, Any] = {}
    for place in asked:
        branch = tree
        for token in place:
            branch = branch.setdefault(token, {})
    return tree


def _nearest(place: Place, found: dict[Place, Any]) -> Place:
    """``place``, or its nearest ancestor that ``found`` holds (the root always is)."""
    end = len(place)
    while place[:end] not in found:
        end -= 1
    return place[:end]


def _written(value: Any, asked: list[Place]) -> dict[Place, tuple[int, int]]:
    """``place -> (line, column)`` in orjson's two-space writing of ``value``, for each place asked
    that ``value`` has and each ancestor on the way."""
    found: dict[Place, tuple[int, int]] = {(): (1, 1)}
    tree = _tree(asked)
    if tree:
        _visit(value, tree, ((), 1, 0), found)
    return found


def _compact(value: Any, asked: list[Place]) -> dict[Place, int]:
    """``place -> offset`` of its value in orjson's compact writing of ``value``, for each place
    asked that ``value`` has and each ancestor on the way."""
    found: dict[Place, int] = {(): 0}
    tree = _tree(asked)
    if tree:
        _visit_compact(value, tree, ((), 0), found)
    return found


def _visit_compact(
    node: Any, tree: dict[str, Any], where: tuple[Place, int], found: dict[Place, int], whole: bool = False
) -> int:
    """:func:`_visit` in orjson's compact writing: ``where`` is the node's place and the offset its
    writing starts at; ``whole``: return the length of that writing. A member is its key and colon
    (in an object), its value, and a comma unless it is the last."""
    if not (isinstance(node, dict | list) and node):
        return len(orjson.dumps(node))
    at, offset = where
    before = 1  # the opening bracket
    start = 0
    members = _asked_members(node, tree)
    items = _items(node)
    for number, (index, token) in enumerate(members):
        before += _bytes_between(node, items, start, index)
        keyed = 0 if isinstance(node, list) else _key_length(token) + 1
        place = (*at, token)
        found[place] = offset + before + keyed
        child = node[index] if isinstance(node, list) else node[token]
        later = whole or number + 1 < len(members)
        size = 0
        if tree[token]:
            size = _visit_compact(child, tree[token], (place, offset + before + keyed), found, later)
        elif later:
            size = len(orjson.dumps(child))
        before += keyed + size + 1  # (and its comma)
        start = index + 1
    if start == len(node):
        return before  # the last member's comma stands for the closing bracket
    return before + len(orjson.dumps(_slice(node, items, start, None))) - 1


def _bytes_between(node: Any, items: list[Any], start: int, end: int) -> int:
    """The bytes orjson writes for the members ``start`` to ``end - 1`` of ``node``, a comma after each."""
    if end <= start:
        return 0
    return len(orjson.dumps(_slice(node, items, start, end))) - 1


@lru_cache(maxsize=4096)
def _key_length(key: str) -> int:
    """The bytes of a key as orjson writes it (quoted, escaped), remembered: keys repeat."""
    return len(orjson.dumps(key))


def _visit(
    node: Any,
    tree: dict[str, Any],
    where: tuple[Place, int, int],
    found: dict[Place, tuple[int, int]],
    whole: bool = False,
) -> int:
    """Place the members of ``node`` that ``tree`` asks for (and theirs, below): ``where`` is the
    node's place, the line it starts on and how many containers deep it is. ``whole``: return the
    lines of ``node``'s whole writing (its parent places a later member after it); a member visited
    is counted by its own members, so no part of the value is written twice, and nothing after the
    last place asked for is written at all."""
    if not (isinstance(node, dict | list) and node):
        return 1  # a scalar, or an empty container: one line, nothing below it
    at, line, depth = where
    indent = 2 * (depth + 1)
    start, before = 0, 0
    members = _asked_members(node, tree)
    items = _items(node)
    for number, (index, token) in enumerate(members):
        before += _lines_between(node, items, start, index)
        place = (*at, token)
        column = indent + 1 if isinstance(node, list) else indent + len(_written_key(token)) + 3
        found[place] = (line + 1 + before, column)
        child = node[index] if isinstance(node, list) else node[token]
        later = whole or number + 1 < len(members)  # (the lines of this member are needed)
        if tree[token]:
            before += _visit(child, tree[token], (place, line + 1 + before, depth + 1), found, later)
        elif later:
            before += _lines(child)
        start = index + 1
    if whole:
        return before + _lines_between(node, items, start, len(node)) + 2  # (and the two bracket lines)
    return before


def _lines_between(node: Any, items: list[Any], start: int, end: int) -> int:
    """The lines orjson writes for the members ``start`` to ``end - 1`` of ``node``."""
    if end <= start:
        return 0
    return orjson.dumps(_slice(node, items, start, end), option=orjson.OPT_INDENT_2).count(b"\n") - 1


def _items(node: Any) -> list[Any]:
    """The members of the array or object ``node`` as a list to slice (an object's key-value pairs,
    listed once per object visited: slicing its items anew each time would be quadratic)."""
    return node if isinstance(node, list) else list(node.items())


def _slice(node: Any, items: list[Any], start: int, end: int | None) -> Any:
    """The members ``start`` to ``end - 1`` of ``node`` (``items``: :func:`_items`), as one of its kind."""
    return items[start:end] if isinstance(node, list) else dict(items[start:end])


def _lines(value: Any) -> int:
    """The lines orjson writes for ``value``."""
    if isinstance(value, dict | list) and value:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).count(b"\n") + 1
    return 1


def _asked_members(node: Any, tree: dict[str, Any]) -> list[tuple[int, str]]:
    """``(index, token)`` of each member of ``node`` that ``tree`` asks for and ``node`` has, in order."""
    if isinstance(node, dict):
        indices = dict(zip(node, range(len(node)), strict=True)) if len(tree) > 1 else None
        if indices is None:
            token = next(iter(tree))
            return [(list(node).index(token), token)] if token in node else []
        return sorted((indices[token], token) for token in tree if token in indices)
    if isinstance(node, list):
        return sorted(
            (int(token), token)
            for token in tree
            if token.isascii() and token.isdigit() and int(token) < len(node) and str(int(token)) == token
        )
    return []


@lru_cache(maxsize=4096)
def _written_key(key: str) -> str:
    """A key as orjson writes it (quoted, escaped; non-ASCII kept), remembered: keys repeat."""
    return orjson.dumps(key).decode()
