"""A schema as the generators and mutators see it: every node with its ``$ref`` and ``allOf`` merged.

``effective(node)`` is the one dictionary of keywords that applies at a place: the ``$ref`` target
and each ``allOf`` member merged in, ``properties`` merged key by key, ``required`` joined. The
bundled schemas only use ``allOf`` to extend a shape (``MasterSpec`` = ``ContainerSpec`` + more), so
merging is exact for them.
"""

from __future__ import annotations

from typing import Any

from jobschema.schemas.refs import local_target

JSON_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


class UnfollowableRef(ValueError):
    """A ``$ref`` the view cannot follow: another document's, or one that names no schema object."""


class SchemaView:
    """One schema document, with memoised effective nodes."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._effective: dict[int, tuple[Any, dict[str, Any]]] = {}

    def target(self, ref: str) -> dict[str, Any]:
        """The node a local ``$ref`` points to."""
        if not ref.startswith("#"):
            raise UnfollowableRef(f"only local $ref is supported: {ref}")
        found = local_target(self.document, ref)
        if not isinstance(found, dict):
            raise UnfollowableRef(f"$ref {ref} does not point to a schema object")
        return found

    def effective(self, node: dict[str, Any]) -> dict[str, Any]:
        """``node`` with its ``$ref`` target and ``allOf`` members merged in."""
        cached = self._effective.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        parts = []
        if isinstance(node.get("$ref"), str):
            parts.append(self.effective(self.target(node["$ref"])))
        parts += [self.effective(sub) for sub in node.get("allOf", ()) if isinstance(sub, dict)]
        merged: dict[str, Any] = {}
        for part in [*parts, {k: v for k, v in node.items() if k not in ("$ref", "allOf")}]:
            _merge_into(merged, part)
        self._effective[id(node)] = (node, merged)
        return merged

    def ref_name(self, node: dict[str, Any]) -> str | None:
        """The ``$defs`` name a node refers to (``Pod`` for ``{"$ref": "#/$defs/Pod"}``)."""
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return ref.rsplit("/", 1)[-1]
        return None


def _merge_into(merged: dict[str, Any], part: dict[str, Any]) -> None:
    for key, value in part.items():
        if key == "properties" and isinstance(merged.get(key), dict):
            properties = dict(merged[key])
            for name, sub in value.items():
                properties[name] = {**properties.get(name, {}), **sub}
            merged[key] = properties
        elif key == "required" and isinstance(merged.get(key), list):
            merged[key] = list(dict.fromkeys([*merged[key], *value]))
        else:
            merged[key] = value


def types_of(node: dict[str, Any]) -> list[str]:
    """The JSON types a node admits: its ``type``, else what its keywords imply, else every type."""
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if t in JSON_TYPES]
    if "const" in node or "enum" in node:
        found = [node["const"]] if "const" in node else node["enum"]
        return list(dict.fromkeys(json_type(v) for v in found))
    implied = [kind for keyword, kind in _IMPLIED if keyword in node]
    return implied[:1] or list(JSON_TYPES)


_IMPLIED = (("properties", "object"), ("additionalProperties", "object"), ("items", "array"))
_PYTHON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"))


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (``integer`` for ints, never for booleans)."""
    if value is None:
        return "null"
    return next((name for kind, name in _PYTHON_TYPES if isinstance(value, kind)), "object")


def admits(types: list[str], value: Any) -> bool:
    """True when ``value``'s JSON type is among ``types`` (an integer is a number, too)."""
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)
