"""``jobschema record`` and the credentials a peer hands it: opaque and JWT tokens, refresh and id
tokens and an opaque value under an innocent name are known to the masker before the token answer is
written, and never reach the NDJSON, the HAR, stdout or stderr, however the peer echoes them; the
AIHC access key id likewise. And every request loop is bounded: token refresh, 401s, a token endpoint
that always fails, a job that never finishes.
"""

from __future__ import annotations

import json

import pytest

from jobschema.record import RetryPolicy, Schedule
from jobschema.record.credentials import AuthFailed, Credential, Pair
from jobschema.record.guard import Guard
from jobschema.record.limits import MAX_CLUSTERS
from jobschema.record.runai import RunaiClient
from jobschema.record.transport import Call, Exchange
from jobschema.secrets import mask
from tests.hostile_support import (
    ENV,
    JOB,
    TOKEN,
    answer,
    cluster_answer,
    is_cluster,
    is_token,
    jwt,
    running,
    token_answer,
    workload,
)
from tests.record_support import FakeTime, run_record
from tests.support import REPO

# ---------------------------------------------------------------- credentials learned from answers

OPAQUE = (TOKEN, "zxcvbnmlkjhgfdsa5678")
REFRESH, ID_TOKEN, HANDLE = "poiuytrewqlkjhgf0987", "mnbvcxzasdfghjkl4321", "asdfzxcvqwer7777"


def _echoing_runai(tokens: list[str]):
    """Run:ai whose token answers hold ``tokens`` in turn (and a refresh token, an id token and an
    opaque value under an innocent name) and echo the token back in a header; whose workload
    answers echo every credential in their bodies and headers: first a 503, then the workload, then
    a 401 (a new token), then the workload again."""
    polls, issued = [], []

    def handler(request, conn):
        if is_token(request):
            token = tokens[min(len(issued), len(tokens) - 1)]
            issued.append(token)
            body = {
                "accessToken": token,
                "refreshToken": REFRESH,
                "idToken": ID_TOKEN,
                "tokenType": "Bearer",
                "expiresIn": 3600,
                "extra": {"handle": HANDLE},
            }
            return answer(conn, 200, body, {"X-Echo": token})
        if is_cluster(request):
            return cluster_answer(conn)
        token = request.headers["authorization"].removeprefix("Bearer ")
        polls.append(token)
        echo = f"{token} {REFRESH} {ID_TOKEN} {HANDLE}"
        headers = {"X-Echo": echo, "Retry-After": "0"}
        if len(polls) == 1:
            return answer(conn, 503, {"code": 503, "message": f"token {echo} is busy"}, headers)
        if len(polls) == 3:
            return answer(conn, 401, {"code": 401, "message": f"token {echo} expired"}, headers)
        env = [{"name": "NOTE", "value": echo, "exclude": False}]
        spec = {**workload()["spec"], "args": f"train.py --note {echo}", "environmentVariables": env}
        return answer(conn, 200, workload(spec=spec), headers)

    return handler


@pytest.mark.parametrize("kind", ["opaque", "jwt"])
def test_no_credential_learned_from_an_answer_is_ever_written(tmp_path, kind):
    fake = FakeTime()
    if kind == "opaque":
        tokens = list(OPAQUE)
    else:
        tokens = [jwt({"exp": fake.now + 86400, "sub": name}) for name in ("first", "second")]
    with running(_echoing_runai(tokens)) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, fake, env=ENV, schedule=Schedule(interval=10, count=3)
        )
        sent = [r.headers["authorization"] for r in peer.requests if not is_token(r)]
    # 503, 200, the cluster, 401; then 200, 200
    assert sent == [f"Bearer {tokens[0]}"] * 4 + [f"Bearer {tokens[1]}"] * 2
    everything = got.out + got.err + got.ndjson.read_text() + got.har.read_text()
    for secret in (*tokens, REFRESH, ID_TOKEN, HANDLE, ENV["RUNAI_CLIENT_SECRET"]):
        assert secret not in everything, secret
        assert secret[4:-4] not in everything, secret  # nor a recognisable part of it
    assert [mask(token) in line["spec"]["args"] for line, token in zip(got.lines, tokens, strict=True)] == [
        True,
        True,
    ]  # the echo is masked, each token by its own mask
    first = got.entries[0]
    answer_body = json.loads(first["response"]["content"]["text"])
    assert answer_body["tokenType"] == "Bearer" and answer_body["expiresIn"] == 3600
    assert answer_body["accessToken"] == mask(tokens[0]) and answer_body["extra"] == {"handle": mask(HANDLE)}
    echoed = {h["name"]: h["value"] for h in first["response"]["headers"]}["x-echo"]
    assert echoed == mask(tokens[0])  # the token answer's own header: masked, so known before written
    assert got.outcome.jobs[0].errors == {"503": 1, "401": 1}


@pytest.mark.parametrize(
    "body",
    [
        b'{"accessToken": "qwertyuiopasdfgh1234",}',  # not JSON: nothing in it can be told apart
        b'["qwertyuiopasdfgh1234"]',  # JSON, but no accessToken
        b'{"token": {"value": "qwertyuiopasdfgh1234"}}',
        b"qwertyuiopasdfgh1234",
    ],
)
def test_a_token_answer_without_a_usable_token_is_never_written_in_the_clear(
    tmp_path, run_cli, monkeypatch, body
):
    def handler(request, conn):
        return answer(conn, 200, body, {"Content-Type": "application/json"})

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    har = tmp_path / "r.har"
    with running(handler) as peer:
        result = run_cli(
            ["record", "runai", "--url", peer.url, "--workload", JOB, "--interval", "0", "--har", str(har)],
            code=2,
        )
    assert result.stderr.startswith("Error: the answer of ") and "holds no accessToken (200)" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    written = har.read_text() + result.stdout + result.stderr
    assert "qwertyuiopasdfgh1234" not in written and "wertyuiopasdfgh123" not in written


def test_learning_a_token_answer_guards_every_string_at_any_depth_but_the_shown_ones():
    """What the transport's ``learn`` hook gives the guard (before the observer writes the entry)."""
    guard = Guard()
    client = RunaiClient(
        "http://127.0.0.1:1",
        Pair(Credential("i", "A"), Credential("s", "B")),
        "client_credentials",
        None,
        guard.add,
    )
    exchange = Exchange(
        Call("token", JOB),
        "POST",
        "http://127.0.0.1:1/api/v1/token",
        [],
        b"",
        0.0,
        status=200,
        body=json.dumps({"accessToken": OPAQUE[0], "deep": [{"x": HANDLE}], "tokenType": "Bearer"}).encode(),
    )
    client._learn(exchange)
    assert guard.clean(f"{OPAQUE[0]} {HANDLE} Bearer") == f"{mask(OPAQUE[0])} {mask(HANDLE)} Bearer"


def test_the_access_key_id_is_masked_wherever_an_answer_echoes_it(tmp_path):
    ak, sk = "PLANTEDakid0123456789", "PLANTED-sk-abcdef0123456"
    job = "pytorchjob-0b6e2f94-5c1a-4d8b-9e37-a4f8c2d51e09"
    detail = json.loads((REPO / "schemas/examples/aihc-job-detail/finished-job.json").read_text())

    def handler(request, conn):
        said = request.headers["authorization"].split("/")[1]  # bce-auth-v1/{ak}/...
        detail["result"]["command"] = f"echo {said}"
        return answer(conn, 200, detail, {"X-Echo": said})

    fake = FakeTime()
    env = {"BCE_ACCESS_KEY_ID": ak, "BCE_SECRET_ACCESS_KEY": sk}
    with running(handler) as peer:
        got = run_record(peer, "aihc", [job], tmp_path, fake, env=env, resource_pool="cce-6zwnp4zf")
        assert peer.requests[0].headers["authorization"].startswith(f"bce-auth-v1/{ak}/")
    everything = got.out + got.err + got.ndjson.read_text() + got.har.read_text()
    assert ak not in everything and sk not in everything
    assert got.lines[0]["result"]["command"] == f"echo {mask(ak)}"


# -------------------------------------------------------------------- every request loop bounded


def test_a_token_that_is_always_expired_is_fetched_once_a_poll(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return answer(conn, 200, {"accessToken": jwt({"exp": fake.now - 3600})})
        return answer(conn, 200, workload())

    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, fake, env=ENV, schedule=Schedule(interval=10, count=4)
        )
    # a token before each poll (4), the cluster asked once after the first with that poll's token
    assert [method for method, _ in got.statuses()] == ["POST", "GET", "GET"] + ["POST", "GET"] * 3
    assert got.outcome.jobs[0].done == "count"


def test_a_poll_sends_at_most_two_token_requests_whatever_the_server_answers(tmp_path):
    """Expired tokens, a 401 on every other job request and a new cluster (that refuses the token)
    in every snapshot: still two token requests a poll, the cluster asked with the second."""
    fake = FakeTime()
    asked = []

    def handler(request, conn):
        if is_token(request):
            return answer(conn, 200, {"accessToken": jwt({"exp": fake.now - 3600, "n": len(peer.requests)})})
        if is_cluster(request):
            return answer(conn, 401, {"code": 401, "message": "no"})
        asked.append(request.path)
        if len(asked) % 2:
            return answer(conn, 401, {"code": 401, "message": "expired"})
        return answer(conn, 200, workload(clusterId=f"c-{len(asked)}"))

    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            fake,
            env=ENV,
            retry=RetryPolicy(retries=0),
            schedule=Schedule(interval=10, count=3),
        )
        paths = peer.paths()
    job = ("GET", f"/api/v1/workloads/distributed/{JOB}")
    token = ("POST", "/api/v1/token")
    expected = []
    for poll in (2, 4, 6):
        expected += [token, job, token, job, ("GET", f"/api/v1/clusters/c-{poll}")]
    assert paths == expected
    assert got.outcome.jobs[0].polls == 3


def test_clusters_are_asked_for_a_bounded_number_of_clusters(tmp_path):
    fake = FakeTime()
    polls = MAX_CLUSTERS + 3

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.19.3")
        return answer(conn, 200, workload(clusterId=f"c-{len(peer.requests)}"))

    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            fake,
            env=ENV,
            schedule=Schedule(interval=10, count=polls, every=True),
        )
        clusters = [path for _, path in peer.paths() if path.startswith("/api/v1/clusters/")]
    assert len(clusters) == MAX_CLUSTERS and len(set(clusters)) == MAX_CLUSTERS
    note = f"could not be asked (more than {MAX_CLUSTERS} clusters named; no more are asked)"
    assert got.err.count(note) == 1
    assert got.outcome.jobs[0].polls == polls


def test_a_token_rejected_on_every_poll_ends_the_recording_after_one_new_token(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return answer(conn, 200, {"accessToken": OPAQUE[0]})
        return answer(conn, 401, {"code": 401, "message": "no"})

    with running(handler) as peer, pytest.raises(AuthFailed, match=r"was rejected by .* \(401\)$"):
        run_record(peer, "runai", [JOB], tmp_path, fake, env=ENV)
    assert peer.paths() == [("POST", "/api/v1/token"), ("GET", f"/api/v1/workloads/distributed/{JOB}")] * 2


def test_a_token_endpoint_failing_forever_is_asked_a_bounded_number_of_times(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        return answer(conn, 503, {"code": 503, "message": "down"})

    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            fake,
            env=ENV,
            retry=RetryPolicy(retries=2),
            schedule=Schedule(interval=10, count=3),
        )
    assert got.statuses() == [("POST", 503)] * 9  # 3 polls, 1 + 2 retries each, no workload request
    assert got.outcome.jobs[0].errors == {"503": 9} and got.outcome.code == 1


def test_a_server_that_never_finishes_is_recorded_until_the_duration(tmp_path):
    fake = FakeTime()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, workload())

    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, fake, env=ENV, schedule=Schedule(interval=10, duration=95)
        )
    job = got.outcome.jobs[0]
    assert job.done == "duration" and 9 <= job.polls <= 11 and sum(fake.slept) <= 95.001
