"""RFC 6901 JSON Pointers: escaping tokens, joining paths, resolving a pointer in a document."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: A place in a document as its reference tokens: object keys (str) and array indices (int).
Tokens = tuple[str | int, ...]


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
    return value_at(document, to_path(pointer))


def value_at(document: Any, tokens: Iterable[str | int]) -> Any:
    """The value at the reference tokens ``tokens`` in ``document``; ``KeyError`` when it does not exist."""
    node = document
    for token in tokens:
        if isinstance(node, list):
            index = token if isinstance(token, int) else int(token) if token.isdigit() else -1
            if not 0 <= index < len(node):
                raise KeyError(token)
            node = node[index]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            raise KeyError(token)
    return node
