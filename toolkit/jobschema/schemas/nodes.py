"""Every schema object of a document, where a schema stands (not the values of ``enum``, ``const``,
``examples``, ...; a property *named* ``$ref`` or ``pattern`` is a name, not a keyword), and the
checks made on a schema file before any command uses it: each local ``$ref`` resolves, each pattern
is a regular expression; and :func:`compiled`, the one way a schema is compiled by jsonschema-rs
here, which never follows a reference to another document."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from jobschema.pointer import escape
from jobschema.schemas.refs import local_target

#: Keywords whose value is a map of names to schemas (a name there is no keyword).
NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})

#: Keywords whose value is a JSON value, not a schema.
VALUES = frozenset({"enum", "const", "default", "examples", "example", "required"})


def schema_nodes(document: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer, node)`` of every object of ``document`` that stands where a schema does, in document
    order; extension keywords (``x-…``) and the values of :data:`VALUES` are not entered. Any depth
    (an explicit stack)."""
    stack: list[tuple[Any, str]] = [(document, pointer)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, list):
            stack.extend((item, f"{at}/{index}") for index, item in reversed(list(enumerate(node))))
            continue
        if not isinstance(node, dict):
            continue
        yield at, node
        for key, value in reversed(list(node.items())):
            if key in VALUES or key.startswith("x-") or not isinstance(value, dict | list):
                continue
            if key in NAMED_SCHEMAS and isinstance(value, dict):
                stack.extend(
                    (item, f"{at}/{escape(key)}/{escape(name)}")
                    for name, item in reversed(list(value.items()))
                )
            else:
                stack.append((value, f"{at}/{escape(key)}"))


def local_problems(document: Any) -> Iterator[str]:
    """``AT: PROBLEM`` for each local ``$ref`` (``#/…``) that names nothing in ``document`` and each
    ``pattern`` (or ``patternProperties`` name) that is no regular expression to jsonschema-rs (what
    ``jobschema validate`` compiles schemas with). References to other documents and to anchors are
    not followed (no file is read, no URL fetched)."""
    for at, node in schema_nodes(document):
        ref = node.get("$ref")
        if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")) and not _resolves(document, ref):
            yield f'{at or "/"}: $ref "{ref}" names nothing in the document'
        pattern = node.get("pattern")
        if isinstance(pattern, str) and (problem := _regex_problem({"pattern": pattern})):
            yield f"{at}/pattern: {problem}"
        named = node.get("patternProperties")
        for name in named if isinstance(named, dict) else ():
            if problem := _regex_problem({"patternProperties": {name: {}}}):
                yield f"{at}/patternProperties/{escape(name)}: {problem}"


def _resolves(document: Any, ref: str) -> bool:
    """A pointer in a URI fragment may be percent-encoded (``#/$defs/a%20b``)."""
    return local_target(document, ref) is not None or local_target(document, unquote(ref)) is not None


class ForeignReference(ValueError):
    """A schema refers to another document (a file, a URL), which is never read: reading what a
    schema names would read any file (``file:///dev/zero``) or send a request to any host."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"it refers to another document, {uri!r}, which is not read")
        self.uri = uri


def compiled(document: Any, **options: Any) -> Any:
    """jsonschema-rs's validator of ``document`` (``options`` as ``validator_for`` takes them), with
    no reference to another document followed: its default retriever reads files and URLs, so each
    is refused (:class:`ForeignReference`). A reference within the document, by pointer, anchor or
    an ``$id`` it declares, is resolved as ever (the retriever is asked only for what is not there)."""
    import jsonschema_rs

    asked: list[str] = []

    def refuse(uri: str) -> Any:
        asked.append(uri)
        raise LookupError(f"{uri} is not read")

    try:
        return jsonschema_rs.validator_for(document, retriever=refuse, **options)
    except ValueError as err:
        if asked:
            raise ForeignReference(asked[0]) from err
        raise


def _regex_problem(schema: dict[str, Any]) -> str | None:
    try:
        compiled(schema)
    except ValueError as err:  # (its first line, as validate quotes it)
        lines = str(err).strip().splitlines()
        return lines[0] if lines else "not a regular expression"
    return None
