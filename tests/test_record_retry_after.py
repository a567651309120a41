"""``jobschema record`` and ``Retry-After`` from a peer on loopback: longer than the retry budget
(seconds, HTTP dates, with or without a zone) it ends the request and holds the next poll back at
most one interval; garbage is no ``Retry-After``; within the budget it is waited out as given.

The recorder runs on a fake clock, so the waits are read exactly; the one real-time test is bounded
by ``--duration``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

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

# ------------------------------------------------------------------------------ Retry-After


def _throttled(fake: FakeTime, value, status: int = 429, then_ok_after: int | None = None):
    """A peer answering every poll ``status`` with ``Retry-After: value`` (a callable: of the fake
    time), or 200 from attempt ``then_ok_after`` on."""
    attempts = []

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn)
        attempts.append(request)
        if then_ok_after is not None and len(attempts) >= then_ok_after:
            return answer(conn, 200, workload(phase="Completed"))
        header = value(fake) if callable(value) else value
        return answer(conn, status, {"code": status, "message": "slow down"}, {"Retry-After": header})

    return handler


def _date(seconds: float):
    return lambda fake: format_datetime(datetime.fromtimestamp(fake.now + seconds, UTC), usegmt=True)


@pytest.mark.parametrize(
    "value",
    [
        "3600",
        "99999999999999999999999999999999999999999999",
        _date(3600),
        _date(30 * 86400),
        lambda fake: format_datetime(datetime.fromtimestamp(fake.now + 3600, UTC)).replace("+0000", "-0000"),
    ],
    ids=["seconds", "huge-seconds", "http-date", "http-date-month", "http-date-no-zone"],
)
@pytest.mark.parametrize("status", [429, 503])
def test_a_retry_after_beyond_the_budget_ends_the_request_and_is_not_carried(tmp_path, value, status):
    fake = FakeTime()
    with running(_throttled(fake, value, status)) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, fake, env=ENV, schedule=Schedule(interval=10, count=3)
        )
    assert got.statuses() == [("POST", 200)] + [("GET", status)] * 3  # one attempt a poll: no retry
    assert fake.slept and max(fake.slept) <= 10 * 1.1  # never more than the interval (and jitter)
    assert sum(fake.slept) <= 2 * 10 * 1.1 * 2  # two pauses, each at most held back one interval more
    assert got.outcome.jobs[0].errors == {str(status): 3} and got.outcome.code == 1
    assert "retry-after" in {header["name"].lower() for header in got.entries[1]["response"]["headers"]}


@pytest.mark.parametrize(
    "value",
    ["soon", "-5", "1.5", "", "١٢", "Fri, 31 Feb 2030 00:00:00 GMT", "Mon, 01 Jan 99999 00:00:00 GMT"],
)
def test_a_garbage_retry_after_is_no_retry_after(tmp_path, value):
    fake = FakeTime()
    with running(_throttled(fake, value, 503, then_ok_after=3)) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=ENV)
    assert got.statuses() == [("POST", 200), ("GET", 503), ("GET", 503), ("GET", 200), ("GET", 200)]
    assert len(fake.slept) == 2 and fake.slept[0] <= 0.5 and fake.slept[1] <= 1.0  # the usual backoff
    assert got.outcome.code == 0 and got.outcome.jobs[0].errors == {"503": 2}


def test_a_retry_after_within_the_budget_is_waited_out_as_given(tmp_path):
    fake = FakeTime()
    with running(_throttled(fake, _date(40), 503, then_ok_after=2)) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=ENV)
    assert got.statuses() == [("POST", 200), ("GET", 503), ("GET", 200), ("GET", 200)]  # (then the cluster)
    assert fake.slept == [40.0] and got.outcome.code == 0


def test_a_long_retry_after_holds_the_next_job_back_at_most_one_interval(tmp_path):
    fake = FakeTime()
    other = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if request.path.endswith(JOB):
            return answer(conn, 503, {"code": 503, "message": "busy"}, {"Retry-After": "86400"})
        return answer(conn, 200, workload(other))

    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB, other], tmp_path, fake, env=ENV, schedule=Schedule(interval=5, count=2)
        )
    assert [job.polls for job in got.outcome.jobs] == [2, 2]
    assert len(fake.slept) == 3 and max(fake.slept) <= 5 * 1.1  # a hold of at most --interval, once a round


def test_a_long_retry_after_does_not_hold_a_real_recording_back(tmp_path, run_cli, monkeypatch):
    """Real time, the command line: 3 polls 50 ms apart finish, though every answer asks for a day
    (bounded by --duration if it ever did not)."""
    fake = FakeTime()
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    with running(_throttled(fake, "86400", 503)) as peer:
        result = run_cli(
            [
                "record",
                "runai",
                "--url",
                peer.url,
                "--workload",
                JOB,
                "--interval",
                "0.05",
                "--count",
                "3",
                "--duration",
                "60",
                "--har",
                str(tmp_path / "r.har"),
            ],
            code=1,
        )
    assert (
        result.stderr.splitlines()[-1]
        == f"runai {JOB}: (no snapshot) (count); 3 polls, 0 changes, 3 errors (503)"
    )
