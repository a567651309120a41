"""Witnesses of changes whose place moved under a composition (``allOf``, ``oneOf``, ``anyOf``,
``if``/``then``/``else``, ``$ref``): a property no longer always present because only some branches
require it. Each witness is checked by python-jsonschema itself: NEW accepts it, OLD rejects it, and
the property is missing from its object; where no payload can tell the sides apart, the witness is
reported as not proven and no witness file is written."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from jobschema.changes import compare_sides, sides_of
from jobschema.changes.witness import Maker, Witness

OBJECT = {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "integer"}}}


def _old(wrap: str | None = None) -> dict[str, Any]:
    inner = {**copy.deepcopy(OBJECT), "required": ["x"]}
    return _wrapped(inner, wrap)


def _wrapped(inner: dict[str, Any], wrap: str | None) -> dict[str, Any]:
    """``inner`` as the root, or as the (required) property ``wrap`` of the root."""
    if wrap is None:
        return inner
    return {"type": "object", "properties": {wrap: inner}, "required": [wrap]}


def _moved(composition: str) -> dict[str, Any]:
    """OBJECT where ``x`` is required only in some branches of ``composition``."""
    node = copy.deepcopy(OBJECT)
    if composition in ("oneOf", "anyOf"):
        node[composition] = [{"required": ["x"]}, {"required": ["y"]}]
    elif composition == "if-then":
        node["if"] = {"properties": {"y": {"const": 1}}, "required": ["y"]}
        node["then"] = {"required": ["x"]}
    elif composition == "if-else":
        node["if"] = {"required": ["y"]}
        node["else"] = {"required": ["x"]}
        node["then"] = {"properties": {"y": {"minimum": 5}}}
    elif composition == "ref-one-of":
        node["$ref"] = "#/$defs/choice"
    elif composition == "all-of-any-of":
        node["allOf"] = [
            {"anyOf": [{"required": ["x"]}, {"properties": {"y": {"minimum": 3}}, "required": ["y"]}]}
        ]
    else:
        raise AssertionError(composition)
    return node


COMPOSITIONS = ["oneOf", "anyOf", "if-then", "if-else", "ref-one-of", "all-of-any-of"]
DEFS = {
    "choice": {"oneOf": [{"required": ["x"]}, {"required": ["y"], "properties": {"x": {"maxLength": 0}}}]}
}


def _new(composition: str, wrap: str | None) -> dict[str, Any]:
    return {**_wrapped(_moved(composition), wrap), "$defs": copy.deepcopy(DEFS)}


def _parent(payload: Any, path: str) -> Any:
    here = payload
    for token in path.split("/")[1:-1]:
        here = here[token]
    return here


def _witnesses(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[Any, Witness | None]]:
    pairs = sides_of(old, new)
    maker = Maker(*pairs[0])
    return [(change, maker.witness(change)) for change in compare_sides(pairs)]


def _checked_by_jsonschema(old: dict[str, Any], new: dict[str, Any], change: Any, witness: Witness) -> None:
    """The witness is what its change says, by python-jsonschema: NEW accepts it, OLD rejects it."""
    assert witness.proven, (witness.payload, witness.old_errors, witness.new_errors)
    assert jsonschema.Draft202012Validator(new).is_valid(witness.payload), witness.payload
    assert not jsonschema.Draft202012Validator(old).is_valid(witness.payload), witness.payload
    if change.rule == "required-removed":
        parent = _parent(witness.payload, change.path)
        assert isinstance(parent, dict) and change.place[-1] not in parent, witness.payload


@pytest.mark.parametrize("wrap", [None, "spec"])
@pytest.mark.parametrize("composition", COMPOSITIONS)
def test_required_moved_under_a_composition_has_a_proven_witness(composition: str, wrap: str | None) -> None:
    old, new = _old(wrap), _new(composition, wrap)
    found = _witnesses(old, new)
    removed = [(c, w) for c, w in found if c.rule == "required-removed"]
    assert [c.path for c, _ in removed] == [("/spec" if wrap else "") + "/x"]
    for change, witness in found:
        if witness is not None:
            _checked_by_jsonschema(old, new, change, witness)


def test_the_condition_on_a_sibling_is_met_above_the_object() -> None:
    """``spec.x`` is required only when the root's ``kind`` is ``a``: the witness sets ``kind`` to
    the other value (a composition above the changed object)."""
    old = _old("spec")
    old["properties"]["kind"] = {"enum": ["a", "b"]}
    old["required"] = ["spec", "kind"]
    new = copy.deepcopy(old)
    del new["properties"]["spec"]["required"]
    new["if"] = {"properties": {"kind": {"const": "a"}}}
    new["then"] = {"properties": {"spec": {"required": ["x"]}}}
    [(change, witness)] = _witnesses(old, new)
    assert change.rule == "required-removed" and change.path == "/spec/x"
    assert witness is not None
    _checked_by_jsonschema(old, new, change, witness)
    assert witness.payload["kind"] == "b"


def test_a_branch_always_taken_leaves_the_witness_not_proven(run_cli, tmp_path: Path) -> None:
    """``if: true`` requires ``x`` in every payload: the comparison, reading ``then``/``else`` as
    either, reports the change, but no payload lacks ``x``; the report says the witness is not
    proven and --witness writes no file for it."""
    old = _old()
    new = {**copy.deepcopy(OBJECT), "if": True, "then": {"required": ["x"]}, "else": {}}
    [(change, witness)] = _witnesses(old, new)
    assert change.rule == "required-removed"
    assert witness is not None and not witness.proven
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    folder = tmp_path / "witnesses"
    args = ["changes", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--witness", str(folder)]
    result = run_cli(args, 1)
    assert "witness not proven: no payload found that" in result.stdout
    assert list(folder.iterdir()) == []


# --------------------------------------------------------------------------- composed at random

KEYS = st.sampled_from(["x", "y", "z"])


@st.composite
def _compositions(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """OLD requires ``x`` (optionally below ``spec``); NEW requires it only under some composition
    drawn at random, nested in an ``allOf`` or reached by ``$ref`` or not, with other branches
    requiring ``y``, ``z`` or nothing and bounding ``y``."""
    wrap = draw(st.sampled_from([None, "spec"]))
    properties = {"x": {"type": "string"}, "y": {"type": "integer"}, "z": {"type": "boolean"}}
    old = _wrapped({"type": "object", "properties": properties, "required": ["x"]}, wrap)
    others = draw(
        st.lists(
            st.fixed_dictionaries(
                {"required": st.lists(st.sampled_from(["y", "z"]), max_size=2, unique=True)},
                optional={"properties": st.builds(lambda n: {"y": {"minimum": n}}, st.integers(0, 3))},
            ),
            min_size=1,
            max_size=2,
        )
    )
    branches = [{"required": ["x"]}, *others]
    branches = draw(st.permutations(branches))
    keyword = draw(st.sampled_from(["oneOf", "anyOf", "if"]))
    if keyword == "if":
        condition = draw(
            st.sampled_from([{"required": ["y"]}, {"properties": {"z": {"const": True}}, "required": ["z"]}])
        )
        taken = draw(st.sampled_from(["then", "else"]))
        composed: dict[str, Any] = {"if": condition, taken: {"required": ["x"]}}
    else:
        composed = {keyword: branches}
    how = draw(st.sampled_from(["inline", "allOf", "$ref"]))
    node: dict[str, Any] = {"type": "object", "properties": copy.deepcopy(properties)}
    if how == "inline":
        node.update(composed)
    elif how == "allOf":
        node["allOf"] = [composed]
    else:
        node["$ref"] = "#/$defs/composed"
    new = {**_wrapped(node, wrap), "$defs": {"composed": composed}}
    return old, new


@settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.nested_given, HealthCheck.too_slow],
)
@given(_compositions())
def test_every_proven_witness_is_what_jsonschema_says(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """On composed schemas, each witness reported proven is accepted by NEW and rejected by OLD
    according to python-jsonschema, and one for ``required-removed`` lacks the property; where a
    payload without ``x`` that NEW accepts exists by construction (a branch that does not require
    it and asks nothing impossible), the witness is proven."""
    old, new = pair
    exists = any(jsonschema.Draft202012Validator(new).is_valid(p) for p in _without_x(new))
    for change, witness in _witnesses(old, new):
        if witness is None:
            continue
        if witness.proven:
            _checked_by_jsonschema(old, new, change, witness)
        elif change.rule == "required-removed":
            assert not exists, (witness.payload, witness.new_errors)


def _without_x(new: dict[str, Any]) -> list[Any]:
    """Every small payload without ``x`` (``y`` from 0 to 4, ``z`` either way, each or not), at the
    place the composed schemas put their object."""
    objects: list[dict[str, Any]] = [{}]
    for key, values in (("y", list(range(5))), ("z", [True, False])):
        objects += [{**o, key: v} for o in objects for v in values]
    if "spec" in new.get("properties", {}):
        return [{"spec": o} for o in objects]
    return list(objects)


def test_a_value_allowed_in_one_branch_only_is_witnessed_in_that_branch() -> None:
    """Beyond required-removed: ``mode: y`` is allowed only with ``kind: b``; the witness takes that
    branch (the smallest payload, ``kind: a``, with ``mode: y`` put in is rejected by NEW too)."""
    old = {
        "type": "object",
        "properties": {"kind": {"enum": ["a", "b"]}, "mode": {"enum": ["x"]}},
        "required": ["kind"],
    }
    new = {
        "type": "object",
        "properties": {"kind": {"enum": ["a", "b"]}},
        "required": ["kind"],
        "oneOf": [
            {"properties": {"kind": {"const": "a"}, "mode": {"enum": ["x"]}}},
            {"properties": {"kind": {"const": "b"}, "mode": {"enum": ["x", "y"]}}},
        ],
    }
    found = [(c, w) for c, w in _witnesses(old, new) if c.rule == "enum-value-added"]
    [(change, witness)] = found
    assert change.path == "/mode" and witness is not None
    _checked_by_jsonschema(old, new, change, witness)
    assert witness.payload == {"kind": "b", "mode": "y"}
