"""Laws of `jobschema changes` beyond the listed cases: a schema compared with itself has no change;
between two versions, what one direction adds the other removes; and on random object schemas (hypothesis
compositions of types, enums, bounds, nesting and arrays), one random edit of a known kind is found
with its rule at its place, with a proven witness, and nothing else is reported."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from jobschema.changes import compare, compare_sides, sides_of
from jobschema.changes.witness import Maker
from jobschema.schemas import registry
from jobschema.schemas.versions import known


@pytest.mark.parametrize("name", registry.BUNDLED)
def test_a_schema_has_no_change_against_itself(name: str) -> None:
    assert compare(name, name) == []


@pytest.mark.parametrize("version", known("runai"))
def test_a_version_has_no_change_against_itself(version: str) -> None:
    assert compare(f"runai@{version}", f"runai@{version}") == []


MIRROR = {
    "property-added": "property-removed",
    "property-added-closed": "property-removed",
    "enum-value-added": "enum-value-removed",
    "pattern-loosened": "pattern-tightened",
    "bound-loosened": "bound-tightened",
}


@pytest.mark.parametrize(("old", "new"), list(itertools.pairwise(known("runai"))))
def test_what_one_direction_adds_the_other_removes(old: str, new: str) -> None:
    forward = compare(f"runai@{old}", f"runai@{new}")
    backward = {(c.rule, c.path, c.old, c.new) for c in compare(f"runai@{new}", f"runai@{old}")}
    for change in forward:
        if change.rule in MIRROR:
            assert (MIRROR[change.rule], change.path, change.new, change.old) in backward, change


# --------------------------------------------------------------------------- random schemas, one edit

NAMES = st.sampled_from(["name", "phase", "replicas", "gpu", "image", "labels", "spec", "items", "port"])


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda: {"type": "string"}),
        st.builds(lambda n: {"type": "string", "maxLength": n}, st.integers(3, 20)),
        st.builds(lambda: {"type": "integer"}),
        st.builds(lambda n: {"type": "integer", "minimum": n}, st.integers(0, 5)),
        st.builds(lambda: {"type": "boolean"}),
        st.builds(
            lambda values: {"type": "string", "enum": values},
            st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=1, max_size=3, unique=True),
        ),
    )


def _objects(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: Any) -> dict[str, Any]:
        properties = draw(st.dictionaries(NAMES, inner, min_size=1, max_size=4))
        required = sorted(draw(st.sets(st.sampled_from(sorted(properties)))))
        node: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            node["required"] = required
        return node

    return build()


NODES = st.recursive(
    _leaf(),
    lambda inner: st.one_of(_objects(inner), st.builds(lambda i: {"type": "array", "items": i}, inner)),
    max_leaves=8,
)
SCHEMAS = _objects(NODES)


def _nodes(node: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    found = [(path, node)]
    for key, sub in node.get("properties", {}).items():
        found += _nodes(sub, (*path, key))
    if isinstance(node.get("items"), dict):
        found += _nodes(node["items"], (*path, "*"))
    return found


def _pointer(path: tuple[str, ...]) -> str:
    return "".join(f"/{token}" for token in path)


def _edits(schema: dict[str, Any]) -> list[tuple[str, tuple[str, ...], Any]]:
    """Every edit this schema allows: (rule it makes, place, how)."""
    edits: list[tuple[str, tuple[str, ...], Any]] = []
    for path, node in _nodes(schema):
        kind = node.get("type")
        if kind == "object":
            for key in node["properties"]:
                edits.append(("property-removed", (*path, key), ("drop", key)))
                if key in node.get("required", ()):
                    edits.append(("required-removed", (*path, key), ("optional", key)))
            edits.append(("property-added-closed", (*path, "added"), ("add", "added")))
            edits.append(("additional-properties-opened", path, ("open",)))
        if "enum" in node:
            edits.append(("enum-value-added", path, ("value", "Z")))
            if len(node["enum"]) > 1:
                edits.append(("enum-value-removed", path, ("unvalue", node["enum"][-1])))
        if kind == "integer" and "enum" not in node:
            edits.append(("type-widened", path, ("widen",)))
        if kind in ("string", "integer", "boolean"):
            edits.append(("nullable-added", path, ("null",)))
        if "maxLength" in node:
            edits.append(("bound-loosened", path, ("longer",)))
        if kind == "string" and "enum" not in node:
            edits.append(("", path, ("match-all",)))
    return edits


def _drop(node: dict[str, Any], key: str) -> None:
    del node["properties"][key]
    _optional(node, key)


def _optional(node: dict[str, Any], key: str) -> None:
    node["required"] = [k for k in node.get("required", ()) if k != key]
    if not node["required"]:
        del node["required"]


def _null(node: dict[str, Any]) -> None:
    node["type"] = [node["type"], "null"]
    if "enum" in node:
        node["enum"] = [*node["enum"], None]


EDIT = {
    "drop": _drop,
    "optional": _optional,
    "add": lambda node, key: node["properties"].__setitem__(key, {"type": "string"}),
    "open": lambda node: node.pop("additionalProperties"),
    "value": lambda node, value: node.__setitem__("enum", [*node["enum"], value]),
    "unvalue": lambda node, value: node.__setitem__("enum", [v for v in node["enum"] if v != value]),
    "widen": lambda node: node.__setitem__("type", "number"),
    "null": _null,
    "longer": lambda node: node.__setitem__("maxLength", node["maxLength"] + 10),
    "match-all": lambda node: node.__setitem__("pattern", ".*"),
}


def _apply(schema: dict[str, Any], path: tuple[str, ...], how: tuple[Any, ...]) -> dict[str, Any]:
    edited = copy.deepcopy(schema)
    target = path if how[0] not in ("drop", "optional", "add") else path[:-1]
    EDIT[how[0]](_nodes_at(edited, target), *how[1:])
    return edited


# The witnesses are hypothesis searches of their own (hypothesis.find) inside this test; no shrinking
# (each step re-runs those searches: minutes), the failing schema and edit are printed as drawn.
@settings(
    max_examples=100,
    derandomize=True,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.nested_given],
)
@given(st.data())
def test_one_random_edit_is_found_classified_and_witnessed(data: st.DataObject) -> None:
    schema = data.draw(SCHEMAS)
    edits = [edit for edit in _edits(schema) if "added" not in edit[1][:-1]]
    rule, path, how = data.draw(st.sampled_from(edits))
    if rule == "property-added-closed" and "added" in _nodes_at(schema, path[:-1]).get("properties", {}):
        return
    edited = _apply(schema, path, how)
    pairs = sides_of(schema, edited)
    found = compare_sides(pairs)
    if not rule:  # a pattern that accepts every string
        assert found == []
        return
    assert [(c.rule, c.path) for c in found] == [(rule, _pointer(path))]
    witness = Maker(*pairs[0]).witness(found[0])
    if found[0].kind not in ("breaking", "strict"):  # (an enum value removed: safe, no witness)
        assert witness is None
        return
    assert witness is not None
    assert witness.proven, (witness.old_errors, witness.new_errors, witness.payload)


def _nodes_at(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    node = schema
    for token in path:
        node = node["items"] if token == "*" else node["properties"][token]
    return node
