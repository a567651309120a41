"""``jobschema record``, round 12: a terminal status in another case ends the recording.

AIHC's job ``status`` is an open string (Baidu publishes no table of it; its own sources spell it
inconsistently, ``Succeed`` beside ``Succeeded``), and no Baidu client compares its case: the SDKs
read it as a plain string. So ``succeeded``, ``FAILED`` or ``manualtermination`` end an AIHC
recording (v1 and v2) as ``Succeeded``, ``Failed`` and ``ManualTermination`` do: before, record
polled such a job until ``--count`` ran out. Run:ai's ``actualPhase`` is a closed enum that NVIDIA's
own clients compare exactly (``../shared/reference/runai-api.md`` section 11), so a Run:ai phase in
another case stays unknown: the recording goes on to ``--count`` and the snapshot is an enum error.

Every peer is a loopback fake; the recorder runs on a fake clock. Polls are counted, never timed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.lifecycle import AIHC, RUNAI, TERMINAL, State, is_terminal, is_transient, state_of
from jobschema.record import Schedule
from tests.hostile_support import (
    ENV,
    JOB,
    answer,
    cluster_answer,
    is_cluster,
    is_token,
    running,
    token_answer,
    workload,
)
from tests.record_support import FakeTime, run_record

COUNT = 8
BCE_ENV = {"BCE_ACCESS_KEY_ID": "ak0123456789abcdef0123", "BCE_SECRET_ACCESS_KEY": "sk-round12-not-real"}
AIHC_JOB = "job-k3m9xq2vw7tz"


def _cases(value: str) -> list[str]:
    return sorted({value.lower(), value.upper(), value.swapcase()} - {value})


AIHC_TERMINAL = sorted(value for value, state in AIHC.items() if state in TERMINAL)
RUNAI_TERMINAL = sorted(value for value, state in RUNAI.items() if state in TERMINAL)


def _v1(status: str) -> dict[str, Any]:
    finished = "2026-07-04T09:00:00Z" if is_terminal("aihc", status) else ""
    result = {"jobId": AIHC_JOB, "name": "sft", "status": status, "finishedAt": finished}
    return {"requestId": "r-1", "result": result}


def _v2(status: str) -> dict[str, Any]:
    job = {"jobid": AIHC_JOB, "name": "sft", "status": status, "finishedAt": ""}
    return {"requestId": "r-1", "job": job}


def _aihc_peer(shape: Any, last: str) -> Any:
    """``Running`` at the first poll, ``last`` from then on."""
    polls: list[str] = []

    def handler(request: Any, conn: Any) -> None:
        polls.append(request.path)
        return answer(conn, 200, shape("Running" if len(polls) == 1 else last))

    return handler, polls


def _record_aihc(tmp_path: Any, api: str, last: str) -> tuple[Any, list[str]]:
    handler, polls = _aihc_peer(_v2 if api == "v2" else _v1, last)
    with running(handler) as peer:
        got = run_record(
            peer,
            "aihc",
            [AIHC_JOB],
            tmp_path,
            FakeTime(),
            env=BCE_ENV,
            schedule=Schedule(interval=10, count=COUNT),
            aihc_api=api,
        )
    return got, polls


@pytest.mark.parametrize("api", ["v1", "v2"])
@pytest.mark.parametrize("status", [variant for value in AIHC_TERMINAL for variant in _cases(value)])
def test_an_aihc_terminal_status_in_another_case_ends_the_recording(tmp_path, api, status):
    got, polls = _record_aihc(tmp_path, api, status)
    job = got.outcome.jobs[0]
    assert (job.done, len(polls), len(got.lines)) == ("terminal", 2, 2), got.err


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_an_aihc_status_that_is_no_terminal_one_in_any_case_polls_to_the_count(tmp_path, api):
    got, polls = _record_aihc(tmp_path, api, "RUNNING")
    assert (got.outcome.jobs[0].done, len(polls)) == ("count", COUNT)


def _runai_peer(last: str) -> Any:
    polls: list[str] = []

    def handler(request: Any, conn: Any) -> None:
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        polls.append(request.path)
        return answer(conn, 200, workload(phase="Running" if len(polls) == 1 else last))

    return handler, polls


def _record_runai(tmp_path: Any, last: str) -> tuple[Any, list[str]]:
    handler, polls = _runai_peer(last)
    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV, schedule=Schedule(interval=10, count=COUNT)
        )
    return got, polls


@pytest.mark.parametrize("phase", RUNAI_TERMINAL)
def test_a_runai_terminal_phase_ends_the_recording(tmp_path, phase):
    got, polls = _record_runai(tmp_path, phase)
    assert (got.outcome.jobs[0].done, len(polls), got.outcome.code) == ("terminal", 2, 0), got.err


@pytest.mark.parametrize("phase", ["completed", "FAILED", "stopped"])
def test_a_runai_phase_in_another_case_is_no_phase_and_polls_to_the_count(tmp_path, phase):
    """Run:ai's phases are case-sensitive (NVIDIA's clients compare them exactly): ``completed`` is
    no phase, the recording goes on to ``--count``, and each such snapshot is an enum error."""
    got, polls = _record_runai(tmp_path, phase)
    assert (got.outcome.jobs[0].done, len(polls), got.outcome.code) == ("count", COUNT, 1)
    assert "[enum]" in got.out + got.err


def test_the_lifecycle_reads_aihc_statuses_in_any_case_and_run_ai_phases_exactly():
    for value, state in AIHC.items():
        for variant in _cases(value):
            assert state_of("aihc", variant) is state, variant
    for value in RUNAI:
        for variant in _cases(value):
            assert not is_terminal("runai", variant), variant


# ------------------------------------------------------------- one lookup: timeline, serve, any case


@settings(database=None, derandomize=True, max_examples=100, deadline=None)
@given(st.sampled_from(sorted(AIHC)), st.lists(st.booleans(), min_size=40, max_size=40))
def test_an_aihc_status_in_any_casing_is_its_state(value: str, upper: list[bool]) -> None:
    variant = "".join(c.upper() if up else c.lower() for c, up in zip(value, upper, strict=False))
    assert state_of("aihc", variant) is AIHC[value]
    assert is_terminal("aihc", variant) == (AIHC[value] in TERMINAL)
    assert not is_transient("aihc", variant) or variant == "Unknown"  # (only the API's own Unknown)
    if variant != value:
        assert state_of("runai", variant) is State.UNKNOWN or variant in RUNAI


def test_a_v2_recording_ending_in_another_case_is_drawn_ending_so(run_cli: Any, tmp_path: Any) -> None:
    answers = [
        {**_v2("Running"), "job": {**_v2("Running")["job"], "createdAt": "2026-07-04T08:00:00Z"}},
        _v2("MANUALTERMINATION"),
    ]
    path = tmp_path / "rec.ndjson"
    path.write_text("".join(json.dumps(answer) + "\n" for answer in answers), encoding="utf-8")
    report = json.loads(run_cli(["timeline", "-f", "json", str(path)]).stdout)
    assert [s["state"] for s in report["jobs"][0]["segments"]][-1] == "stopped"


def test_serve_s_lifecycle_config_still_names_each_phase_as_the_api_sends_it() -> None:
    """``serve`` sends the configured phase to clients as written, so it must be the API's spelling."""
    from jobschema.serve.config import phase_problem

    assert phase_problem("aihc", "Succeeded") is None
    assert "'succeeded' is not" in (phase_problem("aihc", "succeeded") or "")
