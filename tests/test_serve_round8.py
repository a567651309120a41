"""``jobschema serve``, round 8: peers that do not speak HTTP/1.x, request smuggling, ambiguous
credentials, and hostile members of classes the earlier rounds bounded.

- A connection that starts with something other than an HTTP/1.x request line is refused at once
  and closed: HTTP/2's prior-knowledge preface (``PRI * HTTP/2.0``) and any request line naming a
  major version other than 1 is 505; HTTP/0.9 (``GET /``, no version) is 505; bytes that cannot
  start a request line at all (a TLS ClientHello on the plain port, binary garbage) are 400 before
  the server waits for a line end.
- A request carrying both ``Transfer-Encoding`` and ``Content-Length`` is refused (400) and its
  connection closed (RFC 9112 §6.1: such a message is a smuggling attempt; the server MUST close),
  as is one carrying two ``Authorization`` headers (which one a proxy checked is unknown).
- A JSON body starting with a UTF-8 byte order mark is not valid JSON (RFC 8259 §8.1: a JSON text
  sent over a network MUST NOT start with one; a reader MAY ignore it): the stub takes the strict
  reading, as Go's ``encoding/json`` does, since how the live APIs read one is not documented.

Every socket wait is bounded by :data:`~tests.serve_support.TIMEOUT`; no assertion reads a clock.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.serve.limits import Limits
from jobschema.serve.protocol import SMUGGLING, TWO_AUTHORIZATIONS, skip_blank_lines
from tests.serve_support import (
    AIHC_EXAMPLES,
    AIJOBS,
    APIS,
    COMPLETED,
    FINISHED,
    POOL,
    RUNAI_EXAMPLES,
    SUBMIT,
    TIMEOUT,
    TOKEN,
    bce_headers,
    connect,
    parse_answer,
    read_all,
    request_head,
    token_in_one_write,
    valid,
    wait_for,
)

BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def server():
    """One stub for the module, with a request timeout no test here waits for (a refusal at once
    is answered long before it)."""
    from jobschema.serve import start

    limits = Limits(request_timeout=TIMEOUT, idle_timeout=TIMEOUT)
    with start(captures=[str(RUNAI_EXAMPLES), str(AIHC_EXAMPLES)], limits=limits) as running:
        yield running


def exchange(server, data: bytes) -> bytes:
    """Send ``data`` and read until the server closes, without closing our side first: a server
    that waits for more (a request line's end, a body) is seen as a timeout of the test, not an
    answer."""
    with connect(server) as sock:
        with contextlib.suppress(OSError):  # a refusal may come (and reset) before all is sent
            sock.sendall(data)
        return read_all(sock)


def refused(data: bytes, status: int, schema: str | None) -> dict | None:
    """``data`` is one answer, ``status`` with ``Connection: close`` and the API's error body (none
    when ``schema`` is None), and nothing after it."""
    answer = parse_answer(data)
    assert answer.status == status, data[:300]
    assert answer.headers["connection"] == "close"
    assert len(data) == data.index(b"\r\n\r\n") + 4 + len(answer.body), data[:600]  # then the close
    if schema is None:
        assert answer.body == b""
        return None
    body = answer.json()
    assert valid(body, schema), body
    return body


# ------------------------------------------------------------------- (a) not HTTP/1.x at all


def test_an_http2_prior_knowledge_preface_is_505_and_closed(server):
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    settings_frame = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    data = exchange(server, preface + settings_frame)
    refused(data, 505, None)  # the target is no path: no API's error body


@pytest.mark.parametrize("version", ["2.0", "3.0", "0.9", "9.9", "0.0"])
@pytest.mark.parametrize(("target", "schema"), APIS)
def test_a_request_line_naming_a_version_other_than_1_is_505(server, version, target, schema):
    data = exchange(server, request_head("GET", target).replace(b"HTTP/1.1", f"HTTP/{version}".encode(), 1))
    body = refused(data, 505, schema)
    assert body is not None and f"HTTP/{version}" in body["message"]


@pytest.mark.parametrize("line", [b"GET /", b"GET /api/v1/token", b"POST /?action=DescribeJob"])
@pytest.mark.parametrize("end", [b"\r\n", b"\n"])
def test_an_http09_request_is_refused_at_once_not_after_the_request_timeout(server, line, end):
    data = exchange(server, line + end)  # the peer then waits: the server must not
    answer = parse_answer(data)
    assert answer.status == 505, data[:300]
    assert b"HTTP/0.9" in answer.body or answer.body == b""


@pytest.mark.parametrize(
    "start",
    [
        bytes.fromhex("1603010200010001fc0303") + bytes(32),  # a TLS ClientHello
        bytes.fromhex("16030300"),  # only its first bytes
        b"\x00\x00\x00\x00",
        b"\x80\x01\x00\x00",  # an SSLv2-style hello
        b"\xff\xfe\xfd",
        b'{"grantType": "client_credentials"}',  # a body with no head
        b"GET\x00/ HTTP/1.1\r\n",  # a NUL inside the method
        b"G(T / HTTP/1.1",  # a separator in the method
    ],
)
def test_bytes_that_cannot_start_a_request_line_are_400_at_once(server, start):
    data = exchange(server, start)  # no line end: a server waiting for one would time out the test
    answer = parse_answer(data)
    assert answer.status == 400 and answer.headers["connection"] == "close", data[:300]


def test_a_request_line_of_http_1_with_another_minor_version_is_served_as_1_1(server):
    """RFC 9110 §6.2: a higher minor version is answered in the highest the server speaks."""
    data = exchange(
        server,
        request_head("POST", TOKEN, "Content-Length: 2", "Connection: close").replace(
            b"HTTP/1.1", b"HTTP/1.2", 1
        )
        + b"{}",
    )
    assert parse_answer(data).status == 400  # the token route's own refusal of {}
    assert b"grantType" in parse_answer(data).body


@pytest.mark.parametrize(
    ("blank", "schema"), [(b"\r\r", "runai-error"), (b"\r ", None), (b"\n\r", "runai-error")]
)
def test_a_cr_not_followed_by_lf_before_a_request_line_is_400_at_once(server, blank, schema):
    """Empty lines before a request line are skipped (RFC 9112 §2.2; round 9): a CR without its LF
    is none, and refused at once."""
    refused(
        exchange(server, blank + request_head("GET", f"{SUBMIT}/x")), 400, schema
    )  # (a path read: its body)


_TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(start=st.binary(min_size=1, max_size=40), tail=st.sampled_from([b"", b"\r\n", b"\r\n\r\n"]))
def test_any_start_is_refused_at_once_when_no_request_line_can_begin_so(server, start, tail):
    """Whatever a connection starts with, the answer is a refusal (or none, when the peer's close
    came first); a start whose first byte can begin no method is refused 400 even so."""
    data = start + tail
    first = skip_blank_lines(data)  # (empty lines first are skipped: round 9)
    with connect(server) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)  # the peer says no more: no test waits for a timeout
        answer = read_all(sock)
    if first and chr(first[0]) not in _TCHAR:
        assert parse_answer(answer).status == 400, (data, answer[:200])
    if answer:
        assert parse_answer(answer).status in {400, 401, 404, 405, 414, 431, 505}, answer[:200]


# ------------------------------------------------------------------------ request smuggling


@pytest.mark.parametrize(
    "framing",
    [
        ("Content-Length: 6", "Transfer-Encoding: chunked"),
        ("Transfer-Encoding: chunked", "Content-Length: 6"),
        ("content-length: 6", "TRANSFER-ENCODING: chunked"),
        ("Content-Length: 0", "Transfer-Encoding: chunked"),
        ("Content-Length: 6", "Transfer-Encoding: identity"),
        ("Content-Length: 6", "Transfer-Encoding:chunked"),
        ("Content-Length: 6", "Transfer-Encoding: gzip, chunked"),
    ],
)
@pytest.mark.parametrize(("target", "schema"), APIS)
def test_transfer_encoding_and_content_length_together_are_refused_and_closed(
    server, framing, target, schema
):
    smuggled = request_head("GET", f"{SUBMIT}/{COMPLETED}")
    data = exchange(server, request_head("POST", target, *framing) + b"0\r\n\r\n" + smuggled)
    body = refused(data, 400, schema)
    assert body is not None and "Transfer-Encoding" in body["message"]


def test_a_smuggled_request_after_an_ambiguous_body_is_never_answered(server):
    """The classic CL.TE desync: whatever the server read as the body, the request hidden after it
    gets no answer of its own: the connection is closed after the refusal."""
    hidden = request_head("GET", "/api/v1/workloads/distributed/hidden")
    head = request_head("POST", TOKEN, f"Content-Length: {5 + len(hidden)}", "Transfer-Encoding: chunked")
    data = exchange(server, head + b"0\r\n\r\n" + hidden)
    assert data.count(b"HTTP/1.1 ") == 1
    assert parse_answer(data).status == 400


def test_a_folded_line_naming_transfer_encoding_is_part_of_the_header_before_it(server):
    """An obs-fold continuation (RFC 9112 §5.2) is the value of the line before it, not a header."""
    head = request_head("POST", TOKEN, "X-Note: a", " Transfer-Encoding: chunked", "Content-Length: 2")
    answer = parse_answer(exchange(server, head.replace(b"Host:", b"Connection: close\r\nHost:", 1) + b"{}"))
    assert answer.status == 400 and b"grantType" in answer.body


@pytest.mark.parametrize(("target", "schema"), APIS)
def test_two_authorization_headers_are_refused(server, target, schema):
    token = token_in_one_write(server)
    for pair in [(f"Bearer {token}", "Bearer forged"), ("Bearer forged", f"Bearer {token}")]:
        head = request_head("GET", target, *(f"Authorization: {value}" for value in pair))
        body = refused(exchange(server, head), 400, schema)
        assert body is not None and "Authorization" in body["message"]


def test_pipelined_requests_are_answered_in_order_until_a_smuggling_attempt(server):
    token = token_in_one_write(server)
    good = request_head("GET", f"{SUBMIT}/{COMPLETED}", f"Authorization: Bearer {token}")
    bad = request_head("POST", TOKEN, "Content-Length: 5", "Transfer-Encoding: chunked") + b"0\r\n\r\n"
    data = exchange(server, good * 3 + bad + good * 3)
    statuses = [int(part[:3]) for part in data.split(b"HTTP/1.1 ")[1:]]
    assert statuses == [200, 200, 200, 400]


# ---------------------------------------------------------------------------- (b) a UTF-8 BOM


def _grant(server) -> bytes:
    creds = server.credentials
    grant = {
        "grantType": "client_credentials",
        "clientId": creds.runai_client_id,
        "clientSecret": creds.runai_client_secret,
    }
    return json.dumps(grant).encode()


@pytest.mark.parametrize("prefix", [BOM, BOM + b" ", b" " + BOM, BOM + BOM])
def test_a_token_request_starting_with_a_bom_is_not_json(server, prefix):
    answer = httpx.post(
        f"{server.url}{TOKEN}",
        content=prefix + _grant(server),
        timeout=TIMEOUT,
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 400, answer.text
    assert valid(answer.json(), "runai-error")
    assert answer.json()["message"].startswith("The request body is not valid JSON: ")
    if prefix.startswith(BOM):
        assert "byte order mark" in answer.json()["message"]


def test_a_bom_alone_is_not_json(server):
    answer = httpx.post(f"{server.url}{TOKEN}", content=BOM, timeout=TIMEOUT)
    assert answer.status_code == 400 and "byte order mark" in answer.json()["message"]


def test_leading_whitespace_is_json_still(server):
    """RFC 8259 allows whitespace before a value: only the BOM is refused."""
    answer = httpx.post(f"{server.url}{TOKEN}", content=b" \r\n\t" + _grant(server), timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize(
    ("path", "params", "code"),
    [
        (AIJOBS, {"resourcePoolId": POOL}, "MalformedJSON"),
        ("/", {"action": "CreateJob", "resourcePoolId": POOL, "queueID": "q"}, "MalformedJSON"),
    ],
)
def test_an_aihc_body_starting_with_a_bom_is_malformed_json(server, path, params, code):
    headers = bce_headers(server, "POST", path, params)
    answer = httpx.post(
        f"{server.url}{path}",
        params=params,
        content=BOM + b"{}",
        timeout=TIMEOUT,
        headers={**headers, "Content-Type": "application/json"},
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == code and "byte order mark" in answer.json()["message"]


# ---------------------------------------------------------------- hostile members, bounded


def test_ten_thousand_headers_are_431(server):
    head = request_head("GET", f"{SUBMIT}/x", *(f"X-{n}: v" for n in range(10_000)))
    refused(exchange(server, head), 431, "runai-error")


def test_a_one_megabyte_header_line_is_431(server):
    head = request_head("GET", f"{SUBMIT}/x", "X-Big: " + "a" * (1 << 20))
    refused(exchange(server, head), 431, "runai-error")


def test_a_very_long_query_string_is_414(server):
    refused(exchange(server, request_head("GET", f"{AIJOBS}/x?" + "a=b&" * 100_000)), 414, "aihc-error")


@pytest.mark.parametrize(
    "piece",
    [
        "..%2f..%2ftoken",
        "%2e%2e%2f%2e%2e%2fapi",
        "%2e%2e",
        "..%5c..%5c",
        "%252e%252e%252f",
        "x%00y",
        "%c0%ae%c0%ae",
    ],
)
def test_percent_encoded_traversal_in_a_job_id_is_an_unknown_job(server, piece):
    token = token_in_one_write(server)
    answer = httpx.get(
        f"{server.url}{SUBMIT}/{piece}", headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT
    )
    assert answer.status_code == 404, answer.text
    assert valid(answer.json(), "runai-error")


def test_non_utf8_bytes_in_the_path_are_400_with_the_api_error_body(server):
    data = exchange(server, b"GET /api/v1/aijobs/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = parse_answer(data)
    assert answer.status == 400 and answer.headers["connection"] == "close"


@pytest.mark.parametrize(
    ("value", "status"),
    [
        ("Bearer {t}", 200),
        ("bearer {t}", 200),  # RFC 9110 §11.1: the scheme is case-insensitive
        ("BEARER {t}", 200),
        ("Bearer   {t}", 200),  # 1*SP
        ("Bearer\t{t}", 401),  # a tab is no SP in the credentials grammar
        ("Bearer{t}", 401),
        ("Bearer {t} extra", 401),
        ("Basic {t}", 401),
        ("Bearer", 401),
    ],
)
def test_bearer_spacing_and_case(server, value, status):
    token = token_in_one_write(server)
    head = request_head(
        "GET", f"{SUBMIT}/{COMPLETED}", "Authorization: " + value.format(t=token), "Connection: close"
    )
    answer = parse_answer(exchange(server, head))
    assert answer.status == status, answer.body[:200]
    if status == 401:
        assert valid(answer.json(), "runai-error")


def test_many_idle_kept_alive_connections_are_bounded_by_the_cap(jobschema_server):
    server = jobschema_server(limits=Limits(max_connections=5, idle_timeout=TIMEOUT))
    held = []
    try:
        for _ in range(5):  # kept alive after an answer: each holds a place
            sock = connect(server)
            sock.sendall(request_head("GET", f"{SUBMIT}/x"))
            assert sock.recv(65536).startswith(b"HTTP/1.1 401")
            held.append(sock)
        for _ in range(20):
            with connect(server) as extra:
                with contextlib.suppress(OSError):
                    extra.sendall(request_head("GET", f"{SUBMIT}/x"))
                data = read_all(extra)
            assert data == b"" or parse_answer(data).status == 503
    finally:
        for sock in held:
            sock.close()


def test_an_expect_100_continue_body_that_never_comes_is_408(jobschema_server):
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT))
    head = request_head("POST", TOKEN, "Expect: 100-continue", "Content-Length: 50")
    data = exchange(server, head)
    assert data.startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
    answer = parse_answer(data[len(b"HTTP/1.1 100 Continue\r\n\r\n") :])
    assert answer.status == 408 and answer.headers["connection"] == "close"


@pytest.mark.parametrize("declared", ["10", "1000"])
def test_a_content_length_longer_than_the_body_is_408_not_a_hang(jobschema_server, declared):
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT))
    data = exchange(server, request_head("POST", TOKEN, f"Content-Length: {declared}") + b"{}")
    answer = parse_answer(data)
    assert answer.status == 408 and answer.headers["connection"] == "close"


def test_a_content_length_shorter_than_the_body_leaves_the_rest_as_the_next_request(server):
    data = exchange(server, request_head("POST", TOKEN, "Content-Length: 2") + b"{}garbage\r\n\r\n")
    statuses = [int(part[:3]) for part in data.split(b"HTTP/1.1 ")[1:]]
    assert statuses == [400, 400]  # the body {}, then "garbage" as a request line: refused, closed
    assert data.rstrip().endswith(b"}") or data.endswith(b"\r\n\r\n")


@pytest.mark.parametrize(
    "chunk",
    [
        b"1" * 100 + b"\r\n{}",  # a hundred digits
        b"2;" + b"e" * (1 << 20) + b"\r\n{}\r\n0\r\n\r\n",  # a 1 MiB chunk extension
        b"2\r\n{}\r\n0\r\nX-Trailer: " + b"t" * (1 << 20) + b"\r\n\r\n",  # 1 MiB of trailers
    ],
    ids=["100-digits", "1MiB-extension", "1MiB-trailers"],
)
def test_chunk_framing_past_the_caps_is_400(server, chunk):
    data = exchange(server, request_head("POST", TOKEN, "Transfer-Encoding: chunked") + chunk)
    refused(data, 400, "runai-error")


@pytest.mark.parametrize("size", [b"FFFFFFFFFFFFFFFF", b"100001", b"7fffffffffffffffffff"])
def test_a_chunk_declared_far_above_the_cap_whose_bytes_never_come_is_413(jobschema_server, size):
    """(408 after the request timeout until round 9, which reads the chunk sizes: 413 at once.)"""
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT))
    head = request_head("POST", TOKEN, "Transfer-Encoding: chunked")
    answer = parse_answer(exchange(server, head + size + b"\r\n{}"))
    assert answer.status == 413 and answer.headers["connection"] == "close"


def test_a_client_that_never_reads_holds_the_server_no_longer_than_the_request_timeout(jobschema_server):
    """Another member of round 5's class: one request with a large answer (a workload), then silence
    and no reading; the server cuts it off and serves others meanwhile."""
    server = jobschema_server([RUNAI_EXAMPLES], limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT))
    token = token_in_one_write(server)
    request = request_head("GET", f"{SUBMIT}/{COMPLETED}", f"Authorization: Bearer {token}")
    # (its receive buffer made small before it connects: set after, the window the kernel already
    # offered can take megabytes of answers, and the server is then idle, not blocked writing)
    stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.settimeout(TIMEOUT)
    stuck.connect((server.host, server.port))
    with stuck:
        with contextlib.suppress(OSError):
            for _ in range(50):
                stuck.sendall(request * 50)
        other = exchange(server, request_head("GET", f"{SUBMIT}/x", "Connection: close"))
        assert parse_answer(other).status == 401
        assert wait_for(lambda: _cut_off(stuck))  # (never read: reading would let the answer go on)


def _cut_off(sock: socket.socket) -> bool:
    """True once the server has ended the connection (its reset, or its close), seen without reading
    from it: a peer that reads lets the server write again, so it would no longer be one that never
    reads (an earlier version drained the socket here, and so waited out the idle timeout)."""
    poller = select.poll()
    poller.register(sock, select.POLLERR | select.POLLHUP | select.POLLRDHUP)
    return any(event & (select.POLLERR | select.POLLHUP | select.POLLRDHUP) for _, event in poller.poll(0))


# ------------------------------------------------------------------ BCE signatures and the clock

NOW = 1_780_000_000  # the stub's (fake) clock: no assertion reads a real one


@pytest.fixture(scope="module")
def clocked():
    from jobschema.serve import start
    from tests.serve_support import Clock

    with start(captures=[str(AIHC_EXAMPLES)], clock=Clock(float(NOW))) as running:
        yield running


@pytest.mark.parametrize(
    ("signed_at", "expiration", "status", "code"),
    [
        (NOW, 1800, 404, "cce.warning.GetAIJobByJobIdFailed"),  # valid: then an unknown job
        (NOW - 1800, 1800, 404, "cce.warning.GetAIJobByJobIdFailed"),  # its last second
        (NOW - 1801, 1800, 400, "RequestExpired"),
        (NOW - 60, 30, 400, "RequestExpired"),
        (NOW + 900, 1800, 404, "cce.warning.GetAIJobByJobIdFailed"),  # as far ahead as skew allows
        (NOW + 901, 1800, 400, "RequestExpired"),
        (NOW + 10**9, 1800, 400, "RequestExpired"),  # decades ahead
        (1, 1800, 400, "RequestExpired"),  # 1970
        (NOW, 3601, 400, "InvalidHTTPAuthHeader"),  # living longer than an hour
        (NOW, 0, 404, "cce.warning.GetAIJobByJobIdFailed"),  # valid for the second it was made
        (NOW - 1, 0, 400, "RequestExpired"),
    ],
)
def test_bce_signatures_expired_or_dated_ahead(clocked, signed_at, expiration, status, code):
    path = f"{AIJOBS}/no-such-job"
    params = {"resourcePoolId": POOL}
    headers = bce_headers(clocked, "GET", path, params, timestamp=signed_at, expiration=expiration)
    answer = httpx.get(f"{clocked.url}{path}", params=params, headers=headers, timeout=TIMEOUT)
    assert answer.status_code == status, answer.text
    assert answer.json()["code"] == code
    assert valid(answer.json(), "aihc-error")


@pytest.mark.parametrize(
    "when",
    ["2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "9999-12-31T23:59:60Z", "2026-01-01 00:00:00Z", "", "0"],
)
def test_a_bce_signing_time_that_is_no_time_is_a_malformed_header(clocked, when):
    path = f"{AIJOBS}/no-such-job"
    headers = bce_headers(clocked, "GET", path, {"resourcePoolId": POOL}, timestamp=NOW)
    parts = headers["Authorization"].split("/")
    parts[2] = when
    head = request_head(
        "GET",
        f"{path}?resourcePoolId={POOL}",
        f"Authorization: {'/'.join(parts)}",
        f"x-bce-date: {headers['x-bce-date']}",
        "Connection: close",
    )
    answer = parse_answer(exchange(clocked, head))
    assert answer.status == 400, answer.body
    assert answer.json()["code"] == "InvalidHTTPAuthHeader"


# ------------------------------------------------------------------------ parameter pollution


def _signed_pairs(server, path: str, pairs: list[tuple[str, str]], method: str = "GET") -> dict[str, str]:
    """BCE v1 headers for ``path`` with the query ``pairs`` (a key may repeat, which the SDK's signer,
    taking a dict, cannot sign): the algorithm of live-apis.md, every pair signed."""
    import hashlib
    import hmac
    import time
    from urllib.parse import quote

    def esc(text: str) -> str:
        return quote(text, safe="-_.~")

    creds = server.credentials
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    prefix = f"bce-auth-v1/{creds.bce_access_key_id}/{when}/1800"
    key = hmac.new(creds.bce_secret_access_key.encode(), prefix.encode(), hashlib.sha256).hexdigest()
    query = "&".join(sorted(f"{esc(k)}={esc(v)}" for k, v in pairs))
    headers = "\n".join(sorted([f"host:{esc(f'{server.host}:{server.port}')}", f"x-bce-date:{esc(when)}"]))
    canonical = f"{method}\n{esc(path).replace('%2F', '/')}\n{query}\n{headers}"
    signature = hmac.new(key.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    return {"Authorization": f"{prefix}/host;x-bce-date/{signature}", "x-bce-date": when}


def test_the_pair_signer_here_signs_as_the_stub_verifies(server):
    path = f"{AIJOBS}/no-such-job"
    headers = _signed_pairs(server, path, [("resourcePoolId", POOL)])
    answer = httpx.get(f"{server.url}{path}?resourcePoolId={POOL}", headers=headers, timeout=TIMEOUT)
    assert answer.status_code == 404 and answer.json()["code"] == "cce.warning.GetAIJobByJobIdFailed"


@pytest.mark.parametrize(
    "pairs",
    [
        [("resourcePoolId", POOL), ("resourcePoolId", "cce-other")],
        [("resourcePoolId", "cce-other"), ("resourcePoolId", POOL)],
        [("resourcePoolId", POOL), ("resourcePoolId", POOL)],
        [("resourcePoolId", POOL), ("resourcePoolId", "")],
    ],
)
def test_a_resource_pool_given_twice_is_refused_whichever_comes_first(server, pairs):
    """A gateway may read the first value and the service the last (Go's Query().Get reads the
    first, starlette's the last): which pool is meant is ambiguous, so it is refused."""
    path = f"{AIJOBS}/{FINISHED}"
    query = "&".join(f"{k}={v}" for k, v in pairs)
    answer = httpx.get(
        f"{server.url}{path}?{query}", headers=_signed_pairs(server, path, pairs), timeout=TIMEOUT
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "InvalidParam"
    assert answer.json()["message"] == "resourcePoolId is given 2 times: which one is meant is ambiguous"


@pytest.mark.parametrize(
    ("pairs", "name"),
    [
        (
            [("action", "DescribeJob"), ("action", "DeleteJob"), ("resourcePoolId", POOL), ("queueID", "q")],
            "action",
        ),
        (
            [("action", "DescribeJob"), ("resourcePoolId", POOL), ("queueID", "q"), ("queueID", "r")],
            "queueID",
        ),
        (
            [("action", "DescribeJob"), ("resourcePoolId", POOL), ("resourcePoolId", POOL), ("queueID", "q")],
            "resourcePoolId",
        ),
    ],
)
def test_a_v2_action_pool_or_queue_given_twice_is_refused(server, pairs, name):
    query = "&".join(f"{k}={v}" for k, v in pairs)
    headers = _signed_pairs(server, "/", pairs, "POST")
    body = json.dumps({"jobId": FINISHED}).encode()
    answer = httpx.post(f"{server.url}/?{query}", headers=headers, content=body, timeout=TIMEOUT)
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "InvalidParam"
    assert answer.json()["message"] == f"{name} is given 2 times: which one is meant is ambiguous"


# ----------------------------------------------------------------------- said once, not per peer


def test_each_kind_of_early_refusal_is_one_warning_line(jobschema_server):
    import io

    log = io.StringIO()
    server = jobschema_server(log=log)
    sends = {
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n": 4,
        request_head("GET", "/").replace(b"HTTP/1.1", b"HTTP/3.0"): 2,
        bytes.fromhex("1603010200010001fc0303"): 3,
        request_head("POST", TOKEN, "Content-Length: 5", "Transfer-Encoding: chunked") + b"0\r\n\r\n": 3,
        request_head("GET", f"{SUBMIT}/x", "Authorization: Bearer a", "Authorization: Bearer b"): 2,
    }
    for data, times in sends.items():
        for _ in range(times):
            exchange(server, data)
    expected = [
        "warning: a connection spoke another HTTP version than 1.1 (HTTP/2.0): answered 505 and closed",
        "warning: a connection did not start with an HTTP/1.1 request line (TLS on the plain port?): "
        "answered 400 and closed",
        "warning: a request had both Transfer-Encoding and Content-Length (request smuggling?): "
        "answered 400 and closed",
        "warning: a request had more than one Authorization header: answered 400 and closed",
    ]
    assert wait_for(lambda: all(line in log.getvalue() for line in expected)), log.getvalue()
    warnings = [line for line in log.getvalue().splitlines() if line.startswith("warning")]
    assert sorted(warnings) == sorted(expected)


_NAMES = st.sampled_from(
    [
        "Transfer-Encoding",
        "transfer-encoding",
        "TRANSFER-ENCODING",
        "Content-Length",
        "content-length",
        "CONTENT-LENGTH",
        "X-Other",
        "Accept",
        "Authorization",
    ]
)


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(names=st.lists(_NAMES, max_size=5), spaces=st.sampled_from(["", " ", "  ", "\t"]))
def test_any_head_naming_both_framings_or_two_authorizations_is_refused_and_no_other_is(
    server, names, spaces
):
    values = {"transfer-encoding": "chunked", "content-length": "5", "authorization": "Bearer x"}
    lines = [f"{name}:{spaces}{values.get(name.lower(), 'v')}" for name in names]
    head = request_head("POST", TOKEN, *lines, "Connection: close")
    data = exchange(server, head + b"0\r\n\r\n")
    lower = [name.lower() for name in names]
    answer = parse_answer(data)
    ambiguous = {"transfer-encoding", "content-length"} <= set(lower) or lower.count("authorization") > 1
    repeated = lower.count("transfer-encoding") > 1 or lower.count("content-length") > 1
    if ambiguous:
        assert answer.status == 400 and answer.headers["connection"] == "close"
        assert answer.json()["message"] in {SMUGGLING, TWO_AUTHORIZATIONS}
    else:
        assert answer.status in {400, 401} and b"Transfer-Encoding" not in answer.body
        if not repeated:
            assert answer.status == 400  # the token route's own answer to what it read


@pytest.mark.parametrize(
    "framing", [("Transfer-Encoding: chunked",), ("Transfer-Encoding: chunked", "Connection: keep-alive")]
)
def test_an_http10_request_with_transfer_encoding_is_faulty_framing(server, framing):
    """RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding MUST be treated as faulty framing."""
    head = request_head("POST", TOKEN, *framing).replace(b"HTTP/1.1", b"HTTP/1.0", 1)
    data = exchange(server, head + b"2\r\n{}\r\n0\r\n\r\n" + request_head("GET", f"{SUBMIT}/x"))
    body = refused(data, 400, "runai-error")
    assert body is not None and "Transfer-Encoding" in body["message"]
