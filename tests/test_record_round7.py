"""``jobschema record``, round 7: what live APIs do over a long recording, from peers on loopback.

- A Run:ai cluster upgraded while its workload is recorded: the snapshots that carry the new
  version's fields are checked against the version the cluster answers now, not the one it answered
  first; a cluster whose version could not be asked (a 503, a dropped connection) is asked again at
  a later snapshot. Every cluster is asked a bounded number of times.
- An API that answers every poll with a redirect (``http://`` to ``https://``, another host): the
  recorder follows none, so polling can never record anything: the job ends after its first polls
  with one error line naming where the API points, instead of polling for seven days.
- An AIHC API that answers a job in the other version's shape (v1's ``result`` on a v2 recording,
  v2's ``job`` on a v1 one): the job is read, followed and ended as either shape says.
- An AIHC base URL with a path (a gateway's prefix) that needs escaping: what is signed is what is
  sent, as BCE canonicalises it.

Every recording runs on a fake clock (``FakeTime``): counts and outcomes are asserted, never times.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.record import Schedule
from jobschema.serve.auth import BceRequest, verify_bce
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
from tests.serve_support import AIHC_EXAMPLES

WORKLOADS = "/api/v1/workloads/distributed/"
BCE_ENV = {"BCE_ACCESS_KEY_ID": "ak-round7-0001", "BCE_SECRET_ACCESS_KEY": "PLANTED-sk-round7-secret"}


def _record(
    handler: Any,
    tmp_path: Any,
    count: int = 8,
    api: str = "runai",
    jobs: tuple[str, ...] = (JOB,),
    every: bool = False,
    **options: Any,
) -> Any:
    fake = FakeTime()
    env = ENV if api == "runai" else BCE_ENV
    schedule = Schedule(interval=10, count=count, every=every)
    with running(handler) as peer:
        got = run_record(peer, api, list(jobs), tmp_path, fake, env=env, schedule=schedule, **options)
    return got, peer


# ----------------------------------------------------------------- a cluster's version changes


def _older_and_newer() -> tuple[dict[str, Any], dict[str, Any]]:
    """The same workload as Run:ai 2.23 answers it, and as 2.24 does (``spec.preemptibility``, new
    in 2.24); each valid for its own version."""
    newer = workload(phase="Running")
    older = copy.deepcopy(newer)
    del older["spec"]["preemptibility"]
    return older, newer


def _upgraded_at(poll: int, versions: tuple[str, str] = ("2.23.0", "2.24.1")):
    """A peer whose cluster is upgraded before workload poll ``poll``: from then on the workload
    carries 2.24's fields and the cluster answers the new version; it completes at poll 5."""
    older, newer = _older_and_newer()
    seen = {"polls": 0, "clusters": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            seen["clusters"] += 1
            return cluster_answer(conn, versions[0] if seen["polls"] < poll else versions[1])
        seen["polls"] += 1
        body = copy.deepcopy(newer if seen["polls"] >= poll else older)
        phases = ["Pending", "Running", "Running", "Running", "Completed"]
        body["actualPhase"] = phases[min(seen["polls"], 5) - 1]
        return answer(conn, 200, body)

    return handler, seen


def test_a_cluster_upgraded_mid_recording_is_asked_again_and_its_new_fields_are_valid(tmp_path):
    handler, seen = _upgraded_at(3)
    got, _ = _record(handler, tmp_path)
    assert got.outcome.code == 0, got.out
    assert "not-in-version" not in got.out
    assert seen["clusters"] == 2  # asked at the first snapshot, and once the answers outgrew 2.23
    assert "note: runai " in got.err and "2.23.0" in got.err and "2.24.1" in got.err
    assert got.err.rstrip().endswith("cluster 2.24.1")
    assert got.outcome.jobs[0].version.text == "2.24.1"


def test_a_snapshot_its_cluster_s_version_cannot_hold_is_flagged_when_the_cluster_says_the_same(tmp_path):
    """Asked again, the cluster answers its old version: the snapshot is checked against it (and
    flagged), and the cluster is not asked on every poll after that."""
    handler, seen = _upgraded_at(3, versions=("2.23.0", "2.23.0"))
    got, _ = _record(handler, tmp_path)
    assert got.outcome.code == 1
    assert 'property "preemptibility" is not in Run:ai 2.23' in got.out
    assert seen["clusters"] <= 4  # bounded: not once a poll


def test_a_cluster_question_that_failed_is_asked_again_at_a_later_snapshot(tmp_path):
    older, _ = _older_and_newer()
    seen = {"clusters": 0, "polls": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            seen["clusters"] += 1
            if seen["clusters"] == 1:  # every retry of the first question fails
                return answer(conn, 503, {"code": 503, "message": "busy"})
            return cluster_answer(conn, "2.23.0")
        seen["polls"] += 1
        body = dict(older, actualPhase="Running" if seen["polls"] < 4 else "Completed")
        return answer(conn, 200, body)

    got, _ = _record(handler, tmp_path, retry=_no_retries())
    assert got.outcome.code == 0, got.out
    assert seen["clusters"] == 2
    assert got.outcome.jobs[0].version.text == "2.23.0"


@pytest.mark.parametrize("failure", ["503", "drop"])
def test_a_cluster_that_never_answers_its_version_is_asked_a_bounded_number_of_times(tmp_path, failure):
    seen = {"clusters": 0, "polls": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            seen["clusters"] += 1
            if failure == "drop":
                return None  # the connection closed without an answer
            return answer(conn, 503, {"code": 503, "message": "busy"})
        seen["polls"] += 1
        created = f"2025-01-0{1 + seen['polls'] % 2}T00:00:00Z"
        return answer(conn, 200, workload(phase="Running", createdAt=created))

    got, _ = _record(handler, tmp_path, count=40, retry=_no_retries(), every=True)
    assert seen["polls"] == 40
    assert 2 <= seen["clusters"] <= 4
    assert got.err.count("the cluster's version could not be asked") == 1  # said once


def _no_retries() -> Any:
    from jobschema.record import RetryPolicy

    return RetryPolicy(retries=0)


# ------------------------------------------------------------------------------------ redirects


def _redirecting(location: str, status: int = 301, token_too: bool = False, after: int | None = None):
    """A peer answering every workload poll (and the token request, ``token_too``) with a redirect
    to ``location``; with ``after``, the first ``after`` polls answer the workload."""
    seen = {"polls": 0}

    def handler(request, conn):
        if is_token(request) and not token_too:
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        if not is_token(request):
            seen["polls"] += 1
            if after is not None and seen["polls"] <= after:
                return answer(conn, 200, workload(phase="Running"))
        return answer(conn, status, b"", {"Location": location, "Content-Type": "text/html"})

    return handler, seen


@pytest.mark.parametrize(
    "status, location",
    [
        (301, "https://127.0.0.1/api/v1/workloads/distributed/" + JOB),
        (302, "http://127.0.0.2:9/login?next=%2Fapi"),
        (307, "/api/v2/workloads/distributed/" + JOB),
        (308, "https://tenant.example/"),
    ],
)
def test_an_api_redirecting_every_poll_ends_after_its_first_polls_with_one_error_line(
    tmp_path, status, location
):
    handler, seen = _redirecting(location, status)
    got, peer = _record(handler, tmp_path, count=50)
    assert seen["polls"] == 3  # not 50
    assert got.outcome.code == 1
    job = got.outcome.jobs[0]
    assert job.done == "redirected"
    errors = [line for line in got.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, got.err
    assert f"redirected: the API answered {status} to {location} in 3 polls" in errors[0]
    assert "check --url" in errors[0]
    assert {request.path for request in peer.requests} <= {"/api/v1/token", WORKLOADS + JOB}


def test_a_redirected_token_request_ends_the_job_the_same_way(tmp_path):
    handler, seen = _redirecting("https://login.example/oauth", 302, token_too=True)
    got, peer = _record(handler, tmp_path, count=50)
    assert seen["polls"] == 0 and got.outcome.jobs[0].done == "redirected"
    assert sum(1 for request in peer.requests if is_token(request)) <= 3 * 2
    assert "redirected: the API answered 302 to https://login.example/oauth in 3 polls" in got.err


def test_a_redirect_location_holding_a_credential_is_shown_masked(tmp_path):
    location = f"https://sso.example/cb?access_token={ENV['RUNAI_CLIENT_SECRET']}&x=1"
    handler, _ = _redirecting(location, 302)
    got, _ = _record(handler, tmp_path)
    assert ENV["RUNAI_CLIENT_SECRET"] not in got.err + got.out
    assert "redirected: the API answered 302 to https://sso.example/cb?access_token=" in got.err


def test_redirects_after_a_snapshot_are_polled_through(tmp_path):
    """The API answered the workload once: a redirect later (maintenance) is an outage, polled
    through to --count as any error answer is."""
    handler, seen = _redirecting("https://127.0.0.1/maintenance", 302, after=1)
    got, _ = _record(handler, tmp_path, count=6)
    assert seen["polls"] == 6 and got.outcome.jobs[0].done == "count"
    assert "redirected" not in got.err


def test_a_redirect_among_other_answers_does_not_end_the_job(tmp_path):
    """Only polls whose every answer was a redirect count: a 503 in between starts the count again."""
    seen = {"polls": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        seen["polls"] += 1
        if seen["polls"] % 2:
            return answer(conn, 302, b"", {"Location": "https://127.0.0.1/"})
        return answer(conn, 503, {"code": 503, "message": "busy"})

    got, _ = _record(handler, tmp_path, count=8, retry=_no_retries())
    assert seen["polls"] == 8 and got.outcome.jobs[0].done == "count"


# ------------------------------------------------------------- AIHC answers in the other shape


def _v1_detail(status: str) -> dict[str, Any]:
    value = json.loads((AIHC_EXAMPLES / "finished-job.json").read_text(encoding="utf-8"))
    value["result"]["status"] = status
    if status not in ("Succeeded", "Failed", "Stopped", "ManualTermination"):
        value["result"]["finishedAt"] = ""
    return value


V1_JOB = _v1_detail("Running")["result"]["jobId"]


def _v2_answer(status: str, job: str = V1_JOB) -> dict[str, Any]:
    path = AIHC_EXAMPLES.parent / "aihc-v2-job" / "no-detail-pending.json"
    value = json.loads(path.read_text(encoding="utf-8"))
    value["job"]["jobid"] = job
    value["job"]["status"] = status
    return value


def _shapes(first, then, switch_at: int = 3):
    seen = {"polls": 0}

    def handler(request, conn):
        seen["polls"] += 1
        return answer(conn, 200, first(seen["polls"]) if seen["polls"] < switch_at else then(seen["polls"]))

    return handler, seen


STATUSES = ["Pending", "Running", "Running", "Running", "Succeeded"]


def _status(poll: int) -> str:
    return STATUSES[min(poll, len(STATUSES)) - 1]


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_an_aihc_job_answered_in_the_other_version_s_shape_is_followed_to_its_end(tmp_path, api):
    v1 = lambda poll: _v1_detail(_status(poll))  # noqa: E731
    v2 = lambda poll: _v2_answer(_status(poll))  # noqa: E731
    handler, seen = _shapes(v1, v2) if api == "v1" else _shapes(v2, v1)
    got, _ = _record(handler, tmp_path, count=50, api="aihc", jobs=(V1_JOB,), aihc_api=api)
    job = got.outcome.jobs[0]
    assert seen["polls"] == 5 and job.done == "terminal" and job.phase == "Succeeded"
    assert "names job" not in got.err  # both shapes name the job asked for
    assert "(no snapshot" not in got.err.splitlines()[-1]
    assert got.outcome.code == 0, got.out


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_a_recording_in_both_shapes_resumes_from_its_last_line_whatever_its_shape(tmp_path, api):
    v1 = lambda poll: _v1_detail("Running")  # noqa: E731
    v2 = lambda poll: _v2_answer("Running")  # noqa: E731
    first, second = (v1, v2) if api == "v1" else (v2, v1)
    handler, _ = _shapes(first, second)
    _record(handler, tmp_path, count=4, api="aihc", jobs=(V1_JOB,), aihc_api=api)
    lines = (tmp_path / "rec.ndjson").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2  # one snapshot of each shape
    handler, _ = _shapes(second, second, switch_at=1)  # the same answer as the last line: no change
    _record(handler, tmp_path, count=2, api="aihc", jobs=(V1_JOB,), aihc_api=api)
    assert (tmp_path / "rec.ndjson").read_text(encoding="utf-8").splitlines() == lines


# ------------------------------------------------------------------ a base URL with a path to sign


def _verifying(prefix: str):
    """A peer that checks each request's BCE signature as the stub does, under a path ``prefix``
    (a gateway), and answers the job; a signature that does not match is answered as BCE does."""
    keys = {BCE_ENV["BCE_ACCESS_KEY_ID"]: BCE_ENV["BCE_SECRET_ACCESS_KEY"]}

    def handler(request, conn):
        target = urlsplit(request.path)
        signed = BceRequest(
            request.method, target.path, parse_qsl(target.query, keep_blank_values=True), request.headers
        )
        failure = verify_bce(signed, keys, _now())
        if failure is not None or not target.path.startswith(prefix):
            status, code, message = failure or (404, "ResourceNotFound", "no such path")
            return answer(conn, status, {"requestId": "r", "code": code, "message": message})
        return answer(conn, 200, _v1_detail("Succeeded"))

    return handler


def _now() -> float:
    import time

    return time.time()  # the recorder signs at the fake clock's start, which is the real time's


@pytest.mark.parametrize(
    "prefix, escaped",
    [
        ("/网关", "/%E7%BD%91%E5%85%B3"),
        ("/gw%20one", "/gw%20one"),
        ("/gw:v1", "/gw%3Av1"),
        ("/gw~x", "/gw~x"),
    ],
)
def test_a_base_url_with_a_path_is_signed_as_it_is_sent(tmp_path, prefix, escaped):
    handler = _verifying(escaped)
    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            _Base(peer.url + prefix),
            "aihc",
            [V1_JOB],
            tmp_path,
            fake,
            env=BCE_ENV,
            schedule=Schedule(interval=10, count=2),
        )
        asked = [request.path for request in peer.requests]
    assert got.outcome.code == 0, got.err
    assert got.outcome.jobs[0].done == "terminal"
    assert all(path.startswith(f"{escaped}/api/v1/aijobs/") for path in asked), asked


class _Base:
    """What ``run_record`` reads of a server: its URL (here with a path) and no credentials."""

    def __init__(self, url: str) -> None:
        self.url = url


_SEGMENT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs"), blacklist_characters="/?#%\\"),
    min_size=1,
    max_size=6,
)
_PREFIX = st.lists(_SEGMENT, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))


@settings(max_examples=80, deadline=None)
@given(prefix=_PREFIX, api=st.sampled_from(["v1", "v2"]))
def test_any_base_url_path_is_sent_as_it_is_signed(prefix, api):
    """What the recorder sends verifies as BCE verifies it (the stub's verifier), whatever path the
    base URL holds, for both versions' requests."""
    import httpx

    from jobschema.record import RetryPolicy, Runtime
    from jobschema.record.aihc import AihcClient, AihcV2Client
    from jobschema.record.credentials import Credential, Pair
    from jobschema.record.transport import Transport

    key_id, secret = BCE_ENV["BCE_ACCESS_KEY_ID"], BCE_ENV["BCE_SECRET_ACCESS_KEY"]
    pair = Pair(Credential(key_id, "id"), Credential(secret, "key"))
    fake = FakeTime()
    with httpx.Client() as http:
        transport = Transport(http, RetryPolicy(), Runtime(clock=fake, monotonic=fake), lambda _: None)
        base = f"http://127.0.0.1:9{prefix}"
        client = (
            AihcClient(base, "cce-pool", pair, transport)
            if api == "v1"
            else AihcV2Client(base, "cce-pool", "default", pair, transport)
        )
        request = client._signed(V1_JOB)
    target = request.url
    signed = BceRequest(
        request.method,
        target.raw_path.split(b"?", 1)[0].decode("ascii"),
        parse_qsl(target.query.decode("ascii"), keep_blank_values=True),
        {name.lower(): value for name, value in request.headers.items()},
        request.content,
    )
    assert verify_bce(signed, {key_id: secret}, fake.now) is None


def _expected_end(outcomes: list[str]) -> tuple[int, str]:
    """How many polls a job answered ``outcomes`` in turn gets, and why it ends: redirected at the
    third poll in a row that ended on a redirect before any snapshot, else by --count."""
    run = 0
    for index, outcome in enumerate(outcomes):
        if outcome == "ok":
            return len(outcomes), "count"  # a snapshot came: redirects are an outage from now on
        run = run + 1 if outcome == "redirect" else 0
        if run == 3:
            return index + 1, "redirected"
    return len(outcomes), "count"


@settings(max_examples=25, deadline=None)
@given(outcomes=st.lists(st.sampled_from(["redirect", "503", "ok"]), min_size=1, max_size=8))
def test_a_job_ends_redirected_exactly_at_its_third_redirected_poll_in_a_row_before_a_snapshot(outcomes):
    import tempfile
    from pathlib import Path

    seen = {"polls": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        outcome = outcomes[min(seen["polls"], len(outcomes) - 1)]
        seen["polls"] += 1
        if outcome == "redirect":
            return answer(conn, 302, b"", {"Location": "https://127.0.0.1/elsewhere"})
        if outcome == "503":
            return answer(conn, 503, {"code": 503, "message": "busy"})
        return answer(conn, 200, workload(phase="Running"))

    with tempfile.TemporaryDirectory() as folder:
        got, _ = _record(handler, Path(folder), count=len(outcomes), retry=_no_retries())
    polls, why = _expected_end(outcomes)
    job = got.outcome.jobs[0]
    assert (seen["polls"], job.done) == (polls, why)
    assert got.err.count("redirected: the API answered 302") == (why == "redirected")


@settings(max_examples=25, deadline=None)
@given(
    answers=st.lists(st.sampled_from(["2.23.0", "2.24.1", None, "503", "drop"]), min_size=1, max_size=6),
    shapes=st.lists(st.sampled_from(["older", "newer"]), min_size=1, max_size=10),
)
def test_a_cluster_is_asked_at_most_once_a_poll_and_four_times_a_recording(answers, shapes):
    """Whatever the cluster answers (a version, none, a 503, a dropped connection) and whatever the
    snapshots hold, its questions are bounded; a snapshot that fits the version last answered leads
    to no question."""
    import tempfile
    from pathlib import Path

    from jobschema.record.limits import CLUSTER_ASKS

    older, newer = _older_and_newer()
    seen = {"polls": 0, "clusters": 0}

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            said = answers[min(seen["clusters"], len(answers) - 1)]
            seen["clusters"] += 1
            if said == "drop":
                return None
            if said == "503":
                return answer(conn, 503, {"code": 503, "message": "busy"})
            return cluster_answer(conn, said)
        body = newer if shapes[min(seen["polls"], len(shapes) - 1)] == "newer" else older
        seen["polls"] += 1
        return answer(conn, 200, body)

    with tempfile.TemporaryDirectory() as folder:
        got, _ = _record(handler, Path(folder), count=len(shapes), retry=_no_retries(), every=True)
    assert seen["clusters"] <= min(CLUSTER_ASKS, seen["polls"])
    if all(shape == "older" for shape in shapes) and answers[0] in ("2.23.0", "2.24.1", None):
        assert seen["clusters"] == 1  # the first answer fits every snapshot: never asked again
    assert "Traceback" not in got.err


# ------------------------------------------------------------------------- Retry-After, any text


#: Odd values a server may send: a list, a sign, an exponent, digits of other
#: scripts (fullwidth, Arabic-Indic, a superscript), hex, a date that does not exist.
ODD_RETRY_AFTERS = ["5, 6", "+3", "-0", "1e1", "\uff13", "\u0663", "\u00b2", "0x10"]
ODD_RETRY_AFTERS += ["Fri, 31 Feb 2025 00:00:00 GMT"]


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(
        st.text(max_size=40),
        st.from_regex(r"\s*[+-]?[0-9]{1,30}(\.[0-9]+)?(e[0-9]+)?\s*", fullmatch=True),
        st.sampled_from(ODD_RETRY_AFTERS),
    )
)
def test_any_retry_after_text_is_a_bounded_delay_or_none_and_never_raises(value):
    """Whatever a server writes in ``Retry-After`` (odd values real proxies send: a list, a sign, an
    exponent, digits of other scripts, a date that does not exist), the recorder reads a delay in
    [0, 7 days] or none (its own backoff), and only plain ASCII digits are seconds."""
    from jobschema.record.limits import MAX_DURATION
    from jobschema.record.retry import retry_after

    now = 1_780_000_000.0
    delay = retry_after(value, now)
    assert delay is None or 0.0 <= delay <= MAX_DURATION
    text = value.strip()
    if re.fullmatch(r"[0-9]+", text):
        assert delay == min(float(int(text)), MAX_DURATION)
    elif re.fullmatch(r"[+-]?[0-9]+(\.[0-9]+)?(e[0-9]+)?|[^\x00-\x7f]+", text):
        assert delay is None  # a sign, a fraction, an exponent, digits of other scripts: no delay
