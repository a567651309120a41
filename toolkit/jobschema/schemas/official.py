"""The official specs of each API version, as excerpts vendored in ``schemas/official/API/VERSION.json``:
reading them, cutting an excerpt from a whole spec, and the facts of a response body at each payload
place (properties, enum values, patterns, bounds, deprecations) that the version annotations record.

An excerpt keeps, of one control plane's OpenAPI file, the answers jobschema checks (:data:`ENDPOINTS`)
and the cluster answer whose ``version`` names the control plane (:data:`EXTRA`), with every component
they reference; ``description``, ``example``, ``examples`` and ``summary`` are left out (prose and
samples: two thirds of the size, no fact the annotations read). Its ``x-jobschema-source`` names the
file it was cut from. A source checkout has them; an installed wheel does not (they are only needed to
write and test the annotations).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobschema.errors import ToolkitError
from jobschema.pointer import escape
from jobschema.schemas import registry
from jobschema.schemas.refs import local_target
from jobschema.schemas.versions import TRACKED
from jobschema.schemas.walk import Located, places

SOURCE = "x-jobschema-source"
#: Keywords an excerpt leaves out: prose and samples.
STRIPPED = frozenset({"description", "example", "examples", "summary"})
#: api -> schema name -> (operation path, the response statuses whose bodies it describes)
ENDPOINTS: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "runai": {
        "runai-distributed-workload": ("/api/v1/workloads/distributed/{workloadId}", ("200",)),
        "runai-error": ("/api/v1/workloads/distributed/{workloadId}", ("401", "403", "404", "500", "503")),
    },
}
#: api -> other answers an excerpt keeps: (operation path, status)
EXTRA: dict[str, tuple[tuple[str, str], ...]] = {"runai": (("/api/v1/clusters/{clusterUuid}", "200"),)}
#: Keywords the annotations do not follow: a change of one between versions needs a person.
FIXED = ("type", "nullable", "format", "required")


class OfficialError(ToolkitError):
    """A vendored spec that is missing or cannot be read, or one the annotations cannot follow."""


def official_dir(api: str) -> Path:
    """``schemas/official/API`` of the source checkout."""
    folder = registry.schemas_dir() / "official" / api
    if not folder.is_dir():
        raise OfficialError(
            f"{folder}: no vendored specs here (they are in a source checkout, not the wheel)"
        )
    return folder


def version_key(version: str) -> tuple[int, ...]:
    """``2.9`` before ``2.18``: versions compare by their numbers."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.lstrip("v").split("."))


def vendored(api: str) -> tuple[str, ...]:
    """The versions of ``api`` whose specs are vendored, oldest first."""
    found = [path.stem for path in official_dir(api).glob("*.json")]
    return tuple(sorted(found, key=version_key))


def load(api: str, version: str) -> dict[str, Any]:
    """The vendored excerpt of ``version``."""
    path = official_dir(api) / f"{version}.json"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise OfficialError(f"{path}: cannot read the vendored spec: {err}") from err
    if not isinstance(document, dict):
        raise OfficialError(f"{path}: not an OpenAPI document")
    return document


# ------------------------------------------------------------------------------ cutting an excerpt


def cut(spec: dict[str, Any], api: str, source: dict[str, Any]) -> dict[str, Any]:
    """The excerpt of a whole OpenAPI ``spec``: the answers of :data:`ENDPOINTS` and :data:`EXTRA`, the
    components they reference, no prose or samples; ``source`` says where it came from."""
    paths: dict[str, Any] = {}
    wanted = [(path, statuses) for path, statuses in ENDPOINTS[api].values()]
    wanted += [(path, (status,)) for path, status in EXTRA.get(api, ())]
    for path, statuses in wanted:
        try:
            responses = spec["paths"][path]["get"]["responses"]
        except (KeyError, TypeError):
            raise OfficialError(f"the spec has no GET {path}") from None
        kept = paths.setdefault(path, {"get": {"responses": {}}})["get"]["responses"]
        for status in statuses:
            if status not in responses:
                raise OfficialError(f"the spec has no {status} answer to GET {path}")
            kept[status] = responses[status]
    components: dict[str, dict[str, Any]] = {}
    for ref in sorted(_closure(spec, paths)):
        _, _, kind, name = ref.split("/", 3)
        components.setdefault(kind, {})[name] = local_target(spec, ref)
    excerpt = {SOURCE: source, "openapi": spec.get("openapi"), "paths": paths, "components": components}
    return _stripped(excerpt)


def _closure(spec: dict[str, Any], start: Any) -> set[str]:
    """Every ``#/components/...`` reference reachable from ``start``."""
    seen: set[str] = set()
    stack = list(_refs(start))
    while stack:
        ref = stack.pop()
        if ref in seen:
            continue
        target = local_target(spec, ref)
        if not ref.startswith("#/components/") or target is None:
            raise OfficialError(f"the spec's reference {ref} names nothing")
        seen.add(ref)
        stack += _refs(target)
    return seen


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for key, value in node.items() if key != "$ref" for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def _stripped(node: Any, parent: str | None = None) -> Any:
    """``node`` without prose and samples; a property *named* ``description`` (the keys of a
    ``properties`` map) and literal values (``enum``, ``default``) stay as they are."""
    if isinstance(node, list):
        return [_stripped(value) for value in node]
    if not isinstance(node, dict):
        return node
    kept: dict[str, Any] = {}
    for key, value in node.items():
        if parent != "properties" and key in STRIPPED:
            continue
        kept[key] = value if parent != "properties" and key in _LITERAL else _stripped(value, key)
    return kept


_LITERAL = frozenset({"enum", "default", "const", SOURCE})


def dump(excerpt: dict[str, Any]) -> str:
    """An excerpt as the file holds it (one-space indent: small, and diffs between versions read well)."""
    return json.dumps(excerpt, indent=1, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------------ the facts


@dataclass(frozen=True)
class Facts:
    """What a version says of one payload place: its enum values (null aside, None: no enum), the
    tracked keywords' values (a ``.*`` pattern is none) and the fixed ones'."""

    enum: tuple[Any, ...] | None
    tracked: tuple[tuple[str, Any], ...]
    fixed: tuple[tuple[str, Any], ...]

    def get(self, keyword: str) -> Any:
        """The value of a tracked keyword (None: absent)."""
        return dict(self.tracked).get(keyword)


def response_location(excerpt: dict[str, Any], path: str, status: str) -> str:
    """The location of the JSON body schema of one answer in ``excerpt``."""
    response = f"#/paths/{escape(path)}/get/responses/{status}"
    node = local_target(excerpt, response)
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        response = node["$ref"]
    location = f"{response}/content/{escape('application/json')}/schema"
    if not isinstance(local_target(excerpt, location), dict):
        raise OfficialError(f"{SOURCE}: no JSON body for the {status} answer of GET {path}")
    return location


def facts(api: str, version: str, name: str) -> dict[str, Facts]:
    """Each place of schema ``name``'s payload in the vendored spec of ``version``, with its facts.
    A schema of several answers (the error body) must have the same facts in each."""
    excerpt = load(api, version)
    path, statuses = ENDPOINTS[api][name]
    found: dict[str, Facts] | None = None
    for status in statuses:
        spots = places(excerpt, response_location(excerpt, path, status))
        these = {place: official_facts(spot.nodes) for place, spot in spots.items()}
        if found is not None and these != found:
            raise OfficialError(f"{api} {version}: the {name} answers differ between statuses")
        found = these
    return found or {}


def official_facts(nodes: list[Located]) -> Facts:
    """The facts of a place, of an OpenAPI spec or of a jobschema schema (``deprecated: false`` and
    ``pattern: ".*"`` read as what they mean; a warn-only ``x-jobschema-pattern`` is no pattern)."""
    return _facts(nodes)


def _facts(nodes: list[Located]) -> Facts:
    values: dict[str, Any] = {}
    enum: list[Any] | None = None
    for located in nodes:
        node = located.node
        if isinstance(node.get("enum"), list):
            enum = [*(enum or []), *(v for v in node["enum"] if v is not None and v not in (enum or []))]
        for keyword in TRACKED:
            if keyword in node:
                _put(values, keyword, _meaning(keyword, node[keyword]), located.location)
    tracked = tuple(sorted((k, v) for k, v in values.items() if v is not None))
    fixed = tuple((k, _fixed(nodes, k)) for k in FIXED)
    return Facts(None if enum is None else tuple(enum), tracked, fixed)


def _put(values: dict[str, Any], keyword: str, value: Any, location: str) -> None:
    if values.get(keyword) is not None and value is not None and values[keyword] != value:
        raise OfficialError(f"{location}: {keyword} {value!r} beside another {values[keyword]!r}")
    if value is not None:
        values[keyword] = value


def _meaning(keyword: str, value: Any) -> Any:
    if keyword == "pattern" and value == ".*":
        return None
    if keyword == "deprecated":
        return True if value is True else None
    return value


def _fixed(nodes: list[Located], keyword: str) -> Any:
    found = [located.node[keyword] for located in nodes if keyword in located.node]
    if keyword == "required":
        return tuple(sorted({name for names in found for name in names}))
    if keyword == "type":
        kinds = {kind for value in found for kind in ([value] if isinstance(value, str) else value)}
        if any(located.node.get("nullable") is True for located in nodes):
            kinds.add("null")
        return tuple(sorted(kinds))
    return found[-1] if found else None
