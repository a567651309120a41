"""The vendored official specs as an oracle independent of the annotations: each version's OpenAPI
response schema turned into a JSON Schema (to draw payloads from, and to validate with), and what a
version truly accepts (valid against its spec, and holding no property its spec lacks)."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import jsonschema

from jobschema.schemas import official
from jobschema.schemas.walk import ANY, places
from jobschema.validate.formats import format_checker

#: schema name -> the component of the official spec that describes its body
ROOTS = {"runai-distributed-workload": "DistributedWorkload", "runai-error": "Error"}
#: OpenAPI formats that say how a number is stored, not what it may be
_STORAGE_FORMATS = {"int32", "int64", "float", "double"}


@cache
def official_schema(version: str, name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``name``'s body in ``version``'s official spec."""
    excerpt = official.load("runai", version)
    defs = {key: _converted(value) for key, value in excerpt["components"]["schemas"].items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/$defs/{ROOTS[name]}",
        "$defs": defs,
    }


def _converted(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: ``nullable`` as a ``null`` type (or an ``anyOf`` where there is no
    type), component references as ``$defs`` ones, storage formats and defaults left out."""
    if isinstance(node, list):
        return [_converted(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref":
            out[key] = value.replace("#/components/schemas/", "#/$defs/")
        elif key == "properties":
            out[key] = {name: _converted(sub) for name, sub in value.items()}
        elif key in ("enum", "required"):
            out[key] = copy.deepcopy(value)
        elif key in ("nullable", "default") or (key == "format" and value in _STORAGE_FORMATS):
            continue
        else:
            out[key] = _converted(value)
    if node.get("nullable") is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [{"type": "null"}, out]}
    return out


@cache
def _validator(version: str, name: str) -> Any:
    schema = official_schema(version, name)
    return jsonschema.Draft202012Validator(schema, format_checker=format_checker())


@cache
def official_places(version: str, name: str) -> frozenset[str]:
    """Every payload place ``version``'s spec declares for ``name`` (array items as ``*``)."""
    return frozenset(places(official_schema(version, name)))


def payload_places(value: Any, prefix: str = "") -> set[str]:
    """The places a payload holds a value at (array items as ``*``)."""
    found = {prefix}
    if isinstance(value, dict):
        for key, item in value.items():
            found |= payload_places(item, f"{prefix}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for item in value:
            found |= payload_places(item, f"{prefix}/{ANY}")
    return found


def official_errors(version: str, name: str, payload: Any) -> list[str]:
    """Why ``version``'s spec refuses ``payload``: schema errors, and places it does not declare."""
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in _validator(version, name).iter_errors(payload)
    ]
    errors += [
        f"{place}: not in {version}"
        for place in sorted(payload_places(payload) - official_places(version, name))
    ]
    return errors


def truly_accepting(name: str, payload: Any) -> tuple[str, ...]:
    """The versions whose official spec accepts exactly ``payload``: valid, and no property beyond it."""
    return tuple(v for v in official.vendored("runai") if not official_errors(v, name, payload))
