"""``jobschema serve``, round 5: state a peer changed is never forgotten while the memory stays bounded;
every name it prints stays on one line; and attacks on its bounds not tested elsewhere.

Generated jobs (``--generate``) a peer has not changed are a bounded cache (asked again, the same
bytes). One a peer changes (suspend, resume, stop, a priority, delete) moves to a store of its own,
never forgotten; that store holds ``--max-jobs`` of them, and a change past it is refused (503),
changing nothing. Counts and answers are asserted, never memory sizes or times.
"""

from __future__ import annotations

import io
import json
import re
import uuid
from typing import Any

import httpx
import pytest

from jobschema.lifecycle import is_terminal
from jobschema.serve import routes
from jobschema.serve.lifecycle import Job
from jobschema.serve.limits import KiB, Limits
from jobschema.serve.store import JobStore, StoreFull
from tests.serve_support import (
    POOL,
    TIMEOUT,
    RawAnswer,
    bce_headers,
    bearer,
    client,
    connect,
    parse_answer,
    read_all,
    request_head,
    runapy_client,
    valid,
    wait_for,
    workload_request,
)
from tests.test_serve_aihc_actions import NOT_FOUND, error, ok, status, v1

WORKLOADS = "/api/v1/workloads/distributed"


def _uuid(number: int) -> str:
    return str(uuid.UUID(int=number, version=4))


def _phase(http: httpx.Client, headers: dict[str, str], workload_id: str) -> str:
    answer = http.get(f"{WORKLOADS}/{workload_id}", headers=headers)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["actualPhase"])


def _churn(http: httpx.Client, headers: dict[str, str], first: int, count: int) -> None:
    """Ask for ``count`` other generated workloads: the cache lets every earlier one go."""
    for number in range(first, first + count):
        assert http.get(f"{WORKLOADS}/{_uuid(number)}", headers=headers).status_code == 200


# ------------------------------------------------------------------ changed generated jobs (Run:ai)


def test_a_suspended_generated_workload_stays_suspended_after_the_cache_lets_it_go(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=2))
    headers = bearer(server)
    workload = _uuid(1)
    with client(server) as http:
        _phase(http, headers, workload)
        assert http.post(f"{WORKLOADS}/{workload}/suspend", headers=headers).status_code == 202
        assert [_phase(http, headers, workload) for _ in range(2)] == ["Stopping", "Stopped"]
        _churn(http, headers, 100, 5)
        assert _phase(http, headers, workload) == "Stopped"  # not its generated phase again
        assert http.post(f"{WORKLOADS}/{workload}/resume", headers=headers).status_code == 202
        _churn(http, headers, 200, 5)
        assert _phase(http, headers, workload) == "Resuming"
    jobs = server.state.runai_jobs
    assert list(jobs.changed) == [workload] and len(jobs.generated) == 2


def test_a_deleted_generated_workload_stays_deleted_however_many_jobs_come_after(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=2))
    headers = bearer(server)
    workload = _uuid(1)
    with client(server) as http:
        assert http.delete(f"{WORKLOADS}/{workload}", headers=headers).status_code == 202
        assert _phase(http, headers, workload) == "Deleting"
        assert http.get(f"{WORKLOADS}/{workload}", headers=headers).status_code == 404
        _churn(http, headers, 100, 10)
        for number in range(300, 305):  # deleted submitted ones fill the remembered ids past their bound
            other = http.post(
                WORKLOADS, json={"name": f"w{number}", "projectId": "1"}, headers=headers
            ).json()
            if "workloadId" in other:
                http.delete(f"{WORKLOADS}/{other['workloadId']}", headers=headers)
        codes = {http.get(f"{WORKLOADS}/{workload}", headers=headers).status_code for _ in range(3)}
        assert codes == {404}
        assert http.post(f"{WORKLOADS}/{workload}/resume", headers=headers).status_code == 404
    assert server.state.runai_jobs.changed == {workload: None}


def test_a_forgotten_submitted_workload_is_never_generated_anew(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=1))
    headers = bearer(server)
    with client(server) as http:
        ids = []
        for _ in range(3):  # each deleted and gone: only the last id is remembered as deleted
            answer = http.post(WORKLOADS, json=workload_request(), headers=headers)
            assert answer.status_code == 202, answer.text
            ids.append(answer.json()["workloadId"])
            assert http.delete(f"{WORKLOADS}/{ids[-1]}", headers=headers).status_code == 202
            assert _phase(http, headers, ids[-1]) == "Deleting"
            assert http.get(f"{WORKLOADS}/{ids[-1]}", headers=headers).status_code == 404
        assert list(server.state.runai_jobs.forgotten) == [ids[-1]]
        assert {http.get(f"{WORKLOADS}/{job}", headers=headers).status_code for job in ids} == {404}
    assert all(map(server.state.issued, ids)) and not server.state.issued(_uuid(1))


def test_a_change_past_the_changed_bound_is_503_and_changes_nothing(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=2))
    headers = bearer(server)
    first, second, third = _uuid(1), _uuid(2), _uuid(3)
    with client(server) as http:
        before = http.get(f"{WORKLOADS}/{third}", headers=headers).content
        for workload in (first, second):
            assert http.post(f"{WORKLOADS}/{workload}/suspend", headers=headers).status_code == 202
        for refused in (
            http.post(f"{WORKLOADS}/{third}/suspend", headers=headers),
            http.delete(f"{WORKLOADS}/{third}", headers=headers),
        ):
            assert refused.status_code == 503
            assert refused.json() == {"code": 503, "message": routes.CHANGED_FULL.format(2, "workloads")}
        assert http.get(f"{WORKLOADS}/{third}", headers=headers).content == before
        _churn(http, headers, 100, 5)
        assert {_phase(http, headers, workload) for workload in (first, second)} == {"Stopping"}
        assert http.post(f"{WORKLOADS}/{first}/resume", headers=headers).status_code == 202  # kept: allowed
    assert list(server.state.runai_jobs.changed) == [first, second]


def test_runapy_suspends_a_generated_workload_that_stays_suspended_and_is_told_503_past_the_bound(
    jobschema_server,
):
    from runai.api.distributed_api import DistributedApi

    server = jobschema_server(generate=True, limits=Limits(max_jobs=1))
    with runapy_client(server, retry_enabled=False) as api:
        workloads = DistributedApi(api)
        assert workloads.suspend_distributed(_uuid(1)).status_code == 202
        phases = [workloads.get_distributed(_uuid(1)).data["actualPhase"] for _ in range(2)]
        for number in range(100, 104):  # the cache of unchanged generated workloads moves on
            assert workloads.get_distributed(_uuid(number)).status_code == 200
        phases.append(workloads.get_distributed(_uuid(1)).data["actualPhase"])
        refused = _runapy_status(lambda: workloads.suspend_distributed(_uuid(2)))
    assert phases == ["Stopping", "Stopped", "Stopped"]
    assert refused == 503


def _runapy_status(call: Any) -> int:
    """The status of a runapy call, answered or raised (its error carries the status)."""
    try:
        return int(call().status_code)
    except Exception as err:
        status_code = getattr(err, "status", None) or getattr(err, "status_code", None)
        if status_code is None:
            raise
        return int(status_code)


def test_the_store_keeps_a_changed_job_the_cache_let_go_and_bounds_the_changed_ones():
    def made(job_id: str) -> Job:
        return Job.captured(job_id, "runai", [{"workloadId": job_id}], [b"{}"])

    store = JobStore(most=1)
    first, second, third = made("a"), made("b"), made("c")
    store.add_generated(first)
    store.add_generated(second)  # the cache lets the first go (a request may still hold it)
    assert list(store.generated) == ["b"]
    assert store.keep_changed(first) is first and store.get("a", 0.0) is first
    assert store.add_generated(made("a")) is first  # drawn again meanwhile: the changed one answers
    store.delete("a")
    assert store.keep_changed(first) is None and store.was_deleted("a") and store.get("a", 0.0) is None
    assert store.changed == {"a": None}  # the deleted one's id, in its place
    store.add_generated(third)
    with pytest.raises(StoreFull) as full:
        store.keep_changed(third)
    assert full.value.changed and list(store.generated) == ["c"]  # refused: nothing moved


# -------------------------------------------------------------------- changed generated jobs (AIHC)


def _live_generated(server: Any, first: int) -> str:
    """A generated AIHC job id whose drawn status is not terminal (the draw is fixed by the id)."""
    for number in range(first, first + 50):
        job = f"pytorchjob-{_uuid(number)}"
        if not is_terminal("aihc", status(server, job)):
            return job
    raise AssertionError("no generated job with a live status")


def _aihc_churn(server: Any, first: int, count: int) -> None:
    for number in range(first, first + count):
        status(server, f"pytorchjob-{_uuid(number)}")


def test_a_stopped_generated_aihc_job_stays_stopped_after_the_cache_lets_it_go(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=2))
    job = _live_generated(server, 1)
    ok(v1(server, "stop", job))
    assert [status(server, job) for _ in range(2)] == ["Stopping", "ManualTermination"]
    _aihc_churn(server, 1000, 5)
    assert status(server, job) == "ManualTermination"


def test_a_generated_aihc_job_s_new_priority_outlives_the_cache(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=2))
    job = _live_generated(server, 1)
    ok(v1(server, "priority", job, body={"priority": "low"}))
    _aihc_churn(server, 1000, 5)
    assert v1(server, "get", job).json()["result"]["priority"] == "low"


def test_a_deleted_generated_aihc_job_stays_not_found_and_a_change_past_the_bound_is_503(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=1))
    job = _live_generated(server, 1)
    ok(v1(server, "delete", job))
    other = _live_generated(server, 100)
    refused = error(v1(server, "stop", other), 503, "ServiceUnavailable")
    assert refused["message"] == routes.CHANGED_FULL.format(1, "jobs")
    _aihc_churn(server, 1000, 5)
    error(v1(server, "get", job), 404, NOT_FOUND)
    assert not is_terminal("aihc", status(server, other))  # the refused stop changed nothing


# ------------------------------------------------------------------------------- names on one line


def test_the_access_log_shows_a_peer_s_path_escaped_on_one_line(jobschema_server):
    log = io.StringIO()
    server = jobschema_server(log=log)
    with connect(server) as sock:
        sock.sendall(request_head("GET", "/api/v1/%0a%1b[2J%e2%80%a8x%ff", "Connection: close"))
        read_all(sock)
    lines = log.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "\x1b" not in lines[0] and "\u2028" not in lines[0]
    assert "\\n\\x1b[2J\\u2028x" in lines[0]


def test_a_skipped_capture_s_name_is_shown_escaped(tmp_path):
    from jobschema.serve.sources import load_captures

    odd = tmp_path / "cap\n\x1b[2J.json"
    odd.write_text(json.dumps({"code": 404, "message": "not found"}))
    catalog = load_captures([str(odd)])
    assert catalog.notes, catalog.notes
    assert all("\n" not in note and "\x1b" not in note for note in catalog.notes)
    assert any("cap\\n\\x1b[2J.json" in note for note in catalog.notes)


# --------------------------------------------------------------------------- bounds under attack

SHORT = Limits(max_body=64 * KiB, max_headers=16 * KiB, request_timeout=1.0, idle_timeout=1.0)


def _raw(server: Any, data: bytes) -> RawAnswer:
    """The first answer to ``data`` sent on a fresh connection (closed by the server after it)."""
    with connect(server) as sock:
        sock.sendall(data)
        return parse_answer(read_all(sock))


def _below_500(answer: RawAnswer) -> dict[str, Any]:
    assert 400 <= answer.status < 500, answer
    body = answer.json()
    assert valid(body, "runai-error") or valid(body, "aihc-error"), body
    return dict(body)


def test_many_small_headers_within_the_head_cap_are_read_and_past_it_are_431(jobschema_server):
    server = jobschema_server(limits=SHORT)
    few = [f"X-{n}: 1" for n in range(1000)]  # about 10 KiB
    many = [f"X-{n}: 1" for n in range(20_000)]  # about 200 KiB in headers of 9 bytes each
    assert _raw(server, request_head("GET", "/api/v1/token", *few, "Connection: close")).status == 405
    assert _raw(server, request_head("GET", "/api/v1/token", *many)).status == 431


@pytest.mark.parametrize(
    "chunks",
    [
        b"1" * 100 + b"\r\n{}",  # a chunk size of 100 hex digits
        b"2;" + b"e" * 100_000 + b"\r\n{}\r\n0\r\n\r\n",  # a chunk extension of 100 KB
        b"2\r\n{}\r\n0\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(20_000)) + b"\r\n",  # trailers
    ],
    ids=["long-size", "long-extension", "endless-trailers"],
)
def test_chunk_framing_of_any_length_is_refused_400(jobschema_server, chunks):
    server = jobschema_server(limits=SHORT)
    head = request_head(
        "POST", "/api/v1/token", "Transfer-Encoding: chunked", "Content-Type: application/json"
    )
    assert _below_500(_raw(server, head + chunks))["code"] == 400


def test_a_chunk_declared_larger_than_the_cap_is_413_at_once(jobschema_server):
    """(Held until the request timeout, 408, before round 9 read the chunk sizes.)"""
    server = jobschema_server(limits=SHORT)
    head = request_head(
        "POST", "/api/v1/token", "Transfer-Encoding: chunked", "Content-Type: application/json"
    )
    with connect(server) as sock:  # (not half-closed: the peer stays, sending nothing more)
        sock.sendall(head + b"FFFFFFFFFFFFFFFF\r\n{")
        answer = parse_answer(read_all(sock))
    assert answer.status == 413 and answer.headers["connection"] == "close"


def test_a_query_of_megabytes_is_414(jobschema_server):
    server = jobschema_server(limits=SHORT)
    target = "/api/v1/token?" + "a=b&" * 500_000
    answer = _raw(server, request_head("GET", target))
    assert answer.status in (414, 431) and answer.headers["connection"] == "close"


def test_pipelined_requests_are_answered_each_in_order(jobschema_server):
    server = jobschema_server(limits=SHORT)
    heads = [request_head("GET", f"{WORKLOADS}/{_uuid(n)}") for n in range(99)]
    heads.append(request_head("GET", "/api/v1/token", "Connection: close"))
    with connect(server) as sock:
        sock.sendall(b"".join(heads))
        data = read_all(sock)
    statuses = [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", data)]
    assert statuses == [401] * 99 + [405]


DEEP_ARRAY = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"a":' * 50_000 + b"1" + b"}" * 50_000


@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_deeply_nested_json_on_every_body_route_is_answered_below_500(jobschema_server, body):
    server = jobschema_server()
    token = {"Authorization": bearer(server)["Authorization"], "Content-Type": "application/json"}
    runai_routes = [
        ("POST", "/api/v1/token", {"Content-Type": "application/json"}),
        ("POST", WORKLOADS, token),
        ("POST", f"{WORKLOADS}/{_uuid(1)}/suspend", token),
        ("POST", f"{WORKLOADS}/{_uuid(1)}/resume", token),
        ("DELETE", f"{WORKLOADS}/{_uuid(1)}", token),
    ]
    for method, path, headers in runai_routes:
        answer = httpx.request(method, f"{server.url}{path}", content=body, headers=headers, timeout=TIMEOUT)
        assert 400 <= answer.status_code < 500 and valid(answer.json(), "runai-error"), (path, answer.text)
    job = f"pytorchjob-{_uuid(1)}"
    aihc_routes = [
        ("POST", "/api/v1/aijobs", {"resourcePoolId": POOL}),
        ("POST", f"/api/v1/aijobs/{job}/stop", {"resourcePoolId": POOL}),
        ("PUT", f"/api/v1/aijobs/{job}", {"resourcePoolId": POOL}),
        *[
            ("POST", "/", {"action": action, "resourcePoolId": POOL, "queueID": "q"})
            for action in routes.V2_ACTIONS
        ],
    ]
    for method, path, params in aihc_routes:
        headers = {**bce_headers(server, method, path, params), "Content-Type": "application/json"}
        answer = httpx.request(
            method, f"{server.url}{path}", params=params, content=body, headers=headers, timeout=TIMEOUT
        )
        assert 400 <= answer.status_code < 500 and valid(answer.json(), "aihc-error"), (path, answer.text)


@pytest.mark.parametrize(
    "target",
    [
        f"{WORKLOADS}/%C3%BC",
        f"{WORKLOADS}/%00",
        f"{WORKLOADS}/%E2%80%AE{_uuid(1)}",
        "/api/v1/aijobs/%F0%9F%98%80?resourcePoolId=%FF",
        "/%ff%fe",
        "/?action=%E2%80%A8DescribeJob",
    ],
)
def test_unicode_and_bytes_that_are_no_utf8_in_paths_are_answered_below_500(jobschema_server, target):
    server = jobschema_server()
    authorization = f"Authorization: {bearer(server)['Authorization']}"
    answer = _raw(server, request_head("GET", target, authorization, "Connection: close"))
    _below_500(answer)


def test_a_path_of_raw_utf8_bytes_is_400(jobschema_server):
    server = jobschema_server()
    answer = _raw(server, f"GET {WORKLOADS}/\u00fc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    assert _below_500(answer)["code"] == 400


ROUTE_PATHS = [
    "/api/v1/token",
    WORKLOADS,
    f"{WORKLOADS}/{_uuid(1)}",
    f"{WORKLOADS}/{_uuid(1)}/suspend",
    f"{WORKLOADS}/{_uuid(1)}/resume",
    f"/api/v1/workloads/{_uuid(1)}",
    "/api/v1/clusters/c1",
    f"/api/v1/aijobs?resourcePoolId={POOL}",
    f"/api/v1/aijobs/job-1?resourcePoolId={POOL}",
    f"/api/v1/aijobs/job-1/stop?resourcePoolId={POOL}",
    f"/?action=DescribeJob&resourcePoolId={POOL}&queueID=q",
    "/nothing/here",
]


@pytest.mark.parametrize("method", ["HEAD", "OPTIONS", "TRACE", "CONNECT", "PATCH"])
def test_other_methods_on_every_route_are_refused_in_the_api_body(jobschema_server, method):
    server = jobschema_server()
    for path in ROUTE_PATHS:
        with connect(server) as sock:
            sock.sendall(request_head(method, path, "Connection: close"))
            data = read_all(sock)
        answer = parse_answer(data)
        assert answer.status in (401, 403, 404, 405), (method, path, data[:200])
        if method == "HEAD":
            assert answer.body == b"", (path, data)  # a HEAD answer has no body
        else:
            _below_500(answer)


def _status(server: Any) -> int:
    """The status a fresh connection's request gets (0: closed unanswered, as a refusal may be)."""
    with connect(server) as sock:
        sock.sendall(request_head("GET", "/api/v1/token", "Connection: close"))
        data = read_all(sock)
    return parse_answer(data).status if data.startswith(b"HTTP/1.1 ") else 0


def test_slow_connections_hold_a_place_no_longer_than_the_request_timeout(jobschema_server):
    server = jobschema_server(limits=Limits(max_connections=4, request_timeout=1.0, idle_timeout=60))
    slow = [connect(server) for _ in range(4)]
    try:
        for sock in slow:  # each sends the first bytes of a head, then nothing (a dribble that stopped)
            sock.sendall(b"GET /api/v1/tok")
        assert all(parse_answer(read_all(sock)).status == 408 for sock in slow)
    finally:
        for sock in slow:
            sock.close()
    assert wait_for(lambda: _status(server) == 405)  # the places are free again
