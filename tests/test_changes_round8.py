"""``jobschema changes``, round 8: every pair of Run:ai versions, adjacent or not and both ways,
against a diff computed here from the vendored official specs (a walker of their own, not
jobschema's), and the classes judged from the side of code that reads the responses.

A value a reader's ``switch`` (or a closed enum: runapy's ``DistributedFramework(str, Enum)`` raises
on a value it does not list) has never seen breaks it: an enum value added, and an enum dropped (any
value may arrive), are ``breaking``, as a property removed, a type changed, a value made nullable or
optional are.
"""

from __future__ import annotations

import itertools
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.changes import compare
from jobschema.schemas import official
from tests.conftest import RunCli

KNOWN = ("2.18", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24")
PAIRS = [(a, b) for a, b in itertools.permutations(KNOWN, 2)]
WORKLOAD = "/api/v1/workloads/distributed/{workloadId}"
DRAWS = settings(max_examples=40, derandomize=True, database=None)
#: Facts a version's spec gives of a place that a change is made of.
FACTS = ("pattern", "minimum", "maximum", "minLength", "maxLength", "deprecated")
#: What the reader of each kind of change sees (the classes this round holds to).
READER = {
    "property-added": "safe",
    "property-removed": "breaking",
    "enum-value-added": "breaking",
    "enum-value-removed": "safe",
    "pattern-tightened": "safe",
    "pattern-loosened": "strict",
    "bound-tightened": "safe",
    "bound-loosened": "strict",
    "deprecated": "info",
    "deprecation-removed": "info",
}


# ---------------------------------------------------------------- an oracle of the specs' own


def _target(spec: dict[str, Any], node: Any) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        found: Any = spec
        for token in node["$ref"][2:].split("/"):
            found = found[token.replace("~1", "/").replace("~0", "~")]
        node = found
    return node


def _parts(spec: dict[str, Any], node: Any) -> list[dict[str, Any]]:
    node = _target(spec, node)
    return [node, *(part for sub in node.get("allOf") or () for part in _parts(spec, sub))]


@cache
def spec_places(version: str) -> dict[str, dict[str, Any]]:
    """Each payload place of the workload answer in ``version``'s spec, with its facts."""
    spec = official.load("runai", version)
    answer = _target(spec, spec["paths"][WORKLOAD]["get"]["responses"]["200"])
    found: dict[str, dict[str, Any]] = {}

    def visit(place: str, node: Any) -> None:
        parts = _parts(spec, node)
        facts: dict[str, Any] = {"enum": set()}
        children: dict[str, list[Any]] = {}
        for part in parts:
            facts["enum"] |= {value for value in part.get("enum") or () if value is not None}
            for key in FACTS:
                value = part.get(key)
                if value is not None and value is not False and value != ".*":
                    facts[key] = value
            for name, sub in (part.get("properties") or {}).items():
                children.setdefault(name, []).append(sub)
            if "items" in part:
                children.setdefault("*", []).append(part["items"])
        found[place] = facts
        for name, subs in children.items():
            visit(f"{place}/{name}", {"allOf": subs})

    visit("", answer["content"]["application/json"]["schema"])
    return found


def spec_changes(old: str, new: str) -> dict[tuple[Any, ...], str]:
    """The changes from ``old`` to ``new``, keyed (path, rule[, value]), each with its class for a reader."""
    before, after = spec_places(old), spec_places(new)
    found: dict[tuple[Any, ...], str] = {}
    for place in sorted(set(before) | set(after)):
        parent = place.rsplit("/", 1)[0]
        if place not in before:
            if parent in before and not place.endswith("/*"):
                found[(place, "property-added")] = READER["property-added"]
            continue
        if place not in after:
            if parent in after:
                found[(place, "property-removed")] = READER["property-removed"]
            continue
        was, now = before[place], after[place]
        for value in now["enum"] - was["enum"]:
            found[(place, "enum-value-added", value)] = READER["enum-value-added"]
        for value in was["enum"] - now["enum"]:
            found[(place, "enum-value-removed", value)] = READER["enum-value-removed"]
        if was.get("deprecated") != now.get("deprecated"):
            rule = "deprecated" if now.get("deprecated") else "deprecation-removed"
            found[(place, rule)] = READER[rule]
        for key in ("minimum", "maximum", "minLength", "maxLength"):
            if was.get(key) != now.get(key):
                rule = "bound-tightened" if was.get(key) is None else "bound-loosened"
                found[(place, rule)] = READER[rule] if now.get(key) is None or was.get(key) is None else "?"
        if was.get("pattern") != now.get("pattern"):
            # (2.23 took the quantities' sign "-" away, and added the DNS-label names)
            tighter = was.get("pattern") is None or ("+-" in was["pattern"] and "+-" not in now["pattern"])
            rule = "pattern-tightened" if tighter and now.get("pattern") else "pattern-loosened"
            found[(place, rule)] = READER[rule]
    return found


@cache
def tool_changes(old: str, new: str) -> dict[tuple[Any, ...], tuple[str, str | None]]:
    found: dict[tuple[Any, ...], tuple[str, str | None]] = {}
    for change in compare(f"runai@{old}", f"runai@{new}"):
        if change.schema != "runai-distributed-workload":
            found[(change.schema, change.path, change.rule)] = (change.kind, change.since)
            continue
        value = change.new if change.rule == "enum-value-added" else change.old
        key = (
            (change.path, change.rule, value)
            if change.rule.startswith("enum-value")
            else (
                change.path,
                change.rule,
            )
        )
        found[key] = (change.kind, change.since)
    return found


# ------------------------------------------------------------------------- every pair of versions


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_every_pair_finds_what_the_specs_differ_in(old: str, new: str) -> None:
    expected, got = spec_changes(old, new), tool_changes(old, new)
    assert sorted(set(got) - set(expected), key=str) == []
    assert sorted(set(expected) - set(got), key=str) == []


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_every_pair_classes_each_change_as_its_reader_sees_it(old: str, new: str) -> None:
    expected, got = spec_changes(old, new), tool_changes(old, new)
    wrong = {key: (got[key][0], want) for key, want in expected.items() if got.get(key, ("",))[0] != want}
    assert wrong == {}


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_every_change_names_the_version_between_the_two_that_made_it(old: str, new: str) -> None:
    """``since``: the version, walking from OLD to NEW, at which the change first shows."""
    walk = (
        KNOWN[KNOWN.index(old) : KNOWN.index(new) + 1]
        if old < new
        else KNOWN[KNOWN.index(new) : KNOWN.index(old) + 1][::-1]
    )
    for key, (_kind, since) in tool_changes(old, new).items():
        steps = [b for a, b in itertools.pairwise(walk) if key in spec_changes(a, b) or _touched(a, b, key)]
        assert since in steps, (key, since, steps)


def _touched(old: str, new: str, key: tuple[Any, ...]) -> bool:
    """Whether the step old -> new changed anything at the key's place (a net change over several
    steps may be of another rule than each step's: a pattern added, then changed)."""
    return any(other[0] == key[0] for other in spec_changes(old, new))


# ------------------------------------------------------------------ a reader's switch breaks


def test_upgrading_across_jax_fails_ci_by_default(run_cli: RunCli) -> None:
    result = run_cli(["changes", "runai@2.20", "runai@2.21", "--no-witnesses"], code=1)
    assert (
        'breaking  runai-distributed-workload /spec/distributedFramework: value "JAX" added' in result.stdout
    )
    assert result.stdout.splitlines()[0].startswith(
        "runai@2.20 -> runai@2.21: 43 changes (1 breaking, 0 strict,"
    )


def test_the_toleration_effect_any_of_2_19_breaks_a_reader_of_2_18(run_cli: RunCli) -> None:
    result = run_cli(["changes", "runai@2.18", "runai@2.19", "--no-witnesses", "--format", "json"], code=1)
    report = json.loads(result.stdout)
    added = [c for c in report["changes"] if c["rule"] == "enum-value-added"]
    assert {(c["path"], c["new"], c["class"]) for c in added} == {
        ("/spec/tolerations/*/effect", "Any", "breaking"),
        ("/masterSpec/tolerations/*/effect", "Any", "breaking"),
    }
    assert all(c["failing"] for c in added)


def _field(**schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"k": schema}}


VALUES = st.one_of(st.text(max_size=4), st.integers(-5, 5), st.booleans())


@DRAWS
@given(
    st.lists(VALUES, min_size=1, max_size=4, unique_by=json.dumps),
    VALUES,
    st.sampled_from(["", "*", "{}"]),
)
def test_a_value_a_closed_set_never_held_is_breaking_wherever_the_set_stands(
    values: list[Any], extra: Any, where: str
) -> None:
    if any(json.dumps(extra) == json.dumps(value) for value in values):
        return

    def at(enum: list[Any]) -> dict[str, Any]:
        if where == "*":
            return _field(type="array", items={"enum": enum})
        if where == "{}":
            return _field(type="object", additionalProperties={"enum": enum})
        return _field(enum=enum)

    found = [c for c in compare(at(values), at([*values, extra])) if c.rule == "enum-value-added"]
    assert [(c.kind, c.new) for c in found] == [("breaking", extra)]
    dropped = compare(_field(enum=values), _field())
    assert ("enum-removed", "breaking") in [
        (c.rule, c.kind) for c in dropped
    ]  # (and the types, if it set them)


def test_a_const_changed_is_a_value_added_that_breaks() -> None:
    found = {(c.rule, c.kind) for c in compare(_field(const="a"), _field(const="b"))}
    assert found == {("enum-value-added", "breaking"), ("enum-value-removed", "safe")}


def test_a_value_removed_and_a_set_made_closed_stay_safe() -> None:
    assert [(c.rule, c.kind) for c in compare(_field(enum=["a", "b"]), _field(enum=["a"]))] == [
        ("enum-value-removed", "safe")
    ]
    assert [(c.rule, c.kind) for c in compare(_field(type="string"), _field(type="string", enum=["a"]))] == [
        ("enum-added", "safe")
    ]


# ------------------------------------------------------------------ AIHC v1 and v2


def test_aihc_v1_against_v2_says_their_answers_are_different_schemas(run_cli: RunCli) -> None:
    """AIHC v2's DescribeJob answer is no version of v1's job detail: comparing the two APIs' versions
    names the schemas only one has, instead of '0 changes' (the error body, in both, is compared)."""
    result = run_cli(["changes", "aihc@v1", "aihc@v2", "--no-witnesses"], code=2)
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: ") and "cannot pair their schemas" in line
    assert "aihc-job-detail, aihc-raw-request only in AIHC v1; aihc-v2-job only in AIHC v2" in line
    same = run_cli(["changes", "aihc-error@v1", "aihc-error@v2", "--no-witnesses"], code=0)
    assert same.stdout.startswith("aihc-error@v1 -> aihc-error@v2: 0 changes")


@pytest.mark.parametrize(
    ("side", "why"), [("aihc-v2-job@v1", "AIHC v2's"), ("aihc-job-detail@v2", "AIHC v1's")]
)
def test_a_schema_at_a_version_it_is_not_in_is_named(run_cli: RunCli, side: str, why: str) -> None:
    result = run_cli(["changes", side, "aihc-error", "--no-witnesses"], code=2)
    (line,) = result.stderr.splitlines()
    assert line.endswith(f"is not in {side.split('@')[1].join(['AIHC ', ''])} (it is {why})")


# ------------------------------------------- a closed set in one branch of a composition


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
@pytest.mark.parametrize(
    "beside", [{"type": "integer"}, {"type": "null"}, {"type": "object"}, {"type": ["integer", "boolean"]}]
)
def test_a_value_added_to_an_enum_beside_branches_of_other_types_is_found(keyword: str, beside: Any) -> None:
    """``anyOf: [{enum: [a]}, {type: integer}]``: the strings are a closed set all the same; a new one
    breaks a reader's switch over them (it was no change at all)."""
    old = _field(**{keyword: [{"type": "string", "enum": ["a"]}, beside]})
    new = _field(**{keyword: [{"type": "string", "enum": ["a", "b"]}, beside]})
    found = [(c.rule, c.kind, c.new) for c in compare(old, new)]
    assert found == [("enum-value-added", "breaking", "b")]
    back = [(c.rule, c.kind, c.old) for c in compare(new, old)]
    assert back == [("enum-value-removed", "safe", "b")]


def test_an_enum_beside_a_branch_of_its_own_type_is_no_closed_set() -> None:
    """``anyOf: [{enum: [a]}, {type: string}]`` takes any string: a value added to the enum is no change."""
    old = _field(anyOf=[{"type": "string", "enum": ["a"]}, {"type": "string"}])
    new = _field(anyOf=[{"type": "string", "enum": ["a", "b"]}, {"type": "string"}])
    assert compare(old, new) == []


@pytest.mark.parametrize(  # (the witness search runs hypothesis itself: no @given around it)
    ("values", "extra"), [(["a"], "b"), (["", "x"], "y"), (["é", "E"], "e"), (["1"], "01")]
)
def test_the_witness_of_a_value_added_in_a_branch_is_proven(values: list[str], extra: str) -> None:
    from jobschema.changes import sides_of
    from jobschema.changes.witness import Maker

    old = _field(anyOf=[{"type": "string", "enum": values}, {"type": "integer"}])
    new = _field(anyOf=[{"type": "string", "enum": [*values, extra]}, {"type": "integer"}])
    ((left, right),) = sides_of(old, new)
    (change,) = compare(old, new)
    witness = Maker(left, right).witness(change)
    assert witness is not None and witness.proven, witness
