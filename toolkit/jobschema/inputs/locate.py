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
from itertools import islice
from json.decoder import scanstring  # type: ignore[attr-defined]  # C speed, not in the stubs
from typing import Any

import orjson

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
    asked = [tuple(str(token) for token in place) for place in places]
    tree: dict[str, Any] = {}
    for place in asked:
        branch = tree
        for token in place:
            branch = branch.setdefault(token, {})
    found: dict[Place, tuple[int, int]] = {(): (1, 1)}
    if tree:
        _visit(value, tree, ((), 1, 0), found)
    located = {}
    for place in asked:
        end = len(place)
        while place[:end] not in found:
            end -= 1
        located[place] = found[place[:end]]
    return located


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
    for number, (index, token) in enumerate(members):
        before += _lines_between(node, start, index)
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
        return before + _lines_between(node, start, len(node)) + 2  # (and the two bracket lines)
    return before


def _lines_between(node: Any, start: int, end: int) -> int:
    """The lines orjson writes for the members ``start`` to ``end - 1`` of ``node``."""
    if end <= start:
        return 0
    between = node[start:end] if isinstance(node, list) else dict(islice(node.items(), start, end))
    return orjson.dumps(between, option=orjson.OPT_INDENT_2).count(b"\n") - 1


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
