"""Map JSON Pointers back to line and column in the JSON text they came from.

One pass over the text finds every wanted pointer, stepping into only the values on the way to one
(everything else is skipped by the C JSON decoder); a pointer that does not exist in the text (a
missing required key, a place inside an embedded document) is located at its nearest existing
ancestor. Only payloads with findings pay for it.

Text that is exactly orjson's two-space writing of a parsed value needs no text at all
(:func:`locate_written`, counted in :mod:`jobschema.inputs.written`), and text that is orjson's
writing in any other whitespace layout is placed from its value too (:func:`locate_parsed`, by
:mod:`jobschema.inputs.layout`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]  # C speed, not in the stubs
from typing import Any

from jobschema.inputs.layout import by_layout
from jobschema.inputs.written import Place, asked_places, lines_of, nearest

__all__ = ["Place", "line_column", "line_columns", "locate", "locate_parsed", "locate_written"]

_WS = re.compile(r"[ \t\n\r]*")
#: Skips a whole value at C speed (NaN and Infinity included, as the text may hold them).
_DECODER = json.JSONDecoder()
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")


def _ws(text: str, i: int) -> int:
    """The offset after the whitespace at ``i``."""
    match = _WS.match(text, i)
    return match.end() if match else i


def _offsets(text: str, wanted: set[Place], repeats: bool = True) -> dict[Place, int]:
    """Where each wanted place's value starts. With ``repeats`` (the text may repeat a key), a place
    met again is taken again and the whole text is read; without, reading stops at the last place
    wanted."""
    found: dict[Place, int] = {}
    if not wanted:
        return found
    within: dict[Place, int] = {}  # (repeats) place -> where its parent's value started when found
    tokens: list[str] = []
    kinds: list[str] = []
    i = _ws(text, 0)
    while True:
        pointer = tuple(tokens)
        if pointer in wanted and (repeats or pointer not in found):
            found[pointer] = i
            if not repeats and len(found) == len(wanted):
                return found
            if repeats and pointer:
                within[pointer] = found[pointer[:-1]]
        if pointer not in wanted:  # wanted holds every prefix: nothing wanted lies inside this value
            i, opened = _DECODER.raw_decode(text, i)[1], False
        else:
            i, opened = _open_value(text, i, tokens, kinds)
        if opened:
            continue
        i, more = _close_values(text, i, tokens, kinds)
        if not more:
            return _read_last(found, within) if repeats else found


def _read_last(found: dict[Place, int], within: dict[Place, int]) -> dict[Place, int]:
    """The places found in the values a parser reads: where a key repeats, its last value. A place
    found inside an earlier value of a repeated key was found under another start of its parent
    than the parent's last, and is dropped (it is then placed at its nearest ancestor the last
    value has). Linear in the places found, whatever the repeats."""
    kept: dict[Place, int] = {}
    for place in sorted(found, key=len):
        if not place or (place[:-1] in kept and within[place] == kept[place[:-1]]):
            kept[place] = found[place]
    return kept


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
    text: str, places: Iterable[Sequence[str | int]], repeats: bool = True
) -> dict[Place, tuple[int, int]]:
    """``place -> (line, column)`` of the value each place names (or its nearest ancestor), in one
    pass over ``text`` however many are asked for. A place is a sequence of reference tokens (keys,
    indices); the result is keyed by the place with every token a string. Where an object repeats a
    key, the place is that of its last value, the one a parser reads; ``repeats=False`` (the text is
    known to repeat none) stops reading at the last place asked for. Text that is exactly orjson's
    two-space writing of a parsed value is better read from the value (:func:`locate_written`)."""
    wanted_places = [tuple(str(token) for token in place) for place in places]
    wanted = {prefix for place in wanted_places for prefix in _prefixes(place)}
    try:
        offsets = _offsets(text, wanted, repeats)
    except (ValueError, IndexError, RecursionError):  # (text that does not parse, or nests deeper
        return {}  # than the decoder skips: its findings are not placed)
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
    asked = asked_places(places)
    found = lines_of(value, asked)
    return {place: found[nearest(place, found)] for place in asked}


def locate_parsed(
    text: str, value: Any, places: Iterable[Sequence[str | int]], repeats: bool = True
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
    than :data:`LAYOUT_LIMIT` is searched (``repeats`` as :func:`locate` takes it: a text that repeats
    a key is never orjson's writing of its value, so it is always searched)."""
    asked = asked_places(places)
    located = by_layout(text, value, asked) if len(text) <= LAYOUT_LIMIT else None
    return located if located is not None else locate(text, asked, repeats)


#: Text longer than this (in characters) is searched: comparing it whole with orjson's writing
#: would hold several copies of it, where the search holds nothing and stops at the last place.
LAYOUT_LIMIT = 1 << 20
