"""RFC 6901 JSON Pointers: escaping tokens, joining paths, resolving a pointer in a document."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def escape(token: str | int) -> str:
    """Escape one reference token (``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo :func:`escape`."""
    return token.replace("~1", "/").replace("~0", "~")


def from_path(path: Iterable[str | int]) -> str:
    """The pointer of a path of keys and indices; the empty path is ``""`` (the whole document)."""
    return "".join("/" + escape(token) for token in path)


def to_path(pointer: str) -> list[str]:
    """The reference tokens of a pointer, unescaped (indices stay strings)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer must be empty or start with '/': {pointer!r}")
    return [unescape(token) for token in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> Any:
    """The value at ``pointer`` in ``document``; raises ``KeyError`` when it does not exist."""
    node = document
    for token in to_path(pointer):
        if isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                raise KeyError(pointer)
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            raise KeyError(pointer)
    return node
