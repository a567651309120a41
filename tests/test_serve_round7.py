"""``jobschema serve``, round 7: what real clients send on the wire, beyond the SDKs' own habits.

- A BCE v1 signature covers the *canonical* URI: the path decoded, then percent-encoded as BCE
  encodes it (every byte but ``A-Z a-z 0-9 - _ . ~`` and ``/``, upper-case hex). Baidu's SDKs sign
  that form of the path they mean (the Go SDK, and the Elixir one, send RFC 3986 sub-delimiters,
  ``:`` and ``@`` as they are; any client may write ``%7e`` or ``%7E`` for ``~``), so the stub
  rebuilds it from the path it received, never compares the bytes on the wire.
- The headers a signature covers are those the Baidu SDKs sign: the listed ones (BCE's defaults when
  none are) and every ``x-bce-*`` header, listed or not (bce-python-sdk), but ``x-bce-request-id``
  (which bce-sdk-go leaves unsigned): an ``x-bce-*`` header added after signing breaks it.
- A request target in absolute form (``GET http://host:port/path HTTP/1.1``), which RFC 9112 §3.2.2
  says a server MUST accept, is the path it names, and its authority is the request's host.
- ``Expect: 100-continue``, HTTP/1.0 clients and a keep-alive connection reused for hundreds of
  requests are answered as any other request.

Every wait here is bounded by :data:`~tests.serve_support.TIMEOUT`; no assertion depends on a clock
(signatures are made at the time the stub checks them against, valid for half an hour).
"""

from __future__ import annotations

import json
import warnings
from typing import Any
from urllib.parse import unquote_to_bytes

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.serve import RunningServer
from tests.serve_support import (
    AIHC_EXAMPLES,
    COMPLETED,
    FINISHED,
    POOL,
    RUNAI_EXAMPLES,
    RawAnswer,
    bce_headers,
    bearer,
    connect,
    parse_answer,
    read_all,
    valid,
    workload_request,
)

#: Characters RFC 3986 lets a path segment hold as they are, which BCE's canonical URI escapes.
SUB_DELIMS = "!$&'()*+,;=:@"
#: What BCE leaves unescaped in a canonical URI (besides ``/``).
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


@pytest.fixture(scope="module")
def server() -> Any:
    """One stub for the module: what these tests change (nothing) cannot leak between them."""
    from jobschema.serve import start

    with start(captures=[str(RUNAI_EXAMPLES), str(AIHC_EXAMPLES)]) as running:
        yield running


def canonical(path: str) -> str:
    """The canonical URI BCE signs: ``path`` decoded, then encoded by the Baidu SDK's rules."""
    from baidubce import utils

    return utils.normalize_string(unquote_to_bytes(path), False).decode("ascii")


def raw_request(server: RunningServer, method: str, target: str, headers: dict[str, str]) -> RawAnswer:
    """``target`` sent byte for byte (no client re-encodes it), with ``headers`` and a closing."""
    lines = [f"{method} {target} HTTP/1.1", *(f"{name}: {value}" for name, value in headers.items())]
    head = "\r\n".join([*lines, "Content-Length: 0", "Connection: close"]) + "\r\n\r\n"
    with connect(server) as sock:
        sock.sendall(head.encode("latin-1"))
        return parse_answer(read_all(sock))


def signed_raw_get(server: RunningServer, sent_path: str, signed_path: str | None = None) -> RawAnswer:
    """A GET of ``sent_path`` (as written) in the pool, signed by the SDK's signer over the canonical
    URI of ``signed_path`` (``sent_path`` by default), as a client that means that path signs it."""
    meant = signed_path if signed_path is not None else sent_path
    params = {"resourcePoolId": POOL}
    headers = bce_headers(server, "GET", canonical(meant), params)
    host = f"{server.host}:{server.port}"
    return raw_request(server, "GET", f"{sent_path}?resourcePoolId={POOL}", {"Host": host, **headers})


def _code(answer: RawAnswer) -> str:
    body = answer.json()
    assert valid(body, "aihc-error"), body
    return str(body["code"])


# --------------------------------------------------------------------- BCE: the canonical URI


@pytest.mark.parametrize(
    "sent",
    [
        "%70ytorchjob-0b6e2f94-5c1a-4d8b-9e37-a4f8c2d51e09",  # an unreserved letter escaped
        "pytorchjob%2D0b6e2f94%2d5c1a-4d8b-9e37-a4f8c2d51e09",  # hyphens escaped, either hex case
    ],
)
def test_a_served_job_asked_for_with_unreserved_characters_escaped_is_served(server, sent):
    answer = signed_raw_get(server, f"/api/v1/aijobs/{sent}")
    assert answer.status == 200, answer.body
    assert answer.json()["result"]["jobId"] == FINISHED


@pytest.mark.parametrize(
    "sent, meant",
    [
        ("job:1", "job:1"),  # a sub-delimiter the Go SDK sends as it is
        ("a@b", "a@b"),
        (SUB_DELIMS, SUB_DELIMS),
        ("a%7eb", "a~b"),  # lower-case hex, and an unreserved character escaped
        ("%e4%b8%ad%e6%96%87", "中文"),  # lower-case hex of UTF-8
        ("%E4%B8%AD%E6%96%87", "中文"),
        ("a%25b", "a%b"),  # a percent sign
    ],
)
def test_a_path_signed_as_bce_canonicalises_it_verifies_however_it_is_escaped(server, sent, meant):
    answer = signed_raw_get(server, f"/api/v1/aijobs/{sent}")
    assert answer.status == 404, answer.body  # verified: then not found, as any unknown job
    assert _code(answer) == "cce.warning.GetAIJobByJobIdFailed"
    assert meant in answer.json()["message"]  # the id as the client meant it


def test_a_path_that_means_another_job_than_the_signed_one_does_not_match(server):
    answer = signed_raw_get(server, "/api/v1/aijobs/job%3A2", signed_path="/api/v1/aijobs/job:1")
    assert answer.status == 400 and _code(answer) == "SignatureDoesNotMatch"


def _escaped(text: str, choices: list[int]) -> str:
    """``text`` written as a client may write it: each byte of its UTF-8 as it is (where a path may
    hold it), or escaped in upper- or lower-case hex, by ``choices``."""
    out = []
    for index, byte in enumerate(text.encode("utf-8")):
        choice = choices[index % len(choices)] if choices else 0
        as_is = bytes([byte]).decode("ascii") if byte in UNRESERVED or chr(byte) in SUB_DELIMS else None
        if choice == 0 and as_is is not None:
            out.append(as_is)
        else:
            out.append(f"%{byte:02X}" if choice < 2 else f"%{byte:02x}")
    return "".join(out)


_ID_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/"),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(job=_ID_TEXT, choices=st.lists(st.integers(0, 2), min_size=1, max_size=8))
def test_any_id_escaped_any_way_verifies_against_the_signature_of_what_it_means(server, job, choices):
    answer = signed_raw_get(server, f"/api/v1/aijobs/{_escaped(job, choices)}", f"/api/v1/aijobs/{job}")
    assert answer.status == 404, answer.body
    assert _code(answer) == "cce.warning.GetAIJobByJobIdFailed"


def test_the_sdks_own_escaping_still_verifies(server):
    """The bce-python-sdk way (its ``append_uri`` escapes the id, its signer signs that path)."""
    from baidubce import utils

    path = utils.append_uri(b"/api/v1/aijobs", "任务:1 (copy)".encode()).decode()
    headers = bce_headers(server, "GET", path, {"resourcePoolId": POOL})
    answer = httpx.get(f"{server.url}{path}", params={"resourcePoolId": POOL}, headers=headers, timeout=60)
    assert answer.status_code == 404 and answer.json()["code"] == "cce.warning.GetAIJobByJobIdFailed"


# ------------------------------------------------------------------ absolute-form request targets


def test_an_absolute_form_target_is_the_path_it_names(server):
    path = f"/api/v1/workloads/distributed/{COMPLETED}"
    headers = {"Host": f"{server.host}:{server.port}", **bearer(server)}
    origin = raw_request(server, "GET", path, headers)
    absolute = raw_request(server, "GET", f"{server.url}{path}", headers)
    assert origin.status == absolute.status == 200
    assert absolute.body == origin.body


def test_an_absolute_form_target_with_a_query_and_an_upper_case_scheme(server):
    target = f"HTTP://{server.host}:{server.port}/api/v1/aijobs/{FINISHED}?resourcePoolId={POOL}"
    headers = bce_headers(server, "GET", f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL})
    answer = raw_request(server, "GET", target, {"Host": f"{server.host}:{server.port}", **headers})
    assert answer.status == 200, answer.body
    assert answer.json()["result"]["jobId"] == FINISHED


def test_an_absolute_form_target_names_the_host_a_signature_must_cover(server):
    """The target's authority is the request's host (RFC 9112 §3.2.2: the Host header is ignored):
    a signature made for the stub's host does not match a request for another."""
    path = f"/api/v1/aijobs/{FINISHED}"
    headers = bce_headers(server, "GET", path, {"resourcePoolId": POOL})
    target = f"http://other.example{path}?resourcePoolId={POOL}"
    answer = raw_request(server, "GET", target, {"Host": f"{server.host}:{server.port}", **headers})
    assert answer.status == 400 and _code(answer) == "SignatureDoesNotMatch"
    made_for_it = bce_headers(server, "GET", path, {"resourcePoolId": POOL}, host="other.example")
    answer = raw_request(server, "GET", target, {"Host": f"{server.host}:{server.port}", **made_for_it})
    assert answer.status == 200, answer.body


def test_an_absolute_form_target_without_a_path_is_the_root(server):
    answer = raw_request(server, "GET", f"{server.url}", {"Host": f"{server.host}:{server.port}"})
    assert answer.status == 405  # "/" takes POST only (the v2 actions): it was routed as "/"
    assert answer.headers["allow"] == "POST"


@pytest.mark.parametrize(
    "path, schema",
    [("/api/v1/aijobs/x", "aihc-error"), ("/api/v1/workloads/distributed/x", "runai-error")],
)
def test_a_refused_absolute_form_request_is_answered_in_the_body_of_the_api_its_path_is(server, path, schema):
    """Refusals made before a route runs read the path from the request line: an absolute-form one
    too (here malformed: a header line without a colon; and a head past the cap)."""
    target = f"http://{server.host}:{server.port}{path}"
    with connect(server) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n".encode())
        malformed = parse_answer(read_all(sock))
    assert malformed.status == 400 and valid(malformed.json(), schema)
    padding = "".join(f"X-Pad-{n}: {'a' * 1000}\r\n" for n in range(40))  # past the 16 KiB cap
    with connect(server) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\n{padding}\r\n".encode())
        large = parse_answer(read_all(sock))
    assert large.status == 431 and valid(large.json(), schema)


def test_the_access_log_shows_an_absolute_form_target_as_its_path(tmp_path):
    import io

    from jobschema.serve import start

    log = io.StringIO()
    with start(captures=[str(RUNAI_EXAMPLES)], log=log) as running:
        path = f"/api/v1/workloads/distributed/{COMPLETED}"
        headers = {"Host": "x", **bearer(running)}
        assert raw_request(running, "GET", f"{running.url}{path}", headers).status == 200
    assert f"GET {path} 200 " in log.getvalue()


# ------------------------------------------------------------------ what HTTP clients do besides


def test_expect_100_continue_is_answered_100_then_the_request_s_answer(server):
    body = json.dumps(workload_request()).encode()
    head = "\r\n".join(
        [
            "POST /api/v1/workloads/distributed HTTP/1.1",
            "Host: x",
            f"Authorization: {bearer(server)['Authorization']}",
            "Content-Type: application/json",
            f"Content-Length: {len(body)}",
            "Expect: 100-continue",
            "Connection: close",
        ]
    )
    with connect(server) as sock:
        sock.sendall(f"{head}\r\n\r\n".encode())
        interim = sock.recv(1024)
        assert interim.startswith(b"HTTP/1.1 100 ")
        sock.sendall(body)
        answer = parse_answer(read_all(sock))
    assert answer.status == 202 and valid(answer.json(), "runai-distributed-workload")


def test_expect_100_continue_with_a_body_past_the_cap_is_413_before_any_byte_is_sent(server):
    head = "\r\n".join(
        [
            "POST /api/v1/workloads/distributed HTTP/1.1",
            "Host: x",
            "Content-Type: application/json",
            f"Content-Length: {64 * 1024 * 1024}",
            "Expect: 100-continue",
        ]
    )
    with connect(server) as sock:
        sock.sendall(f"{head}\r\n\r\n".encode())
        data = read_all(sock)
    assert not data.startswith(b"HTTP/1.1 100 ")  # no invitation to send what would be refused
    answer = parse_answer(data)
    assert answer.status == 413 and answer.headers["connection"] == "close"
    assert valid(answer.json(), "runai-error")


def test_an_http_1_0_client_is_answered_and_the_connection_closed(server):
    head = f"GET /api/v1/workloads/distributed/{COMPLETED} HTTP/1.0\r\n{_auth(server)}\r\n\r\n"
    with connect(server) as sock:
        sock.sendall(head.encode())
        data = read_all(sock)  # ends: the server closed the connection after one answer
    answer = parse_answer(data)
    assert answer.status == 200 and answer.json()["workloadId"] == COMPLETED
    assert len(answer.body) == int(answer.headers["content-length"])


def _auth(server: RunningServer) -> str:
    return f"Authorization: {bearer(server)['Authorization']}"


def test_a_keep_alive_connection_serves_hundreds_of_requests_of_both_apis(server):
    """One connection, reused: token, polls, submits and signed AIHC requests, all answered."""
    headers = bearer(server)
    seen: set[Any] = set()
    with httpx.Client(base_url=server.url, timeout=60) as http, warnings.catch_warnings():
        for number in range(300):
            if number % 3 == 0:
                answer = http.get(f"/api/v1/workloads/distributed/{COMPLETED}", headers=headers)
            elif number % 3 == 1:
                path = f"/api/v1/aijobs/{FINISHED}"
                signed = bce_headers(server, "GET", path, {"resourcePoolId": POOL})
                answer = http.get(path, params={"resourcePoolId": POOL}, headers=signed)
            else:
                answer = http.post("/api/v1/workloads/distributed", json=workload_request(), headers=headers)
            assert answer.status_code in (200, 202), answer.text
            seen.add(answer.extensions["network_stream"].get_extra_info("client_addr"))
    assert len(seen) == 1


# ------------------------------------------------------------ BCE: the headers a signature covers


def _sdk_signed(
    server: RunningServer, path: str, extra: dict[str, str], signed: tuple[str, ...]
) -> dict[str, str]:
    """The headers of a GET of ``path`` signed by bce-python-sdk's signer over ``signed`` (a list
    the client gives) with ``extra`` headers present when it signs: the signer covers every
    ``x-bce-*`` header besides the listed ones, as BCE's rules say."""
    import time

    from baidubce.auth import bce_v1_signer
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.utils import get_canonical_time

    creds = server.credentials
    now = int(time.time())
    date = get_canonical_time(now).decode()
    headers = {"host": f"{server.host}:{server.port}", "x-bce-date": date, **extra}
    authorization = bce_v1_signer.sign(
        BceCredentials(creds.bce_access_key_id, creds.bce_secret_access_key),
        b"GET",
        path.encode(),
        {name.encode(): value.encode() for name, value in headers.items()},
        {b"resourcePoolId": POOL.encode()},
        now,
        1800,
        [name.encode() for name in signed],
    )
    return {**headers, "Authorization": authorization.decode()}


@pytest.mark.parametrize("signed", [("host", "x-bce-date"), ("host",)])
def test_an_x_bce_header_the_sdk_signed_unlisted_is_covered(server, signed):
    """bce-python-sdk signs every ``x-bce-*`` header, listed or not: the stub recomputes so too."""
    path = f"/api/v1/aijobs/{FINISHED}"
    headers = _sdk_signed(server, path, {"x-bce-client-token": "tok-1", "X-Bce-Meta-Team": "ml"}, signed)
    answer = raw_request(server, "GET", f"{path}?resourcePoolId={POOL}", headers)
    assert answer.status == 200, answer.body


def test_an_x_bce_header_added_after_signing_breaks_the_signature(server):
    path = f"/api/v1/aijobs/{FINISHED}"
    headers = _sdk_signed(server, path, {}, ("host", "x-bce-date"))
    assert raw_request(server, "GET", f"{path}?resourcePoolId={POOL}", headers).status == 200
    tampered = {**headers, "x-bce-acl": "public-read"}
    answer = raw_request(server, "GET", f"{path}?resourcePoolId={POOL}", tampered)
    assert answer.status == 400 and _code(answer) == "SignatureDoesNotMatch"


def test_a_header_neither_listed_nor_x_bce_may_change_after_signing(server):
    path = f"/api/v1/aijobs/{FINISHED}"
    headers = _sdk_signed(server, path, {"user-agent": "a"}, ("host", "x-bce-date"))
    answer = raw_request(server, "GET", f"{path}?resourcePoolId={POOL}", {**headers, "user-agent": "b"})
    assert answer.status == 200, answer.body


def test_a_request_id_header_the_go_sdk_leaves_unsigned_is_not_covered(server):
    """bce-sdk-go signs every ``x-bce-*`` header but ``x-bce-request-id``, and lists what it signs:
    a request id beside a list that does not name it is no part of the signature."""
    path = f"/api/v1/aijobs/{FINISHED}"
    headers = _sdk_signed(server, path, {}, ("host", "x-bce-date"))
    traced = {**headers, "x-bce-request-id": "3f0c9a4e-trace"}
    assert raw_request(server, "GET", f"{path}?resourcePoolId={POOL}", traced).status == 200
