"""The values a repeated key hides: redact writes every byte of its input it does not change, so a
value a later repeat of its key hides from the parsed document must be read by the same walk.

A document whose objects repeat a key is read once more for each earlier occurrence: view ``k``
takes, in every object, the ``k``-th value of each repeated key (its last when it has fewer), so
every value the text holds is in the parsed document or in one view, at the place a reader of that
occurrence would see it, beside the same siblings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

#: Most occurrences of one key in one object that are read (each costs a reading of the document).
MOST_REPEATS = 16


class TooManyRepeats(ValueError):
    """A key repeated more often than :data:`MOST_REPEATS` in one object."""

    def __init__(self) -> None:
        super().__init__(
            f"a key is repeated more than {MOST_REPEATS} times in one object; "
            "the values it hides cannot all be read: remove the repeats by hand"
        )


def hidden_places(text: str) -> Iterator[tuple[Any, Callable[[tuple[str, ...]], int | None]]]:
    """Each reading of ``text`` (valid JSON) with earlier occurrences of its repeated keys, and a
    test of whether a place in it lies under such an occurrence (how many steps lead to the key
    repeated, or None); none when no object repeats a key. Raises :class:`TooManyRepeats`."""
    most = _most_occurrences(text)
    if most > MOST_REPEATS:
        raise TooManyRepeats()
    for index in range(most - 1):
        hidden: set[tuple[int, str]] = set()
        view = json.loads(text, object_pairs_hook=_picking(index, hidden))
        yield view, _under(view, hidden)


def _under(view: Any, hidden: set[tuple[int, str]]) -> Callable[[tuple[str, ...]], int | None]:
    def test(place: tuple[str, ...]) -> int | None:
        node = view
        for depth, step in enumerate(place):
            if isinstance(node, dict) and (id(node), step) in hidden:
                return depth
            node = node[int(step)] if isinstance(node, list) else node[step]
        return None

    return test


def _most_occurrences(text: str) -> int:
    most = [1]

    def count(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, int] = {}
        for key, _value in pairs:
            seen[key] = seen.get(key, 0) + 1
        most[0] = max(most[0], *seen.values()) if seen else most[0]
        return {}

    json.loads(text, object_pairs_hook=count)
    return most[0]


def _picking(index: int, hidden: set[tuple[int, str]]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An object hook keeping the ``index``-th occurrence of each key (its last when it has fewer),
    adding ``(object id, key)`` to ``hidden`` where the occurrence kept is not the last."""

    def pick(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        picked: dict[str, Any] = {}
        seen: dict[str, int] = {}
        for key, value in pairs:
            count = seen.get(key, 0)
            seen[key] = count + 1
            if count <= index:
                picked[key] = value
        for key, count in seen.items():
            if count > index + 1:
                hidden.add((id(picked), key))
        return picked

    return pick
