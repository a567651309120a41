"""``jobschema record`` as a library against ``jobschema serve`` on loopback: lifecycles recorded to
their terminal phase, change detection, token refresh, retries. A fake clock both sides share makes
every recording take milliseconds; every loop is bounded by ``count`` and the recorder's caps."""

from __future__ import annotations

import httpx

from jobschema.record import Schedule
from jobschema.serve import Credentials
from tests.record_support import (
    FIXTURES,
    WORKLOADS,
    FakeTime,
    phases,
    run_record,
    submit_job,
    submit_workload,
)
from tests.serve_support import HISTORY_JOB, POOL, RUNAI_HISTORY, TIMEOUT, bearer

RUNAI = ["Creating", {"phase": "Pending", "polls": 3}, {"phase": "Running", "polls": 3}, "Completed"]
NOISE_JOB = "pytorchjob-7c1e5a2b-93d4-4f0e-b6a8-2d5f1c9e0a34"


def _status(api: str, job: str, text: str) -> str:
    return f"{api} {job}: {text}\n"


def test_a_scripted_lifecycle_is_recorded_to_its_terminal_phase_changes_only(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": RUNAI}, clock=fake)
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, fake)
    assert phases(got.lines) == ["Creating", "Pending", "Running", "Completed"]
    assert got.outcome.code == 0
    assert got.statuses() == [("POST", 200)] + [("GET", 200)] * 9  # 8 polls, and the cluster once
    assert "/api/v1/clusters/" in got.entries[2]["request"]["url"]
    assert got.out == "4 payloads: 4 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
    assert got.err == "".join(
        _status("runai", job, text)
        for text in (
            "Creating; 1 poll, 0 changes, 0 errors",
            "Pending; 2 polls, 1 change, 0 errors",
            "Running; 5 polls, 2 changes, 0 errors",
            "Completed (terminal); 8 polls, 3 changes, 0 errors",
        )
    )
    assert [round(s, 3) for s in fake.slept] == [round(s, 3) for s in fake.slept if 9 <= s <= 11]
    assert len(fake.slept) == 7  # between the 8 polls, none after the terminal one


def test_all_writes_every_poll(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": RUNAI}, clock=fake)
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, fake, schedule=Schedule(interval=5, every=True))
    assert phases(got.lines) == ["Creating", *["Pending"] * 3, *["Running"] * 3, "Completed"]
    assert got.outcome.jobs[0].changes == 3


def test_per_answer_noise_is_no_change_but_a_new_status_is(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server([FIXTURES / "aihc-noise.ndjson"], clock=fake)
    got = run_record(server, "aihc", [NOISE_JOB], tmp_path, fake, resource_pool="cce-e0isdmib")
    assert phases(got.lines) == ["Pending", "Running", "Succeeded"]
    assert [line["requestId"] for line in got.lines] == [
        "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e",
        "8b3c4d5e-6f7a-4b8c-8d9e-1f2a3b4c5d6e",
        "0d5e6f7a-8b9c-4d0e-8f1a-3b4c5d6e7f80",
    ]
    assert got.err.splitlines()[-1] == (
        f"aihc {NOISE_JOB}: Succeeded (terminal); 5 polls, 2 changes, 0 errors"
    )


def test_ignore_drops_a_field_from_change_detection_but_never_the_status(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server([FIXTURES / "aihc-noise.ndjson"], clock=fake)
    got = run_record(
        server, "aihc", [NOISE_JOB], tmp_path, fake, resource_pool="cce-e0isdmib", ignore=("/result",)
    )
    assert phases(got.lines) == ["Pending", "Running", "Succeeded"]


def test_a_submitted_aihc_job_is_recorded_signed_by_the_sdk(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server(
        lifecycle={"aihc": ["Pending", {"phase": "Running", "polls": 2}, "Succeeded"]}, clock=fake
    )
    job = submit_job(server)
    got = run_record(server, "aihc", [job], tmp_path, fake)
    assert phases(got.lines) == ["Pending", "Running", "Succeeded"]
    assert got.statuses() == [("GET", 200)] * 4
    authorization = [h for h in got.entries[0]["request"]["headers"] if h["name"] == "authorization"]
    assert authorization[0]["value"].startswith("<secret:")
    assert got.outcome.code == 0


def test_several_jobs_share_one_file_each_line_naming_its_job(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server([RUNAI_HISTORY], lifecycle={"runai": RUNAI}, clock=fake)
    submitted = submit_workload(server)
    history = "7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13"
    got = run_record(server, "runai", [history, submitted], tmp_path, fake)
    ids = [line["workloadId"] for line in got.lines]
    assert sorted(set(ids)) == sorted({history, submitted})
    assert [line["actualPhase"] for line in got.lines if line["workloadId"] == history] == [
        "Pending",
        "Running",
        "Completed",
    ]
    assert [job.done for job in got.outcome.jobs] == ["terminal", "terminal"]


def test_the_access_token_is_fetched_again_before_it_expires(jobschema_server, tmp_path):
    fake = FakeTime()
    config = {
        "runai": {"token_expiry": 25, "lifecycle": ["Pending", {"phase": "Running", "polls": 8}, "Completed"]}
    }
    server = jobschema_server(config=config, clock=fake)
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, fake)
    posts = [entry for entry in got.entries if entry["request"]["method"] == "POST"]
    assert len(posts) >= 3  # 25 s tokens over 9 polls 10 s apart
    assert 401 not in [status for _, status in got.statuses()]
    assert phases(got.lines) == ["Pending", "Running", "Completed"]


class _ServerClock:
    """The server's clock: the shared fake time plus a jump the test makes."""

    def __init__(self, fake: FakeTime) -> None:
        self.fake, self.offset = fake, 0.0

    def __call__(self) -> float:
        return self.fake.now + self.offset


def test_a_token_rejected_mid_run_is_fetched_again_once(jobschema_server, tmp_path):
    fake = FakeTime()
    clock = _ServerClock(fake)
    server = jobschema_server(lifecycle={"runai": RUNAI}, clock=clock)
    job = submit_workload(server)

    def jump(time: FakeTime) -> None:  # after the second poll the server thinks 2 hours have passed
        if len(time.slept) == 2:
            clock.offset = 7200.0

    fake.hooks.append(jump)
    got = run_record(server, "runai", [job], tmp_path, fake)
    # the first poll, the cluster (once), the second poll, a 401 after the jump, a new token
    assert got.statuses()[:6] == [
        ("POST", 200),
        ("GET", 200),
        ("GET", 200),
        ("GET", 200),
        ("GET", 401),
        ("POST", 200),
    ]
    assert phases(got.lines) == ["Creating", "Pending", "Running", "Completed"]
    assert got.outcome.code == 0
    assert got.outcome.jobs[0].errors == {"401": 1}


def test_transient_503_and_429_are_retried_honouring_retry_after(jobschema_server, tmp_path):
    fake = FakeTime()
    faults = [
        {"route": "runai.get", "rate": 0.5, "status": [503, 429], "retry_after": 3},
        {"route": "runai.token", "rate": 1.0 / 3, "status": [503], "retry_after": 1},
    ]
    server = jobschema_server(lifecycle={"runai": RUNAI}, faults=faults, seed=4, clock=fake)
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, fake)
    assert phases(got.lines) == ["Creating", "Pending", "Running", "Completed"]
    statuses = [status for _, status in got.statuses()]
    assert 503 in statuses and 429 in statuses
    retried = [entry for entry in got.entries if entry["_attempt"] > 1]
    assert retried and all(entry["response"]["status"] in (200, 429, 503) for entry in retried)
    assert 3.0 in fake.slept  # Retry-After: 3, waited as given
    assert got.outcome.code == 0
    job_state = got.outcome.jobs[0]
    assert sum(job_state.errors.values()) == statuses.count(503) + statuses.count(429)
    assert got.err.splitlines()[-1].endswith(
        f"{sum(job_state.errors.values())} errors ({', '.join(sorted(job_state.errors))})"
    )


def test_retries_are_bounded_and_a_job_that_never_answers_exits_1(jobschema_server, tmp_path):
    fake = FakeTime()
    faults = [{"route": "runai.get", "rate": 1.0, "status": [503], "retry_after": None}]
    server = jobschema_server(lifecycle={"runai": RUNAI}, faults=faults, clock=fake)
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, fake, schedule=Schedule(interval=10, count=3))
    assert got.statuses() == [("POST", 200)] + [("GET", 503)] * 15  # 3 polls, 1 + 4 retries each
    assert got.lines == []
    assert got.outcome.code == 1
    assert (
        got.err.splitlines()[-1]
        == _status("runai", job, "(no snapshot) (count); 3 polls, 0 changes, 15 errors (503)").strip()
    )
    backoff = [s for s in fake.slept if s < 9]
    assert len(backoff) == 12 and all(0 <= s <= 0.5 * 2**3 for s in backoff)


def test_a_deleted_workload_is_recorded_until_it_is_gone(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server(
        lifecycle={"runai": ["Creating", {"phase": "Running", "polls": 50}, "Completed"]}, clock=fake
    )
    job = submit_workload(server)
    headers = bearer(server)

    def delete(time: FakeTime) -> None:
        if len(time.slept) == 2:
            answer = httpx.delete(f"{server.url}{WORKLOADS}/{job}", headers=headers, timeout=TIMEOUT)
            assert answer.status_code == 202

    fake.hooks.append(delete)
    got = run_record(server, "runai", [job], tmp_path, fake)
    assert phases(got.lines) == ["Creating", "Running", "Deleting"]
    assert got.lines[-1]["desiredPhase"] == "Deleted"
    assert got.outcome.jobs[0].done == "gone"
    assert got.statuses()[-1] == ("GET", 404)
    assert got.err.splitlines()[-1] == f"runai {job}: (deleted) (gone); 4 polls, 2 changes, 1 error (404)"


def test_the_legacy_app_token_grant(jobschema_server, tmp_path):
    fake = FakeTime()
    credentials = Credentials("client-1", "client-secret-1", "app-1", "app-secret-long-1", {})
    server = jobschema_server([RUNAI_HISTORY], credentials=credentials, clock=fake)
    env = {"RUNAI_APP_ID": "app-1", "RUNAI_APP_SECRET": "app-secret-long-1"}
    got = run_record(
        server, "runai", ["7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13"], tmp_path, fake, env=env, grant="app_token"
    )
    assert phases(got.lines) == ["Pending", "Running", "Completed"]
    request = got.entries[0]["request"]["postData"]["text"]
    assert '"grantType":"app_token"' in request and "app-secret-long-1" not in request


def test_count_and_duration_end_the_recording(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server(
        lifecycle={"runai": ["Running", {"phase": "Running", "polls": 1000}, "Completed"]}, clock=fake
    )
    job = submit_workload(server)
    counted = run_record(server, "runai", [job], tmp_path, fake, schedule=Schedule(interval=10, count=4))
    assert counted.outcome.jobs[0].polls == 4 and counted.outcome.jobs[0].done == "count"
    timed = run_record(
        server, "runai", [job], tmp_path, fake, name="timed", schedule=Schedule(interval=10, duration=35)
    )
    assert timed.outcome.jobs[0].polls == 4 and timed.outcome.jobs[0].done == "duration"
    assert timed.outcome.code == 0


def test_an_aihc_history_in_another_pool_is_not_found_and_counted(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server([FIXTURES / "aihc-noise.ndjson"], clock=fake)
    got = run_record(
        server,
        "aihc",
        [HISTORY_JOB],
        tmp_path,
        fake,
        resource_pool=POOL,
        schedule=Schedule(interval=1, count=2),
    )
    assert got.statuses() == [("GET", 404), ("GET", 404)]
    assert got.outcome.code == 1
    assert got.out == "2 payloads: 2 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
