"""Map JSON Pointers back to line and column in the JSON text they came from.

One pass over the text finds every wanted pointer, stepping into only the values on the way to one
(everything else is skipped by the C JSON decoder); a pointer that does not exist in the text (a
missing required key, a place inside an embedded document) is located at its nearest existing
ancestor. Only payloads with findings pay for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from json.decoder import scanstring

from jobschema.pointer import from_path, to_path

_WS = re.compile(r"[ \t\n\r]*")
#: Skips a whole value at C speed (NaN and Infinity included, as the text may hold them).
_DECODER = json.JSONDecoder()
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")


def _offsets(text: str, wanted: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    if not wanted:
        return found
    tokens: list[str | int] = []
    kinds: list[str] = []
    i = _WS.match(text, 0).end()
    while True:
        pointer = from_path(tokens)
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


def _open_value(text: str, i: int, tokens: list[str | int], kinds: list[str]) -> tuple[int, bool]:
    """Consume a scalar, or enter a non-empty container; True when a new member value starts."""
    char = text[i] if i < len(text) else ""
    if char in "{[":
        j = _WS.match(text, i + 1).end()
        if text[j : j + 1] in "}]":
            return j + 1, False
        kinds.append(char)
        if char == "{":
            key, j = _key(text, j)
            tokens.append(key)
        else:
            tokens.append(0)
        return j, True
    if char == '"':
        return scanstring(text, i + 1)[1], False
    match = _SCALAR.match(text, i)
    if match is None:
        raise ValueError(f"not JSON at offset {i}")
    return match.end(), False


def _key(text: str, i: int) -> tuple[str, int]:
    key, i = scanstring(text, i + 1)
    i = _WS.match(text, i).end() + 1  # the colon
    return key, _WS.match(text, i).end()


def _close_values(text: str, i: int, tokens: list[str | int], kinds: list[str]) -> tuple[int, bool]:
    """Step past separators and closing brackets; True when another member value starts."""
    while kinds:
        i = _WS.match(text, i).end()
        if text[i] == ",":
            i = _WS.match(text, i + 1).end()
            if kinds[-1] == "{":
                tokens[-1], i = _key(text, i)
            else:
                tokens[-1] = int(tokens[-1]) + 1
            return i, True
        kinds.pop()
        tokens.pop()
        i += 1
    return i, False


def _prefixes(pointer: str) -> list[str]:
    path = to_path(pointer)
    return [from_path(path[:n]) for n in range(len(path), -1, -1)]


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


def locate(text: str, pointers: Iterable[str]) -> dict[str, tuple[int, int]]:
    """``pointer -> (line, column)`` of the value each pointer names (or its nearest ancestor), in one
    pass over ``text`` however many pointers are asked for."""
    pointers = list(pointers)
    wanted = {prefix for pointer in pointers for prefix in _prefixes(pointer)}
    try:
        offsets = _offsets(text, wanted)
    except (ValueError, IndexError):
        return {}
    starts = {}
    for pointer in pointers:
        offset = next((offsets[p] for p in _prefixes(pointer) if p in offsets), None)
        if offset is not None:
            starts[pointer] = offset
    places = line_columns(text, starts.values())
    return {pointer: places[offset] for pointer, offset in starts.items()}
