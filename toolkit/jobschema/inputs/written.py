"""Where places stand in orjson's writing of a parsed value, counted from the value alone: in its
two-space writing (line and column, :func:`lines_of`) and in its compact writing (the offset of each
value, :func:`offsets_of`).

A member starts after its container's opening plus the writing of the members before it (orjson
writes a member the same way wherever it sits, only indented deeper). That writing is measured in
orjson's own writing of those members, in C; the places asked are visited as one tree, so each
container's members are written once whatever the number of places, and nothing after the last
place is written at all. :func:`same_tokens` says whether a text is that writing in another layout
(the parser's proof that no pair was dropped, and the layout routes' of where the text's places are).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import orjson

#: A place in the text: its reference tokens, every one a string (array indices too).
Place = tuple[str, ...]


#: Whitespace between JSON tokens.
WHITESPACE = b" \t\r\n"


def same_tokens(data: bytes, written: bytes, spacing: bytes = WHITESPACE) -> bool:
    """True when ``data`` without its ``spacing`` is ``written`` (orjson's writing of its value,
    whose only whitespace beside line breaks is spaces: indents, and spaces in strings) without its
    spaces: another layout of the same tokens, so no pair was dropped and every value reads back as
    written (one pass over the text; counting colons takes two). Keeping line breaks out of
    ``spacing`` also asks for the same lines."""
    solid = written.translate(None, b" ") if b" " in written else written
    return data.translate(None, spacing) == solid


def asked_places(places: Iterable[Sequence[str | int]]) -> list[Place]:
    """Each place with every token a string."""
    return [tuple(str(token) for token in place) for place in places]


def _tree(asked: list[Place]) -> dict[str, Any]:
    """The places asked as one tree of tokens."""
    tree: dict[str, Any] = {}
    for place in asked:
        branch = tree
        for token in place:
            branch = branch.setdefault(token, {})
    return tree


def nearest(place: Place, found: dict[Place, Any]) -> Place:
    """``place``, or its nearest ancestor that ``found`` holds (the root always is)."""
    end = len(place)
    while place[:end] not in found:
        end -= 1
    return place[:end]


def lines_of(value: Any, asked: list[Place]) -> dict[Place, tuple[int, int]]:
    """``place -> (line, column)`` in orjson's two-space writing of ``value``, for each place asked
    that ``value`` has and each ancestor on the way."""
    found: dict[Place, tuple[int, int]] = {(): (1, 1)}
    tree = _tree(asked)
    if tree:
        _visit(value, tree, ((), 1, 0), found)
    return found


def offsets_of(value: Any, asked: list[Place]) -> dict[Place, int]:
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
    values = _values(node)
    for number, (index, token) in enumerate(members):
        before += _lines_between(values, start, index)
        place = (*at, token)
        column = indent + 1 if isinstance(node, list) else indent + len(_written_key(token)) + 3
        found[place] = (line + 1 + before, column)
        child = values[index]
        later = whole or number + 1 < len(members)  # (the lines of this member are needed)
        if tree[token]:
            before += _visit(child, tree[token], (place, line + 1 + before, depth + 1), found, later)
        elif later:
            before += _lines(child)
        start = index + 1
    if whole:
        return before + _lines_between(values, start, len(node)) + 2  # (and the two bracket lines)
    return before


def _lines_between(values: list[Any], start: int, end: int) -> int:
    """The lines orjson writes for the members ``start`` to ``end - 1`` of a container whose member
    values are ``values`` (:func:`_values`)."""
    if end <= start:
        return 0
    return orjson.dumps(values[start:end], option=orjson.OPT_INDENT_2).count(b"\n") - 1


def _values(node: Any) -> list[Any]:
    """The member values of the array or object ``node``, listed once per container visited.

    An object's member takes the lines of its value (its key stands on the value's first line),
    as an array's item does: the lines of some members are those of an array of their values, a
    slice of this list, with no object built for the slice nor its keys written."""
    return node if isinstance(node, list) else list(node.values())


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
