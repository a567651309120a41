"""Where a schema's ``x-jobschema-*`` annotations (and ``deprecated``) apply in a payload.

The schema is compiled once into a trie of payload paths (``$ref``, ``allOf``, ``anyOf`` and
``oneOf`` followed; ``*`` for any array item or map value). Matching a payload then touches only
the annotated places, so the warn-only checks cost almost nothing on valid payloads.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jobschema.pointer import from_path
from jobschema.schemas.refs import local_target

EMBEDDED = "x-jobschema-embedded-schema"
KEYWORDS = (
    "x-jobschema-known-values",
    "x-jobschema-format",
    "x-jobschema-pattern",
    EMBEDDED,
    "x-jobschema-secret",
    "deprecated",
)
ANY = object()  # any array item, or any value of a map
MAX_DEPTH = 64


@dataclass
class Trie:
    """Annotated schema nodes at this payload place, and the places below it."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    children: dict[object, Trie] = field(default_factory=dict)

    def child(self, token: object) -> Trie:
        """The sub-trie for ``token``, created on first use."""
        return self.children.setdefault(token, Trie())


def compile_schema(schema: dict[str, Any], keywords: tuple[str, ...] = KEYWORDS) -> Trie:
    """The trie of the places in a payload where schema nodes carrying any of ``keywords`` apply."""
    root = Trie()
    _compile(schema, schema, root, (), 0, keywords)
    return root


def _compile(
    root: dict[str, Any],
    node: Any,
    trie: Trie,
    refs: tuple[str, ...],
    depth: int,
    keywords: tuple[str, ...],
) -> None:
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return
    if any(keyword in node for keyword in keywords):
        trie.nodes.append(node)
    ref = node.get("$ref")
    target = local_target(root, ref) if isinstance(ref, str) and ref not in refs else None
    if target is not None:
        _compile(root, target, trie, (*refs, str(ref)), depth + 1, keywords)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(keyword, ()):
            _compile(root, sub, trie, refs, depth + 1, keywords)
    for key, sub in (node.get("properties") or {}).items():
        _compile(root, sub, trie.child(key), refs, depth + 1, keywords)
    for keyword in ("additionalProperties", "items"):
        if isinstance(node.get(keyword), dict):
            _compile(root, node[keyword], trie.child(ANY), refs, depth + 1, keywords)


def _prune(trie: Trie) -> bool:
    """Drop branches without annotations; True when ``trie`` holds any."""
    trie.children = {token: sub for token, sub in trie.children.items() if _prune(sub)}
    return bool(trie.nodes or trie.children)


def compile_pruned(schema: dict[str, Any], keywords: tuple[str, ...] = KEYWORDS) -> Trie:
    """:func:`compile_schema` without the branches that lead to no annotation."""
    trie = compile_schema(schema, keywords)
    _prune(trie)
    return trie


Path = tuple[str | int, ...]


def match_paths(trie: Trie, value: Any, path: Path = ()) -> Iterator[tuple[Path, Any, dict[str, Any]]]:
    """Yield ``(path, value, schema node)`` for every annotated node that applies in ``value``; a path
    is a tuple of keys and indices, cheaper than a pointer when most matches find nothing to report."""
    for node in trie.nodes:
        yield path, value, node
    for token, sub in trie.children.items():
        if token is ANY:
            yield from _match_any(sub, value, path)
        elif isinstance(value, dict) and isinstance(token, str) and token in value:
            yield from match_paths(sub, value[token], (*path, token))


def _match_any(sub: Trie, value: Any, path: Path) -> Iterator[tuple[Path, Any, dict[str, Any]]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from match_paths(sub, item, (*path, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from match_paths(sub, item, (*path, key))


def nodes_along(trie: Trie, value: Any, tokens: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(depth, schema node)`` for each annotated node :func:`match_paths` reports at ``tokens[:depth]``,
    in its order, reading only the values on the way (not the whole payload)."""
    level = [trie]
    for depth in range(len(tokens) + 1):
        for sub in level:
            for node in sub.nodes:
                yield depth, node
        if depth == len(tokens):
            return
        token = tokens[depth]
        if isinstance(value, dict) and isinstance(token, str) and token in value:
            level = [
                child for sub in level for key, child in sub.children.items() if key is ANY or key == token
            ]
        elif isinstance(value, list) and 0 <= (index := _index(token)) < len(value):
            level = [child for sub in level for key, child in sub.children.items() if key is ANY]
            token = index
        else:
            return
        if not level:
            return
        value = value[token]


def _index(token: object) -> int:
    """An array index token (an int, or a string of digits, as JSON Pointers spell it), else -1."""
    if isinstance(token, int) and not isinstance(token, bool):
        return token
    return int(token) if isinstance(token, str) and token.isascii() and token.isdigit() else -1


Steps = tuple[object, ...]


def chains(trie: Trie) -> list[tuple[Steps, dict[str, Any]]]:
    """Each annotated node of ``trie`` with the tokens that lead to it (keys, or :data:`ANY`)."""
    found: list[tuple[Steps, dict[str, Any]]] = []
    stack: list[tuple[Trie, Steps]] = [(trie, ())]
    while stack:
        sub, steps = stack.pop()
        found += [(steps, node) for node in sub.nodes]
        stack += [(below, (*steps, token)) for token, below in sub.children.items()]
    return found


def values_along(value: Any, steps: Steps) -> list[Any]:
    """The values of ``value`` that :func:`match_paths` reaches through ``steps`` (one of
    :func:`chains`), without their paths: one list per step, no generator per level."""
    values = [value]
    for step in steps:
        if step is ANY:
            values = [item for one in values for item in _items(one)]
        else:
            values = [one[step] for one in values if isinstance(one, dict) and step in one]
        if not values:
            break
    return values


def _items(value: Any) -> Any:
    return value if isinstance(value, list) else value.values() if isinstance(value, dict) else ()


def matches(trie: Trie, value: Any) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """Yield ``(pointer, value, schema node)`` for every annotated node that applies in ``value``."""
    for path, item, node in match_paths(trie, value):
        yield from_path(path), item, node
