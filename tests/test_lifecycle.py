"""jobschema.lifecycle: the one map from each platform's phases and statuses to a job's state. It
covers every value of every bundled schema and every Run:ai version (found by walking the schemas,
so a schema or version added later is covered without editing this test), terminal states are
those the APIs document, and the transient rule never turns an answer into a failure (the
NVIDIA-NeMo/Run #458 scenario replayed through serve and record)."""

from __future__ import annotations

import doctest
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema import lifecycle
from jobschema.lifecycle import AIHC, POD, RUNAI, TERMINAL, State, is_terminal, observe, state_of
from jobschema.schemas import registry
from jobschema.schemas.versions import known
from tests.record_support import FakeTime, run_record, submit_job, submit_workload
from tests.support import REPO

#: Properties whose values are a job's or a pod's phase or status.
STATE_NAMES = {"actualPhase": None, "phase": None, "status": None, "podPhase": "pod"}


def _values(node: Any) -> list[str]:
    values = node.get("enum") or node.get("x-jobschema-known-values") or []
    return [v for v in values if isinstance(v, str)]


def _state_properties(node: Any, api: str) -> Iterator[tuple[str, str, str]]:
    """(map, property, value) for every enumerated phase or status below ``node``; below a definition
    named ``Pod`` (AIHC v2's pod), a ``status`` is a pod's."""
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            if key in STATE_NAMES and isinstance(value, dict):
                for found in _values(value):
                    yield STATE_NAMES[key] or api, key, found
        for key, value in node.items():
            yield from _state_properties(value, "pod" if key == "Pod" else api)
    elif isinstance(node, list):
        for value in node:
            yield from _state_properties(value, api)


def _bundled() -> Iterator[tuple[str, str, str, str]]:
    for name in registry.BUNDLED:
        if name.endswith("-error"):
            continue
        api = name.split("-", 1)[0]
        for kind, key, value in _state_properties(registry.load(name).document, api):
            yield name, kind, key, value


def _official() -> Iterator[tuple[str, str]]:
    for version in known("runai"):
        spec = json.loads((REPO / "schemas" / "official" / "runai" / f"{version}.json").read_text())
        for value in spec["components"]["schemas"]["Phase"]["enum"]:
            yield version, value


BUNDLED_VALUES = sorted(set(_bundled()))
OFFICIAL_VALUES = sorted(set(_official()))


def test_the_schemas_hold_phases_to_map() -> None:
    assert {kind for _, kind, _, _ in BUNDLED_VALUES} >= {"runai", "aihc", "pod"}
    assert ("aihc-v2-job", "pod", "status", "Succeed") in BUNDLED_VALUES
    assert len(OFFICIAL_VALUES) >= 14 * 7


@pytest.mark.parametrize(("schema", "kind", "key", "value"), BUNDLED_VALUES)
def test_every_value_of_every_bundled_schema_is_mapped(schema: str, kind: str, key: str, value: str) -> None:
    assert value in lifecycle.MAPS[kind], f"{schema} {key}={value} has no state"


@pytest.mark.parametrize(("version", "value"), OFFICIAL_VALUES)
def test_every_phase_of_every_runai_version_is_mapped(version: str, value: str) -> None:
    assert value in RUNAI, f"Run:ai {version} Phase {value} has no state"


def test_terminal_states_are_the_documented_ones() -> None:
    assert lifecycle.terminal_values("runai") == {"Completed", "Failed", "Stopped"}
    assert lifecycle.terminal_values("aihc") == {"Succeeded", "Failed", "Stopped", "ManualTermination"}
    assert {value for value, state in POD.items() if state in TERMINAL} == {"Succeeded", "Succeed", "Failed"}


def test_only_a_failed_phase_is_failed() -> None:
    for values in (RUNAI, AIHC, POD):
        assert [v for v, s in values.items() if s is State.FAILED] == ["Failed"]


def test_a_value_no_map_knows_is_unknown_never_running() -> None:
    """ZenML's map sent what it did not know to "running"; the case of a value matters too."""
    for value in ("running", "succeeded", "error", "Queued", "", "RUNNING"):
        assert state_of("runai", value) is State.UNKNOWN
        assert not is_terminal("runai", value)
    for value in ("error", "Queued", "", "Completed", "succeed"):  # (AIHC reads its statuses in any case)
        assert state_of("aihc", value) is State.UNKNOWN


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    api=st.sampled_from(["runai", "aihc"]),
    phase=st.none() | st.sampled_from(sorted({*RUNAI, *AIHC})) | st.text(max_size=8),
    status=st.sampled_from([200, 202, 401, 403, 404, 429, 500, 502, 503, 504]),
    since=st.none() | st.floats(-10, 10_000, allow_nan=False),
)
def test_no_answer_but_a_failed_phase_is_a_failure(
    api: str, phase: str | None, status: int, since: float | None
):
    seen = observe(api, phase, status=status, since_submit=since)
    if seen is State.FAILED:
        assert status == 200 and phase == "Failed"
    transient = lifecycle.is_transient(api, phase, status)
    if transient and since is not None and 0 <= since <= lifecycle.TRANSIENT_WINDOW:
        assert seen is State.WAITING
    if transient and (since is None or since > lifecycle.TRANSIENT_WINDOW):
        assert seen is State.UNKNOWN
    if status == 200 and phase is not None and state_of(api, phase) is State.UNKNOWN and not transient:
        assert seen is State.UNKNOWN  # a phase no map knows is unknown at any time, never waiting


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(lifecycle).failed == 0


# --- the #458 scenario: submit, then Unknown, a 404 and 503s, through serve and record ----------------


def _observed(recorded, api: str, submitted_at: float) -> list[State]:
    states = []
    for entry in recorded.entries:
        if entry["request"]["method"] != "GET" or "/clusters/" in entry["request"]["url"]:
            continue
        status = entry["response"]["status"]
        text = entry["response"]["content"].get("text") or "{}"
        body = json.loads(text) if status == 200 else {}
        phase = body.get("actualPhase") if api == "runai" else (body.get("result") or {}).get("status")
        started = datetime.fromisoformat(entry["startedDateTime"]).timestamp()
        states.append(observe(api, phase, status=status, since_submit=started - submitted_at))
    return states


@pytest.mark.parametrize("api", ["runai", "aihc"])
def test_the_458_scenario_yields_no_failed_state(jobschema_server, tmp_path, api: str) -> None:
    fake = FakeTime()
    lifecycle_steps = {
        "runai": ["Creating", "Running", "Completed"],
        "aihc": ["Pending", "Running", "Succeeded"],
    }
    server = jobschema_server(
        lifecycle=lifecycle_steps,
        config={api: {"unknown_after_submit": 2, "not_found_after_submit": 1}} if api == "runai" else None,
        faults=[{"route": f"{api}.get", "rate": 0.4, "status": [503], "retry_after": 0}],
        clock=fake,
        seed=3,
    )
    submitted_at = fake.now
    job = submit_workload(server) if api == "runai" else submit_job(server)
    recorded = run_record(server, api, [job], tmp_path, fake)
    states = _observed(recorded, api, submitted_at)
    assert State.FAILED not in states
    assert states[-1] is State.SUCCEEDED
    if api == "runai":  # Unknown and 404 right after submit were seen, and read as waiting
        assert [(m, s) for m, s in recorded.statuses() if s == 404] != []
        assert "Unknown" in [line.get("actualPhase") for line in recorded.lines]
        assert states[0] is State.WAITING
    assert recorded.outcome.jobs[0].done == "terminal"


def test_the_lifecycle_page_lists_every_value() -> None:
    page = (REPO / "docs" / "lifecycle.md").read_text(encoding="utf-8")
    for values in (RUNAI, AIHC, POD):
        for value, state in values.items():
            row = next(line for line in page.splitlines() if line.startswith(f"| {state.value}"))
            assert f"`{value}`" in row, (value, state)
