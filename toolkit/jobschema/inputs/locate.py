"""Map JSON Pointers back to line and column in the JSON text they came from.

One pass over the text finds every wanted pointer, stepping into only the values on the way to one
(everything else is skipped by the C JSON decoder; in text that is exactly orjson's two-space
writing, each place is found by searching for its key, or for the lines that end the items before
it); a pointer that does not exist in the text (a missing required key, a place inside an embedded
document) is located at its nearest existing ancestor. Only payloads with findings pay for it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]  # C speed, not in the stubs

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


#: More members asked of one object than this, and one walk of the whole text is cheaper than a
#: search from the object's start for each (:func:`locate`).
_SEARCHED_MEMBERS = 16


def _searchable(wanted: set[Place]) -> bool:
    """True unless some object has more than :data:`_SEARCHED_MEMBERS` of its members asked for."""
    asked = Counter(place[:-1] for place in wanted if place and not place[-1].isdigit())
    return not asked or max(asked.values()) <= _SEARCHED_MEMBERS


def _indented_offsets(text: str, wanted: set[Place]) -> dict[Place, int]:
    """:func:`_offsets` of text that is exactly orjson's two-space writing: each place is reached by
    ``find`` alone. A value ``d`` containers deep starts its members on lines of ``2d + 2`` spaces
    and ends at the first line of ``2d`` spaces with its closing bracket, and no string holds a
    newline, so a member is found by its key's writing and an item by skipping the items before it
    (each array's items read once, however many of them are asked for)."""
    found: dict[Place, int] = {(): _ws(text, 0)}
    items: dict[int, list[int]] = {}  # an array's offset -> where its first items start, so far
    ends: dict[int, int] = {}  # an object's offset -> where it ends
    for place in sorted(wanted, key=len):
        parent = found.get(place[:-1]) if place else None
        if parent is not None:
            at = _member(text, parent, len(place) - 1, place[-1], (items, ends))
            if at is not None:
                found[place] = at
    return found


def _member(
    text: str, i: int, depth: int, token: str, seen: tuple[dict[int, list[int]], dict[int, int]]
) -> int | None:
    """Where member ``token`` of the container at ``i`` (``depth`` deep) starts, if it has one;
    ``seen``: the item starts of the arrays and the ends of the objects read so far (each read once)."""
    items, ends = seen
    opener = text[i : i + 1]
    if opener not in ("{", "[") or text[i + 1 : i + 2] in ("}", "]"):
        return None  # a scalar, or an empty container
    indent = "\n" + "  " * (depth + 1)
    if opener == "{":
        end = ends.get(i)
        if end is None:
            end = ends[i] = _end(text, i, depth)
        key = f"{indent}{orjson.dumps(token).decode()}: "
        at = text.find(key, i, end)  # (within the object: a member of another one is not it)
        return None if at < 0 else at + len(key)
    if not (token.isascii() and token.isdigit()):
        return None
    starts = items.setdefault(i, [i + 1 + len(indent)])
    while len(starts) <= int(token):
        after = _end(text, starts[-1], depth + 1)
        if text[after : after + 1] != ",":
            return None  # fewer items
        starts.append(after + 1 + len(indent))
    return starts[int(token)]


def _end(text: str, i: int, depth: int) -> int:
    """The offset just after the value at ``i`` (``depth`` deep) in two-space indented text."""
    closer = {"{": "}", "[": "]"}.get(text[i : i + 1])
    if closer is None or text[i + 1 : i + 2] == closer:  # a scalar (one line), or {} / []
        if closer is not None:
            return i + 2
        line_end = text.find("\n", i)
        line_end = len(text) if line_end < 0 else line_end
        return line_end - 1 if text[line_end - 1 : line_end] == "," else line_end
    close = text.find(f"\n{'  ' * depth}{closer}", i)
    return len(text) if close < 0 else close + 2 + 2 * depth


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


def locate(
    text: str, places: Iterable[Sequence[str | int]], indented: bool = False
) -> dict[Place, tuple[int, int]]:
    """``place -> (line, column)`` of the value each place names (or its nearest ancestor), in one
    pass over ``text`` however many are asked for. A place is a sequence of reference tokens (keys,
    indices); the result is keyed by the place with every token a string. ``indented``: ``text`` is
    exactly orjson's two-space writing of its value (as the parser found), so values are skipped
    without being parsed."""
    wanted_places = [tuple(str(token) for token in place) for place in places]
    wanted = {prefix for place in wanted_places for prefix in _prefixes(place)}
    try:
        offsets = (
            _indented_offsets(text, wanted) if indented and _searchable(wanted) else _offsets(text, wanted)
        )
    except (ValueError, IndexError):
        return {}
    starts = {}
    for place in wanted_places:
        offset = next((offsets[p] for p in _prefixes(place) if p in offsets), None)
        if offset is not None:
            starts[place] = offset
    lines = line_columns(text, starts.values())
    return {place: lines[offset] for place, offset in starts.items()}
