"""The diff annotations of the schemas (see schemas/README.md, "Diff annotations") are well placed.

``x-jobschema-list-key`` sits on arrays of objects that declare the key, ``x-jobschema-list-set`` on
arrays of scalars, ``x-jobschema-volatile`` and ``x-jobschema-quantity`` are ``true`` (quantities on
strings), and the list keys identify the items of every example capture. The literals at the end
pin every annotated place, so that adding or moving an annotation is a deliberate edit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import BUNDLED, CAPTURES, files_under, load_json, schema_document, schema_nodes

LIST_KEY = "x-jobschema-list-key"
LIST_SET = "x-jobschema-list-set"
VOLATILE = "x-jobschema-volatile"
QUANTITY = "x-jobschema-quantity"
EMBEDDED = "x-jobschema-embedded-schema"
SCALARS = {"string", "integer", "number", "boolean", "null"}
MAX_DEPTH = 64


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _tokens(pointer: str) -> list[str]:
    return [_unescape(token) for token in pointer.split("/")[1:]]


def _annotated(name: str, keyword: str) -> dict[str, Any]:
    return {
        pointer: node[keyword] for pointer, node in schema_nodes(schema_document(name)) if keyword in node
    }


def _deref(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its chain of local ``$ref`` followed (the first schema without a ``$ref``)."""
    for _ in range(MAX_DEPTH):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        assert ref.startswith("#/"), f"only local $ref is expected, got {ref}"
        target: Any = root
        for token in _tokens(ref[1:]):
            target = target[token]
        node = target
    raise AssertionError("$ref chain too deep")


def _shapes(root: dict[str, Any], node: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    """``node`` and every schema that applies with it: ``$ref`` targets and allOf/anyOf/oneOf members."""
    if depth > MAX_DEPTH or not isinstance(node, dict):
        return
    yield node
    if "$ref" in node:
        yield from _shapes(root, _deref(root, node), depth + 1)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for member in node.get(keyword, ()):
            yield from _shapes(root, member, depth + 1)


def _types(node: dict[str, Any]) -> set[str]:
    declared = node.get("type", ())
    return {declared} if isinstance(declared, str) else set(declared)


def _key_parts(value: Any) -> list[str]:
    """The parts of a list-key value: one property name, several, or one JSON Pointer."""
    if isinstance(value, str):
        return [value]
    assert isinstance(value, list), f"a list key is a string or an array of strings, not {value!r}"
    assert value, "a composite list key names at least one property"
    assert all(isinstance(part, str) and not part.startswith("/") for part in value), value
    assert len(set(value)) == len(value), f"repeated part in {value}"
    return value


def _key_schema(root: dict[str, Any], item: dict[str, Any], part: str) -> dict[str, Any] | None:
    """The schema of one key part inside the item shape (a pointer is followed token by token)."""
    node: dict[str, Any] | None = item
    for token in _tokens(part) if part.startswith("/") else [part]:
        properties: dict[str, Any] = {}
        for shape in _shapes(root, node or {}):
            properties.update(shape.get("properties", {}))
        node = properties.get(token)
        if node is None:
            return None
    return _deref(root, node)


def _resolve(root: dict[str, Any], pointer: str) -> dict[str, Any]:
    node: Any = root
    for token in _tokens(pointer):
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


# --- placement ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUNDLED)
def test_list_keys_sit_on_arrays_of_objects_that_declare_the_key(name: str) -> None:
    root = schema_document(name)
    problems = []
    for pointer, value in _annotated(name, LIST_KEY).items():
        node = _deref(root, _resolve(root, pointer))
        if "array" not in _types(node) or not isinstance(node.get("items"), dict):
            problems.append(f"{pointer}: not an array with one item schema")
            continue
        item = _deref(root, node["items"])
        if "object" not in _types(item):
            problems.append(f"{pointer}: items are not objects")
            continue
        for part in _key_parts(value):
            key = _key_schema(root, item, part)
            if key is None:
                problems.append(f"{pointer}: the item shape does not declare {part}")
            elif not _types(key) or not _types(key) <= SCALARS:
                problems.append(f"{pointer}: key part {part} is not a scalar ({sorted(_types(key))})")
            elif key.get(VOLATILE):
                problems.append(f"{pointer}: key part {part} is volatile, so its items could never match")
    assert problems == []


@pytest.mark.parametrize("name", BUNDLED)
def test_list_sets_sit_on_arrays_of_scalars(name: str) -> None:
    root = schema_document(name)
    problems = []
    for pointer, value in _annotated(name, LIST_SET).items():
        node = _resolve(root, pointer)
        if value is not True:
            problems.append(f"{pointer}: {value!r} instead of true")
        if LIST_KEY in node:
            problems.append(f"{pointer}: both a list key and a set")
        if "array" not in _types(node) or not isinstance(node.get("items"), dict):
            problems.append(f"{pointer}: not an array with one item schema")
            continue
        item_types = _types(_deref(root, node["items"]))
        if not item_types or not item_types <= SCALARS:
            problems.append(f"{pointer}: items are not scalars ({sorted(item_types)})")
    assert problems == []


@pytest.mark.parametrize("name", BUNDLED)
def test_volatile_and_quantity_are_true(name: str) -> None:
    root = schema_document(name)
    problems = [
        f"{pointer}: {keyword} is {value!r}"
        for keyword in (VOLATILE, QUANTITY)
        for pointer, value in _annotated(name, keyword).items()
        if value is not True
    ]
    for pointer in _annotated(name, QUANTITY):
        types = _types(_deref(root, _resolve(root, pointer)))
        if "string" not in types or not types <= {"string", "null"}:
            problems.append(f"{pointer}: a quantity must be a string, not {sorted(types)}")
    assert problems == []


# --- the keys identify the items of the example captures ---------------------------------------


def _keyed_lists(
    root: dict[str, Any], node: dict[str, Any], value: Any, at: str, depth: int = 0
) -> Iterator[tuple[str, Any, list[Any]]]:
    """(pointer, list key, items) of every list of ``value`` that carries a list key.

    Follows ``$ref``, allOf/anyOf/oneOf, properties, additionalProperties and items, and parses
    embedded JSON strings (``x-jobschema-embedded-schema``) against their own schema.
    """
    if depth > MAX_DEPTH:
        return
    shapes = list(_shapes(root, node))
    for shape in shapes:
        if LIST_KEY in shape and isinstance(value, list):
            yield at, shape[LIST_KEY], value
        embedded = shape.get(EMBEDDED)
        if isinstance(embedded, str) and isinstance(value, str):
            inner = schema_document(embedded)
            yield from _keyed_lists(inner, inner, json.loads(value), f"{at}<{embedded}>", depth + 1)
    if isinstance(value, dict):
        for key, sub in value.items():
            declared = [s["properties"][key] for s in shapes if key in s.get("properties", {})]
            if not declared:
                declared = [
                    s["additionalProperties"]
                    for s in shapes
                    if isinstance(s.get("additionalProperties"), dict)
                ]
            for child in declared:
                yield from _keyed_lists(root, child, sub, f"{at}/{_escape(key)}", depth + 1)
    elif isinstance(value, list):
        for child in [s["items"] for s in shapes if isinstance(s.get("items"), dict)]:
            for index, sub in enumerate(value):
                yield from _keyed_lists(root, child, sub, f"{at}/{index}", depth + 1)


_MISSING = object()


def _key_value(item: Any, part: str) -> Any:
    if not isinstance(item, dict):
        return _MISSING
    node: Any = item
    for token in _tokens(part) if part.startswith("/") else [part]:
        if not isinstance(node, dict) or token not in node:
            return _MISSING
        node = node[token]
    return node


def _captures() -> list[tuple[str, str]]:
    return [(name, path.name) for name in BUNDLED for path in files_under(CAPTURES / name)]


@pytest.mark.parametrize(("name", "file_name"), _captures(), ids=str)
def test_list_keys_identify_the_items_of_every_capture(name: str, file_name: str) -> None:
    root = schema_document(name)
    problems = []
    for at, list_key, items in _keyed_lists(root, root, load_json(CAPTURES / name / file_name), ""):
        parts = _key_parts(list_key)
        seen: dict[tuple[Any, ...], int] = {}
        for index, item in enumerate(items):
            key = tuple(_key_value(item, part) for part in parts)
            absent = [part for part, value in zip(parts, key, strict=True) if value is _MISSING]
            if absent:
                problems.append(f"{at}/{index}: no {', '.join(absent)} (list key {list_key})")
            elif None not in key:
                if key in seen:
                    problems.append(f"{at}/{index}: key {list(key)} repeats item {seen[key]}")
                seen.setdefault(key, index)
    print("\n".join(problems))
    assert problems == []


@pytest.mark.parametrize(
    ("name", "at_least"),
    [("runai-distributed-workload", 15), ("aihc-job-detail", 7), ("aihc-raw-request", 1)],
)
def test_the_captures_exercise_the_list_keys(name: str, at_least: int) -> None:
    """The walk above really reaches the keyed lists (counted by distinct schema place)."""
    root = schema_document(name)
    found = {
        at
        for path in files_under(CAPTURES / name)
        for at, _key, items in _keyed_lists(root, root, load_json(path), "")
        if items
    }
    assert len(found) >= at_least, sorted(found)


# --- the annotated places, pinned --------------------------------------------------------------

_CONTAINER = "/$defs/ContainerSpec/properties"
_STORAGE = "/$defs/Storage/properties"
_RESULT = "/$defs/JobInfoResult/properties"
_V2 = "/$defs/JobFields/properties"

LIST_KEYS: dict[str, dict[str, Any]] = {
    "runai-distributed-workload": {
        f"{_CONTAINER}/annotations": "name",
        f"{_CONTAINER}/environmentVariables": "name",
        f"{_CONTAINER}/exposedUrls": "container",
        f"{_CONTAINER}/imagePullSecrets": "name",
        f"{_CONTAINER}/labels": "name",
        f"{_CONTAINER}/ports": "container",
        f"{_CONTAINER}/relatedUrls": "url",
        f"{_CONTAINER}/tolerations": ["key", "effect"],
        "/$defs/Compute/properties/extendedResources": "resource",
        "/$defs/NodeAffinityRequired/properties/nodeSelectorTerms/items/properties/matchExpressions": [
            "key",
            "operator",
        ],
        "/$defs/PvcVolume/properties/claimInfo/properties/addedAttrValues": "key",
        f"{_STORAGE}/configMapVolume": "mountPath",
        f"{_STORAGE}/dataVolume": "id",
        f"{_STORAGE}/emptyDirVolume": "path",
        f"{_STORAGE}/git": "path",
        f"{_STORAGE}/hostPath": "mountPath",
        f"{_STORAGE}/nfs": "mountPath",
        f"{_STORAGE}/pvc": "path",
        f"{_STORAGE}/s3": "path",
        f"{_STORAGE}/secretVolume": "mountPath",
    },
    "runai-error": {},
    "aihc-job-detail": {
        f"{_RESULT}/datasources": "mountPath",
        f"{_RESULT}/labels": "key",
        f"{_RESULT}/resources": "name",
        f"{_RESULT}/envs": "name",
        "/$defs/PodList/properties/pods": "/objectMeta/name",
        "/$defs/Pod/properties/envs": "name",
        "/$defs/ObjectMeta/properties/ownerReferences": ["kind", "name"],
    },
    "aihc-raw-request": {
        "/properties/datasources": "mountPath",
        "/properties/datasource": "mountPath",
    },
    "aihc-error": {},
    "aihc-v2-job": {
        f"{_V2}/datasources": "mountPath",
        f"{_V2}/labels": "key",
        f"{_V2}/pods": "name",
        f"{_V2}/historyPods": "uid",
        f"{_V2}/jobTimeLine": ["conditionType", "time"],
        "/$defs/JobSpec/properties/resources": "name",
        "/$defs/JobSpec/properties/envs": "name",
        "/$defs/Pod/properties/envs": "name",
    },
}

LIST_SETS: dict[str, set[str]] = {
    "runai-distributed-workload": {
        "/$defs/ExposedUrl/properties/authorizedUsers",
        "/$defs/ExposedUrl/properties/authorizedGroups",
        "/$defs/NodeAffinityRequired/properties/nodeSelectorTerms/items/properties/matchExpressions"
        "/items/properties/values",
        "/$defs/Security/properties/capabilities",
    },
    "runai-error": set(),
    "aihc-job-detail": {
        f"{_RESULT}/customFaultTolerancePattern",
        f"{_RESULT}/logCollectionFilePatterns",
        "/$defs/DatasourceOptions/properties/pfsL2MountTargetId",
        "/$defs/FaultToleranceConfig/properties/customFaultTolerancePattern",
    },
    "aihc-raw-request": {
        "/properties/customFaultTolerancePattern",
        "/properties/logCollectionFilePatterns",
        "/$defs/DatasourceOptions/properties/pfsL2MountTargetId",
        "/$defs/AlertConfig/properties/alertIds",
        "/$defs/AlertConfig/properties/alertItems",
    },
    "aihc-error": set(),
    "aihc-v2-job": set(),
}

#: Server-populated places that change by themselves; never the job's state (phase, status, pod status,
#: restarts, reasons), which ``--ignore-volatile`` keeps in diff and record alike.
VOLATILES: dict[str, set[str]] = {
    "runai-distributed-workload": {
        "/properties/createdAt",
        "/properties/deletedAt",
    },
    "runai-error": set(),
    "aihc-job-detail": {
        "/properties/requestId",
        f"{_RESULT}/createdAt",
        f"{_RESULT}/finishedAt",
        f"{_RESULT}/runningAt",
        f"{_RESULT}/scheduledAt",
        f"{_RESULT}/queueingSequence",
        f"{_RESULT}/enableBcclStatus",
        f"{_RESULT}/enableBcclErrorReason",
        f"{_RESULT}/k8sUID",
        f"{_RESULT}/enableReplaceResult",
        f"{_RESULT}/tensorboardAddr",
        "/$defs/PodList/properties/faultTolerancePods",
        "/$defs/ListMeta/properties/totalItems",
        "/$defs/Pod/properties/PodIP",
        "/$defs/Pod/properties/nodeName",
        "/$defs/Pod/properties/finishedAt",
        "/$defs/ObjectMeta/properties/creationTimestamp",
        "/$defs/ObjectMeta/properties/uid",
        "/$defs/OwnerReference/properties/uid",
    },
    "aihc-v2-job": {
        "/properties/requestId",
        f"{_V2}/createdAt",
        f"{_V2}/finishedAt",
        f"{_V2}/enableBcclStatus",
        f"{_V2}/enableBcclErrorReason",
        "/$defs/Pod/properties/PodIP",
        "/$defs/Pod/properties/podIP",
        "/$defs/Pod/properties/nodeName",
        "/$defs/Pod/properties/creationAt",
        "/$defs/Pod/properties/finishedAt",
    },
    "aihc-raw-request": set(),
    "aihc-error": {"/properties/requestId"},
}

QUANTITIES: dict[str, set[str]] = {
    "runai-distributed-workload": {
        "/$defs/Compute/properties/cpuMemoryLimit",
        "/$defs/Compute/properties/cpuMemoryRequest",
        "/$defs/Compute/properties/gpuMemoryLimit",
        "/$defs/Compute/properties/gpuMemoryRequest",
        "/$defs/Compute/properties/extendedResources/items/properties/quantity",
        "/$defs/EmptyDirVolume/properties/sizeLimit",
        "/$defs/PvcVolume/properties/claimInfo/properties/size",
    },
    "runai-error": set(),
    "aihc-job-detail": set(),
    "aihc-raw-request": set(),
    "aihc-error": set(),
    "aihc-v2-job": set(),
}


@pytest.mark.parametrize("name", BUNDLED)
def test_list_keys_are_the_pinned_ones(name: str) -> None:
    assert _annotated(name, LIST_KEY) == LIST_KEYS[name]


@pytest.mark.parametrize("name", BUNDLED)
def test_sets_volatiles_and_quantities_are_the_pinned_ones(name: str) -> None:
    assert set(_annotated(name, LIST_SET)) == LIST_SETS[name]
    assert set(_annotated(name, VOLATILE)) == VOLATILES[name]
    assert set(_annotated(name, QUANTITY)) == QUANTITIES[name]
