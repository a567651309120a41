"""jobschema.lifecycle, round 8: every enum of a job's, a pod's or a condition's phase, status or state
in every schema there is (each bundled schema, each Run:ai version's official spec found by listing
the folder, not by a list of versions) is mapped, or is named here as no lifecycle value with the
reason; a value added to any such enum later fails this test. A Run:ai phase in another case than
the API sends (``RUNNING``) or a value of another type is unknown, never guessed (an AIHC status is
read in any case since round 12), and none is taken for waiting right after submit."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema import lifecycle
from jobschema.lifecycle import MAPS, State, is_transient, observe, state_of
from jobschema.schemas import registry
from tests.support import REPO

#: A property or component whose name says it holds a phase, status, state or condition.
STATEFUL = re.compile(r"phase|status|state|conditiontype", re.IGNORECASE)

#: Enums so named that are no job's or pod's lifecycle, each with why.
NOT_LIFECYCLE = {
    "desiredPhase": "what the user asked for (Running, Stopped, Deleted), not what the job is",
    "WorkloadDesiredPhase": "the official spec's name of desiredPhase",
    "enableBcclStatus": "whether a BCCL check passed (success, failed, unknown), not the job",
    "ClusterState": "a cluster's connection state (Run:ai 2.24), not a workload's",
}
#: Components of the official Run:ai specs that describe no workload: a cluster's state and its
#: conditions (``status``: ``True``, ``False``, ``Unknown``, as Kubernetes conditions say).
NOT_WORKLOADS = re.compile(r"Cluster")


def _kind(schema: str, trail: tuple[str, ...]) -> str:
    """The map a value belongs to: a pod's below a pod (AIHC v1 ``podStatus``, v2 ``Pod``) or a value
    named ``podPhase``; else the schema's platform."""
    if any(step in ("Pod", "pods", "podStatus", "podPhase") for step in trail):
        return "pod"
    return "runai" if schema.startswith("runai") or schema.startswith("official/runai") else "aihc"


def _enums(node: Any, schema: str, trail: tuple[str, ...] = ()) -> Iterator[tuple[str, str, str, str, str]]:
    """(schema, map, component, name, value) for every string of every enum below ``node`` held by a
    property, a definition or a component whose name matches :data:`STATEFUL` (``component``: the
    official spec's component it is in, else empty)."""
    if isinstance(node, dict):
        named = next((step for step in reversed(trail) if step not in _STRUCTURE), "")
        component = trail[2] if trail[:2] == ("components", "schemas") and len(trail) > 2 else ""
        for key in ("enum", "x-jobschema-known-values"):
            values = node.get(key)
            if isinstance(values, list) and STATEFUL.search(named):
                for value in values:
                    if isinstance(value, str):
                        yield schema, _kind(schema, trail), component, named, value
        for key, value in node.items():
            yield from _enums(value, schema, (*trail, key))
    elif isinstance(node, list):
        for value in node:
            yield from _enums(value, schema, (*trail, "[]"))


#: Steps of a schema's own structure, never a value's name.
_STRUCTURE = {"properties", "items", "allOf", "anyOf", "oneOf", "[]", "$defs", "definitions", "schemas",
              "components", "additionalProperties", "enum", "x-jobschema-known-values"}  # fmt: skip


def _everything() -> list[tuple[str, str, str, str, str]]:
    found = []
    for name in registry.BUNDLED:
        found += _enums(registry.load(name).document, name)
    for path in sorted((REPO / "schemas" / "official" / "runai").glob("*.json")):
        found += _enums(json.loads(path.read_text(encoding="utf-8")), f"official/runai/{path.stem}")
    return sorted(set(found))


EVERYTHING = _everything()


def test_the_walk_finds_every_schema_and_every_version() -> None:
    schemas = {schema for schema, *_ in EVERYTHING}
    versions = {p.stem for p in (REPO / "schemas" / "official" / "runai").glob("*.json")}
    assert {f"official/runai/{v}" for v in versions} <= schemas and len(versions) >= 7
    assert {"runai-distributed-workload", "aihc-job-detail", "aihc-v2-job"} <= schemas
    names = {name for _, _, _, name, _ in EVERYTHING}
    assert {"actualPhase", "Phase", "status", "podPhase", "conditionType"} <= names, names
    assert ("aihc-v2-job", "pod", "", "status", "Succeed") in EVERYTHING


@pytest.mark.parametrize(("schema", "kind", "component", "name", "value"), EVERYTHING)
def test_every_stateful_enum_value_of_every_schema_is_mapped_or_named_no_lifecycle(
    schema: str, kind: str, component: str, name: str, value: str
) -> None:
    if name in NOT_LIFECYCLE or NOT_WORKLOADS.match(component):
        return
    assert value in MAPS[kind], f"{schema}: {name}={value!r} has no state in lifecycle.{kind.upper()}"


def test_every_name_said_to_be_no_lifecycle_is_still_in_a_schema() -> None:
    """No stale entry: each exception names an enum some schema has."""
    assert set(NOT_LIFECYCLE) <= {name for _, _, _, name, _ in EVERYTHING}
    assert any(NOT_WORKLOADS.match(component) for _, _, component, _, _ in EVERYTHING)


def test_a_new_enum_value_fails_the_walk() -> None:
    """The walk is what the test above reads: a value added to a schema's enum is found by it."""
    document = json.loads(json.dumps(registry.load("aihc-v2-job").document))
    document.setdefault("$defs", {})["Extra"] = {"properties": {"status": {"enum": ["Queued"]}}}
    found = {(kind, value) for _, kind, _, _, value in _enums(document, "aihc-v2-job")}
    assert ("aihc", "Queued") in found and "Queued" not in MAPS["aihc"]


def _cases(value: str) -> set[str]:
    return {value.lower(), value.upper(), value.swapcase(), value.capitalize()} - {value}


OTHER_CASES = sorted(
    {(api, variant) for api, phases in MAPS.items() for value in phases for variant in _cases(value)}
    - {(api, value) for api, phases in MAPS.items() for value in phases}
)


@pytest.mark.parametrize(("api", "variant"), OTHER_CASES)
def test_a_value_in_another_case_is_never_waiting_after_submit(api: str, variant: str) -> None:
    """Unknown for Run:ai and pods (their clients compare case); an AIHC status in any case is the
    status it names (round 12: ``lifecycle.CASE_INSENSITIVE``), and never the transient ``Unknown``."""
    named = next(value for value in MAPS[api] if value.casefold() == variant.casefold())
    expected = MAPS[api][named] if api in lifecycle.CASE_INSENSITIVE else State.UNKNOWN
    assert state_of(api, variant) is expected
    assert not is_transient(api, variant)
    assert observe(api, variant, since_submit=1.0) is expected


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@settings(database=None, derandomize=True, max_examples=300, deadline=None)
@given(st.sampled_from(sorted(MAPS)), JSON, st.sampled_from([200, 404, 429, 503]), st.none() | st.floats())
def test_any_value_is_a_state_never_an_exception_and_only_failed_fails(
    api: str, value: Any, status: int, since: float | None
) -> None:
    state = observe(api, value, status=status, since_submit=since)
    assert isinstance(state, State)
    if state is State.FAILED:
        assert status == 200
        assert value == "Failed" or (api in lifecycle.CASE_INSENSITIVE and value.casefold() == "failed")
    if not isinstance(value, str):
        assert state_of(api, value) is State.UNKNOWN


def test_the_lifecycle_page_says_how_a_new_enum_value_is_caught() -> None:
    page = (REPO / "docs" / "lifecycle.md").read_text(encoding="utf-8")
    assert "conditionType" in page and "desiredPhase" in page
    assert lifecycle.TRANSIENT_WINDOW == 120.0


@pytest.mark.parametrize("status", [True, False, 200.0, "200", None])
def test_a_status_that_is_no_integer_is_a_type_error_true_included(status: Any) -> None:
    """``True == 1`` in Python, but ``true`` is no HTTP status: refused as any other non-integer."""
    with pytest.raises(TypeError, match="status: expected an HTTP status code"):
        observe("runai", "Running", status=status, since_submit=1.0)
