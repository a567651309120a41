"""Every schema object of a document, where a schema stands (not the values of ``enum``, ``const``,
``examples``, ...; a property *named* ``$ref`` or ``pattern`` is a name, not a keyword), and the
checks made on a schema file before any command uses it: each local ``$ref`` resolves, each pattern
is a regular expression."""

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


def _regex_problem(schema: dict[str, Any]) -> str | None:
    import jsonschema_rs

    try:
        jsonschema_rs.validator_for(schema)
    except ValueError as err:  # (its first line, as validate quotes it)
        lines = str(err).strip().splitlines()
        return lines[0] if lines else "not a regular expression"
    return None
