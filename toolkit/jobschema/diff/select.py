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
    """True when ``pattern`` matches ``path`` or one of its ancestors."""
    if not pattern:
        return True
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_prefix_match(rest, path[i:]) for i in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], head) and _prefix_match(rest, path[1:])


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
