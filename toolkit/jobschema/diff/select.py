"""``--ignore`` and ``--only``: glob patterns over JSON Pointers.

A pattern is a pointer whose tokens may hold ``*``, ``?`` and ``[...]`` (matching within one token),
and ``**`` (any number of tokens): ``/result/podList/pods/*/PodIP``. A pattern selects the places it
matches and everything below them.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from jobschema.diff.result import Change
from jobschema.pointer import to_path


def _tokens(pattern: str) -> list[str]:
    if pattern in ("", "/"):
        return []
    return to_path(pattern if pattern.startswith("/") else "/" + pattern)


def _prefix_match(pattern: list[str], path: list[str]) -> bool:
    """True when ``pattern`` matches ``path`` or one of its ancestors.

    Read token by token, keeping the set of places in ``path`` the tokens read so far can end at: each
    token is compared once per place (``**`` reaches every place from the first it is at), so a
    pattern of several ``**`` costs its length times the depth, never the depth to their power.
    """
    places = {0}
    for head in pattern:
        if head == "**":
            places = set(range(min(places), len(path) + 1))
        else:
            places = {i + 1 for i in sorted(places) if i < len(path) and fnmatchcase(path[i], head)}
        if not places:
            return False
    return True


def selects(patterns: Iterable[str], pointer: str | None) -> bool:
    """True when any pattern matches ``pointer`` or one of its ancestors."""
    if pointer is None:
        return False
    path = to_path(pointer)
    return any(_prefix_match(_tokens(pattern), path) for pattern in patterns)


def keep(change: Change, ignore: tuple[str, ...], only: tuple[str, ...]) -> bool:
    """Whether a change survives ``--ignore`` and ``--only`` (either side's pointer may match)."""
    return selected((change.left_pointer, change.right_pointer), ignore, only)


def selected(pointers: tuple[str | None, str | None], ignore: tuple[str, ...], only: tuple[str, ...]) -> bool:
    """Whether a change at ``pointers`` (left, right; ``None`` on a side without it) survives
    ``--ignore`` and ``--only``."""
    if ignore and any(selects(ignore, p) for p in pointers):
        return False
    return not only or any(selects(only, p) for p in pointers)
