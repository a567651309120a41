"""An API that never answers ends the recording as unreachable; one that answered once is polled
through an outage.

Before, ``record --url`` with a typo, or pointed at a stub that was stopped, retried the connection
error on every poll for the default seven days: nothing said the URL was wrong. Now a job whose
first :data:`~jobschema.record.limits.UNREACHABLE_POLLS` polls never reached the API (every request a
network failure, the token request too) ends ``(unreachable)`` with one error line, exit 1. Once the
API has answered anything, even an error, an outage is polled through as before. Everything runs on
a fake clock: nothing here waits.
"""

from __future__ import annotations

import io
import socket

import pytest

from jobschema.record import RecordOptions, Schedule, record
from jobschema.record.limits import UNREACHABLE_POLLS
from jobschema.record.retry import RetryPolicy
from tests.record_support import FakeTime, run_record, submit_job, submit_workload
from tests.serve_support import POOL

RUNAI_ENV = {"RUNAI_CLIENT_ID": "a", "RUNAI_CLIENT_SECRET": "b"}
BCE_ENV = {"BCE_ACCESS_KEY_ID": "a", "BCE_SECRET_ACCESS_KEY": "b"}
#: api -> (record's API name, its options, its credentials in the environment, a job id)
APIS = {
    "runai": ("runai", {}, RUNAI_ENV, "11111111-1111-1111-1111-111111111111"),
    "aihc-v1": ("aihc", {"resource_pool": POOL}, BCE_ENV, "job-1"),
    "aihc-v2": ("aihc", {"resource_pool": POOL, "aihc_api": "v2"}, BCE_ENV, "job-1"),
}


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed: connecting is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("which", sorted(APIS))
@pytest.mark.parametrize("retries", [0, 2])
def test_an_api_that_never_answers_ends_unreachable(which: str, retries: int) -> None:
    api, options, env, job = APIS[which]
    settings = RecordOptions(
        api,
        f"http://127.0.0.1:{_closed_port()}",
        (job,),
        schedule=Schedule(interval=10.0),  # (no --count: before, seven days of polls)
        retry=RetryPolicy(retries=retries),
        **options,
    )
    out, err = io.StringIO(), io.StringIO()
    outcome = record(settings, env=env, runtime=FakeTime().runtime(), out=out, err=err, tty=False)
    (state,) = outcome.jobs
    assert (state.done, state.polls, outcome.code) == ("unreachable", UNREACHABLE_POLLS, 1)
    errors = [line for line in err.getvalue().splitlines() if line.startswith("error:")]
    (line,) = errors
    assert line.startswith(
        f"error: {api} {job}: unreachable: the API never answered in {UNREACHABLE_POLLS} polls "
        f"(ConnectError); the last: {'GET' if api == 'aihc' and 'aihc_api' not in options else 'POST'} "
        f"{settings.url}/"
    ), line  # the request, its host and the cause (round 9)
    assert line.endswith("Connection refused; check --url"), line
    assert out.getvalue() == "0 payloads: 0 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"


@pytest.mark.parametrize("which", ["runai", "aihc-v1"])
def test_an_api_that_answered_once_is_polled_through_an_outage(jobschema_server, tmp_path, which) -> None:
    fake = FakeTime()
    api, options, _, _ = APIS[which]
    server = jobschema_server(clock=fake)
    job = submit_workload(server) if which == "runai" else submit_job(server)
    stopped = []

    def stop(fake: FakeTime) -> None:
        if len(fake.slept) == 1 and not stopped:
            stopped.append(True)
            server.stop()

    fake.hooks.append(stop)
    options = {key: value for key, value in options.items() if key != "resource_pool"}
    got = run_record(server, api, [job], tmp_path, fake, schedule=Schedule(interval=10.0, count=6), **options)
    (state,) = got.outcome.jobs
    assert stopped
    assert (state.done, state.polls) == ("count", 6)  # not unreachable: the API had answered
    assert "unreachable" not in got.err
