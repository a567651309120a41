"""A schema's secret marks and embedded documents by payload place: the cursor the secret walk
(:mod:`jobschema.secrets.walk`) reads the schema through."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from jobschema.schemas.annotated import ANY, EMBEDDED, Trie, compile_pruned

SECRET = "x-jobschema-secret"


class Marks:
    """One place of a schema's annotated places: the secret mark in force here (the first schema node
    that marks it decides; ``None``: none), the schema of the document embedded here, the places below."""

    __slots__ = ("children", "embedded", "secret_mark")

    def __init__(self, trie: Trie | None = None) -> None:
        nodes = trie.nodes if trie is not None else []
        self.secret_mark: bool | None = _first(nodes, SECRET, bool)
        self.embedded: str | None = _first(nodes, EMBEDDED, str)
        self.children: dict[object, Marks] = (
            {token: Marks(sub) for token, sub in trie.children.items()} if trie is not None else {}
        )

    def child(self, token: str | int) -> Marks:
        """The place below ``token`` (a key or an index): unmarked where nothing is annotated."""
        found = self.children.get(token) if isinstance(token, str) else None
        if found is None:
            found = self.children.get(ANY)
        return found if found is not None else NOTHING


def _first(nodes: list[dict[str, Any]], keyword: str, kind: type) -> Any:
    return next((node[keyword] for node in nodes if isinstance(node.get(keyword), kind)), None)


NOTHING = Marks()


def marks_for(document: dict[str, Any]) -> Marks:
    """The marks of a schema document."""
    return Marks(compile_pruned(document, (SECRET, EMBEDDED)))


@cache
def bundled_marks(name: str) -> Marks:
    """The marks of a bundled schema, built once."""
    from jobschema.schemas import registry

    return marks_for(registry.load(name).document)


def under(tokens: Sequence[object], marks: Marks) -> Marks:
    """A root whose place at ``tokens`` (:data:`~jobschema.schemas.annotated.ANY` for any index or
    key) has ``marks``: a schema's examples, marked by the schema itself."""
    root = marks
    for token in reversed(tokens):
        parent = Marks()
        parent.children = {token: root}
        root = parent
    return root
