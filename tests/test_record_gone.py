"""A job deleted while it is recorded ends its recording, complete: Run:ai, AIHC v1 and AIHC v2 alike.

Each API says a job does not exist its own way (Run:ai: 404; AIHC v1 and v2: the error code
``cce.warning.GetAIJobByJobIdFailed``, with 404 from ``jobschema serve``); said after a snapshot of
the job in a known phase, the job was deleted: its recording ends there (``(deleted) (gone)``), with
one note on stderr, exit 0 when what was recorded is valid. Said before any snapshot it is what the
live APIs answer right after a submit: polled through; a job never found ends the recording with one
error line, exit 1. Everything runs against ``jobschema serve`` on a fake clock both sides share.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from jobschema.apis import aihc, aihc_v2, runai
from jobschema.record import Schedule
from jobschema.serve import RunningServer
from tests.record_support import (
    WORKLOADS,
    FakeTime,
    Recorded,
    run_record,
    submit_job,
    submit_workload,
)
from tests.serve_support import POOL, TIMEOUT, bce_config, bce_send, bearer

NOT_FOUND = "cce.warning.GetAIJobByJobIdFailed"
#: Each API as the recorder is asked for it: its status-line name, options, and its not-found words.
APIS = {
    "runai": ("runai", {}, "404"),
    "aihc-v1": ("aihc", {}, f"404 {NOT_FOUND}"),
    "aihc-v2": ("aihc", {"aihc_api": "v2"}, f"404 {NOT_FOUND}"),
}
LIFECYCLE = {
    "runai": ["Creating", {"phase": "Running", "polls": 50}, "Completed"],
    "aihc": ["Pending", {"phase": "Running", "polls": 50}, "Succeeded"],
}


def phases(lines: list[dict[str, Any]]) -> list[str]:
    """The phase of each snapshot, as each API says it (v2: ``job.status``)."""
    return [aihc_v2.phase(line) or runai.phase(line) or aihc.phase(line) or "" for line in lines]


def _submit(server: RunningServer, which: str) -> str:
    return submit_workload(server) if which == "runai" else submit_job(server)


def _delete(server: RunningServer, which: str, job: str) -> None:
    """Delete ``job`` as a client of its API would, over HTTP: Run:ai through ``DELETE`` (``Deleting``
    for a poll, then gone); AIHC v1 through ``DELETE /api/v1/aijobs/{jobId}`` sent by the Baidu SDK's
    own signer and HTTP client, v2 through bce-python-sdk's ``AihcClient.DeleteJob``: not found at
    once, as AIHC answers a job it no longer has."""
    if which == "runai":
        answer = httpx.delete(f"{server.url}{WORKLOADS}/{job}", headers=bearer(server), timeout=TIMEOUT)
        assert answer.status_code == 202, answer.text
        return
    if which == "aihc-v1":
        deleted = bce_send(bce_config(server), "DELETE", f"/api/v1/aijobs/{job}", {"resourcePoolId": POOL})
        assert deleted.result.job_id == job
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # the SDK leaves its socket to the GC
        deleted = _bce_aihc_client(server).DeleteJob(POOL, "default", job)
    assert deleted.jobId == job


def _bce_aihc_client(server: RunningServer) -> Any:
    """bce-python-sdk's AIHC v2 client, signed in to ``server``."""
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.bce_client_configuration import BceClientConfiguration
    from baidubce.retry.retry_policy import NoRetryPolicy
    from baidubce.services.aihc.aihc_client import AihcClient

    creds = BceCredentials(server.credentials.bce_access_key_id, server.credentials.bce_secret_access_key)
    return AihcClient(
        BceClientConfiguration(credentials=creds, endpoint=server.url, retry_policy=NoRetryPolicy())
    )


def _stop(server: RunningServer, which: str, job: str) -> None:
    """Stop ``job`` over HTTP: Run:ai's suspend, AIHC v1's ``POST …/stop``, v2's ``StopJob``."""
    if which == "runai":
        url = f"{server.url}{WORKLOADS}/{job}/suspend"
        assert httpx.post(url, headers=bearer(server), timeout=TIMEOUT).status_code == 202
    elif which == "aihc-v1":
        stopped = bce_send(bce_config(server), "POST", f"/api/v1/aijobs/{job}/stop", {"resourcePoolId": POOL})
        assert stopped.result.job_id == job
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            assert _bce_aihc_client(server).StopJob(POOL, "default", job).jobId == job


def _after_sleeps(count: int, action: Callable[[], None]) -> Callable[[FakeTime], None]:
    """A hook running ``action`` once, after the recorder's ``count``-th sleep (between polls)."""

    def hook(fake: FakeTime) -> None:
        if len(fake.slept) == count:
            action()

    return hook


def _record(server: RunningServer, which: str, job: str, tmp_path, fake: FakeTime, **extra: Any) -> Recorded:
    api, options, _ = APIS[which]
    return run_record(server, api, [job], tmp_path, fake, **options, **extra)


@pytest.mark.parametrize("which", sorted(APIS))
def test_a_job_deleted_while_recorded_ends_complete_with_one_note(jobschema_server, tmp_path, which):
    fake = FakeTime()
    api, _, said = APIS[which]
    server = jobschema_server(lifecycle={api: LIFECYCLE[api]}, clock=fake)
    job = _submit(server, which)
    fake.hooks.append(_after_sleeps(2, lambda: _delete(server, which, job)))
    got = _record(server, which, job, tmp_path, fake)
    recorded = phases(got.lines)
    assert recorded[:2] == [LIFECYCLE[api][0], "Running"]
    assert recorded[2:] == (["Deleting"] if which == "runai" else [])  # Run:ai shows it, a poll long
    state = got.outcome.jobs[0]
    assert state.done == "gone" and got.outcome.code == 0
    polls = 4 if which == "runai" else 3
    assert state.polls == polls  # not --count (50): the poll that found it gone was the last
    changes = "2 changes" if which == "runai" else "1 change"
    assert got.err.splitlines()[-2:] == [
        f"note: {api} {job}: deleted: the API answered {said} (no such job) after its last snapshot; "
        "its recording is complete",
        f"{api} {job}: (deleted) (gone); {polls} polls, {changes}, 1 error (404)",
    ]
    assert got.statuses()[-1][1] == 404


@pytest.mark.parametrize("which", sorted(APIS))
def test_a_job_stopped_while_recorded_ends_at_its_stopped_phase(jobschema_server, tmp_path, which):
    fake = FakeTime()
    api, _, _ = APIS[which]
    server = jobschema_server(lifecycle={api: LIFECYCLE[api]}, clock=fake)
    job = _submit(server, which)
    fake.hooks.append(_after_sleeps(2, lambda: _stop(server, which, job)))
    got = _record(server, which, job, tmp_path, fake)
    stopped = "Stopped" if which == "runai" else "ManualTermination"
    assert phases(got.lines) == [LIFECYCLE[api][0], "Running", "Stopping", stopped]
    assert got.outcome.jobs[0].done == "terminal" and got.outcome.code == 0
    assert got.outcome.jobs[0].polls == 4


def test_a_runai_workload_gone_before_the_recorder_saw_it_deleting_ends_too(jobschema_server, tmp_path):
    """(Before: only a 404 after a ``Deleting`` snapshot ended it; a workload deleted between two
    polls, its ``Deleting`` seen by nobody, was polled until --count.)"""
    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": LIFECYCLE["runai"]}, clock=fake)
    job = submit_workload(server)

    def delete_unseen() -> None:
        _delete(server, "runai", job)
        seen = httpx.get(f"{server.url}{WORKLOADS}/{job}", headers=bearer(server), timeout=TIMEOUT)
        assert seen.json()["actualPhase"] == "Deleting"  # another client saw it; the recorder did not

    fake.hooks.append(_after_sleeps(2, delete_unseen))
    got = run_record(server, "runai", [job], tmp_path, fake)
    assert phases(got.lines) == ["Creating", "Running"]
    assert got.outcome.jobs[0].done == "gone" and got.outcome.code == 0
    assert got.err.splitlines()[-1] == f"runai {job}: (deleted) (gone); 3 polls, 1 change, 1 error (404)"


@pytest.mark.parametrize("which", sorted(APIS))
def test_a_job_never_found_is_one_error_line_and_exit_1(jobschema_server, tmp_path, which):
    fake = FakeTime()
    api, _, said = APIS[which]
    server = jobschema_server(clock=fake)
    job = "0f6d2a4c-1b3e-4d5f-8a7b-9c0d1e2f3a4b" if api == "runai" else "pytorchjob-0000-unknown"
    got = _record(server, which, job, tmp_path, fake, schedule=Schedule(interval=10, count=3))
    names = {"runai": "the workload id", "aihc-v1": "the job id and --resource-pool"}
    names["aihc-v2"] = "the job id, --resource-pool and --queue"
    assert got.outcome.code == 1 and got.outcome.jobs[0].done == "count"
    assert got.err.splitlines()[-2:] == [
        f"{api} {job}: (no snapshot) (count); 3 polls, 0 changes, 3 errors (404)",
        f"error: {api} {job}: never found: the API answered {said} (no such job) and no snapshot; "
        f"check {names[which]}",
    ]


@pytest.mark.parametrize("which", sorted(APIS))
def test_not_found_right_after_submit_is_polled_through(jobschema_server, tmp_path, which):
    """What the live APIs answer while a new job is not visible yet (and ``Unknown`` after it) is no
    deletion: the job is recorded to its end."""
    fake = FakeTime()
    api, _, _ = APIS[which]
    config = {api: {"lifecycle": [*LIFECYCLE[api][:1], LIFECYCLE[api][2]], "not_found_after_submit": 2}}
    config[api]["unknown_after_submit"] = 1
    server = jobschema_server(config=config, clock=fake)
    job = _submit(server, which)
    got = _record(server, which, job, tmp_path, fake)
    assert phases(got.lines) == ["Unknown", LIFECYCLE[api][0], LIFECYCLE[api][2]]
    assert got.outcome.jobs[0].done == "terminal" and got.outcome.code == 0
    assert got.outcome.jobs[0].errors == {"404": 2}
    assert "never found" not in got.err and "deleted" not in got.err


def test_a_job_not_found_after_an_unknown_snapshot_is_polled_through(jobschema_server, tmp_path):
    """``Unknown`` is no sign the job exists for real: a not-found answer after it is polled through
    (the job here never comes back: --count ends it)."""
    fake = FakeTime()
    config = {"aihc": {"lifecycle": LIFECYCLE["aihc"], "unknown_after_submit": 3}}
    server = jobschema_server(config=config, clock=fake)
    job = submit_job(server)
    fake.hooks.append(_after_sleeps(1, lambda: _delete(server, "aihc-v1", job)))
    got = run_record(server, "aihc", [job], tmp_path, fake, schedule=Schedule(interval=10, count=4))
    assert phases(got.lines) == ["Unknown"]
    assert got.outcome.jobs[0].done == "count" and got.outcome.jobs[0].errors == {"404": 3}
