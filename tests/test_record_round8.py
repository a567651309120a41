"""``jobschema record``, round 8: answers that are not the API's, and servers that never let go.

- A 502, 503 or 504 whose JSON body is not the API's error shape (it lacks the error schema's
  required members: a proxy's ``{"message": "Bad Gateway"}``) is a transport failure, as a dropped
  connection is: counted, retried, in the HAR and the status line, said once on stderr, and never
  checked against the API's error schema (it is no contract failure). A body of the API's shape is
  checked, whatever its values: a drifted error body stays a contract failure.
- A redirect to another host sends it nothing (no request, no Authorization); a server slower than
  the poll interval, ``Retry-After`` of a century or an HTTP date, 429 storms, a job that never ends
  and a token endpoint answering an endless body are all bounded by count and time.
- Credentials a server writes back (in a proxy's body, a header, a cookie) are masked before disk.

Every recording runs on a fake clock (``FakeTime``): counts and outcomes are asserted, never times.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.record import RetryPolicy, Schedule
from tests.hostile_support import (
    ENV,
    JOB,
    answer,
    cluster_answer,
    endless,
    is_cluster,
    is_token,
    running,
    token_answer,
    workload,
    zeros,
)
from tests.record_support import FakeTime, run_record

WORKLOADS = "/api/v1/workloads/distributed/"
BCE_ENV = {"BCE_ACCESS_KEY_ID": "ak-round8-0001", "BCE_SECRET_ACCESS_KEY": "PLANTED-sk-round8-secret"}
SECRET = ENV["RUNAI_CLIENT_SECRET"]


def _record(handler: Any, tmp_path: Any, count: int | None = 8, fake: FakeTime | None = None, **options: Any):
    fake = fake or FakeTime()
    schedule = options.pop("schedule", None) or Schedule(interval=10, count=count)
    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=ENV, schedule=schedule, **options)
    return got, peer


def _failing_then(bodies: list[tuple[int, Any]], end: str = "Completed"):
    """A peer answering the polls with ``bodies`` (status, body) after a first Running snapshot,
    then the workload in ``end``."""
    seen = {"polls": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        seen["polls"] += 1
        index = seen["polls"] - 2
        if index < 0:
            return answer(conn, 200, workload(phase="Running"))
        if index < len(bodies):
            status, body = bodies[index]
            return answer(conn, status, body)
        return answer(conn, 200, workload(phase=end))

    return handler, seen


def _no_retries() -> RetryPolicy:
    return RetryPolicy(retries=0)


# ------------------------------------------------------------ (c) a proxy's answer, not the API's


PROXY_BODIES = [
    (502, {"message": "Bad Gateway"}),  # Kong
    (502, {"message": "An invalid response was received from the upstream server"}),
    (503, {"error": "upstream connect error or disconnect/reset before headers"}),
    (504, {"message": "Endpoint request timed out"}),  # AWS API Gateway
    (504, {"status": 504, "error": "Gateway Timeout"}),
    (503, []),
    (502, b'"gateway"'),
]


@pytest.mark.parametrize(("status", "body"), PROXY_BODIES)
def test_a_gateway_status_with_a_body_not_of_the_api_s_shape_is_a_transport_failure(tmp_path, status, body):
    handler, _ = _failing_then([(status, body)] * 3)
    got, _ = _record(handler, tmp_path, retry=_no_retries())
    assert got.outcome.code == 0, got.err  # no contract failure: the payloads recorded are valid
    assert got.outcome.report.ok
    job = got.outcome.jobs[0]
    assert job.done == "terminal" and job.errors[str(status)] == 3
    notes = [line for line in got.err.splitlines() if "not the API's error body" in line]
    assert len(notes) == 1, got.err  # said once per job
    assert f"answered {status}" in notes[0] and "a proxy's or gateway's" in notes[0]
    assert [entry["response"]["status"] for entry in got.entries].count(status) == 3  # in the HAR


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (502, {"code": "BadGateway", "message": "drifted"}),  # the API's shape, a wrong type: drift
        (500, {"message": "Internal Server Error"}),  # not a gateway status: the API's answer
        (404, {"error": "no such route"}),
    ],
)
def test_an_error_body_that_may_be_the_api_s_is_still_checked(tmp_path, status, body):
    handler, _ = _failing_then([(status, body)])
    got, _ = _record(handler, tmp_path, retry=_no_retries())
    assert got.outcome.code == 1
    assert not got.outcome.report.ok
    assert "not the API's error body" not in got.err


def test_a_gateway_status_in_the_api_s_own_shape_is_checked_and_valid(tmp_path):
    handler, _ = _failing_then([(503, {"code": 503, "message": "busy"})] * 2)
    got, _ = _record(handler, tmp_path, retry=_no_retries())
    assert got.outcome.code == 0 and "not the API's error body" not in got.err


def test_an_aihc_gateway_body_without_a_request_id_is_a_proxy_s(tmp_path):
    """AIHC's error shape is ``{requestId, code, message}``: a gateway's ``{code, message}`` lacks
    the request id every BCE answer carries."""
    from tests.serve_support import AIHC_EXAMPLES, POOL

    detail = json.loads((AIHC_EXAMPLES / "finished-job.json").read_text(encoding="utf-8"))
    seen = {"polls": 0}

    def handler(request, conn):
        seen["polls"] += 1
        if seen["polls"] <= 2:
            return answer(conn, 502, {"code": "BadGateway", "message": "upstream went away"})
        return answer(conn, 200, detail)

    job = detail["result"]["jobId"]
    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer,
            "aihc",
            [job],
            tmp_path,
            fake,
            env=BCE_ENV,
            schedule=Schedule(interval=10, count=5),
            retry=_no_retries(),
            resource_pool=POOL,
        )
    assert got.outcome.code == 0, got.err
    assert "not the API's error body" in got.err


def test_a_credential_in_a_proxy_s_body_is_masked_everywhere(tmp_path):
    handler, _ = _failing_then([(502, {"message": f"upstream said client_secret={SECRET}"})])
    got, _ = _record(handler, tmp_path, retry=_no_retries())
    assert got.outcome.code == 0
    for text in (
        got.err,
        got.out,
        got.har.read_text(encoding="utf-8"),
        got.ndjson.read_text(encoding="utf-8"),
    ):
        assert SECRET not in text


# ---------------------------------------------------------------------- servers that never end


def test_a_redirect_to_another_host_sends_that_host_nothing(tmp_path):
    def other(request, conn):
        return answer(conn, 200, workload(phase="Completed"))

    with running(other) as elsewhere:

        def handler(request, conn):
            if is_token(request):
                return token_answer(conn)
            return answer(conn, 307, b"", {"Location": f"{elsewhere.url}{WORKLOADS}{JOB}"})

        got, _ = _record(handler, tmp_path, count=5)
    assert elsewhere.requests == []  # neither the request nor its Authorization went there
    assert got.outcome.jobs[0].done == "redirected"


def test_a_server_slower_than_the_poll_interval_does_not_make_polls_catch_up(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        fake.now += 25  # each answer takes two and a half intervals
        return answer(conn, 200, workload(phase="Running"))

    got, peer = _record(handler, tmp_path, fake=fake, schedule=Schedule(interval=10, duration=300))
    polls = [request for request in peer.requests if request.path == WORKLOADS + JOB]
    assert len(polls) <= 300 // 25 + 1
    assert all(9 <= pause <= 11 for pause in fake.slept), fake.slept  # one interval each, no burst
    assert got.outcome.jobs[0].done == "duration"


@pytest.mark.parametrize(
    "value",
    ["999999999999", "3153600000", "Fri, 31 Dec 9999 23:59:59 GMT", "Sun, 06 Nov 2094 08:49:37 GMT", "1e9"],
)
def test_a_huge_retry_after_holds_the_next_poll_back_at_most_one_interval(tmp_path, value):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 429, {"code": 429, "message": "slow down"}, {"Retry-After": value})

    got, peer = _record(handler, tmp_path, count=5, fake=fake)
    polls = [request for request in peer.requests if request.path == WORKLOADS + JOB]
    assert len(polls) <= 5 * (RetryPolicy().retries + 1)
    assert max(fake.slept) <= 10 * 1.1 + 1e-9, fake.slept
    assert got.outcome.jobs[0].done == "count"


def test_a_429_storm_is_bounded_by_retries_per_poll_and_the_count(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 429, {"code": 429, "message": "storm"}, {"Retry-After": "0"})

    got, peer = _record(handler, tmp_path, count=6, fake=fake)
    polls = [request for request in peer.requests if request.path == WORKLOADS + JOB]
    assert len(polls) == 6 * (RetryPolicy().retries + 1)
    assert got.outcome.jobs[0].done == "count"


@pytest.mark.parametrize(("count", "duration"), [(None, 600.0), (40, None), (40, 200.0)])
def test_a_job_that_never_ends_is_bounded_by_count_and_time(tmp_path, count, duration):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        return answer(conn, 200, workload(phase="Running"))

    schedule = Schedule(interval=10, count=count, duration=duration)
    got, peer = _record(handler, tmp_path, fake=fake, schedule=schedule)
    polls = len([request for request in peer.requests if request.path == WORKLOADS + JOB])
    bound = min(count or 10**9, int((duration or 10**9) / 9) + 1)
    assert 0 < polls <= bound
    assert got.outcome.jobs[0].done in {"count", "duration"}


def test_a_token_endpoint_answering_an_endless_body_ends_the_recording_bounded(tmp_path):
    def handler(request, conn):
        if is_token(request):
            return endless(conn, zeros())
        return answer(conn, 200, workload(phase="Completed"))

    got, peer = _record(handler, tmp_path, count=3, max_body=1 << 20)
    tokens = [request for request in peer.requests if is_token(request)]
    assert len(tokens) <= 3 * 2  # two token requests a poll at most
    assert got.outcome.code != 0


def test_credentials_in_headers_and_cookies_of_answers_are_masked(tmp_path):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        headers = {"X-Debug": f"secret={SECRET}", "Set-Cookie": f"s={SECRET}; Path=/"}
        return answer(conn, 200, workload(phase="Completed", description=SECRET), headers)

    got, _ = _record(handler, tmp_path, count=3)
    for text in (
        got.err,
        got.out,
        got.har.read_text(encoding="utf-8"),
        got.ndjson.read_text(encoding="utf-8"),
    ):
        assert SECRET not in text


# ------------------------------------------------------------------------- answers' heads, bounded


def _endless_head(conn) -> None:
    """A status line, then header lines until the client goes away (or a byte limit)."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    sent = 0
    try:
        while sent < 64 << 20:
            conn.sendall(b"X-More: " + b"y" * 1000 + b"\r\n")
            sent += 1010
    except OSError:
        return


@pytest.mark.parametrize("where", ["token", "poll"])
def test_an_answer_whose_headers_never_end_is_an_error_not_a_hang(tmp_path, where):
    def handler(request, conn):
        if is_token(request) and where == "poll":
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        return _endless_head(conn)

    got, peer = _record(handler, tmp_path, count=3, retry=_no_retries())
    assert got.outcome.code != 0
    assert len(peer.requests) <= 3 * 2 + 3  # bounded: two token requests and a job request a poll


def test_an_answer_cut_short_of_its_content_length_is_retried_a_bounded_number_of_times(tmp_path):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        body = json.dumps(workload(phase="Running")).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (len(body) * 2) + body)
        return None

    got, peer = _record(handler, tmp_path, count=4)
    polls = [request for request in peer.requests if request.path == WORKLOADS + JOB]
    assert len(polls) == 4 * (RetryPolicy().retries + 1)
    assert got.lines == [] and got.outcome.code == 1


def test_a_gzip_chain_longer_than_four_codings_is_a_decoding_error(tmp_path):
    import gzip

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        body = json.dumps(workload(phase="Completed")).encode()
        for _ in range(6):
            body = gzip.compress(body)
        return answer(conn, 200, body, {"Content-Encoding": ", ".join(["gzip"] * 6)})

    got, _ = _record(handler, tmp_path, count=2, retry=_no_retries())
    assert got.lines == []
    assert got.outcome.jobs[0].errors.get("DecodingError", 0) >= 1, got.err


# ------------------------------------------------------------------- composition: whose answer


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 600), st.text(max_size=8))
_BODIES = st.dictionaries(
    st.sampled_from(["code", "message", "details", "error", "status", "requestId"]), _VALUES, max_size=4
)


@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(status=st.sampled_from([429, 500, 501, 502, 503, 504]), body=_BODIES)
def test_any_error_body_is_the_api_s_and_checked_or_a_gateway_s_and_not(status, body):
    """Whose answer an error is decides whether it is checked: a gateway status without the API's
    shape is a transport failure; anything else is checked against runai-error, its verdict the
    recording's."""
    import tempfile
    from pathlib import Path

    from jobschema.validate import validate_payload

    handler, _ = _failing_then([(status, body)])
    with tempfile.TemporaryDirectory() as folder:
        got, _ = _record(handler, Path(folder), retry=_no_retries())
    proxy = status in {502, 503, 504} and not {"code", "message"} <= set(body)
    if proxy:
        assert got.outcome.report.ok and "not the API's error body" in got.err
    else:
        assert got.outcome.report.ok == validate_payload(body, "runai-error").valid
        assert "not the API's error body" not in got.err


def test_a_job_that_never_ends_with_no_count_or_duration_stops_at_the_hard_cap(tmp_path):
    from jobschema.record.limits import MAX_DURATION

    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        return answer(conn, 200, workload(phase="Running"))

    got, peer = _record(handler, tmp_path, fake=fake, schedule=Schedule(interval=3600))
    polls = len([request for request in peer.requests if request.path == WORKLOADS + JOB])
    assert 0 < polls <= int(MAX_DURATION / (3600 * 0.9)) + 1
    assert got.outcome.jobs[0].done == "duration"
    assert sum(fake.slept) <= MAX_DURATION
