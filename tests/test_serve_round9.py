"""``jobschema serve``, round 9: HTTP/1.1's edge cases nobody listed.

- (a) A chunk declaring more than ``--max-body`` is 413 as soon as its size line says so (its hex
  digits are read as they come), not 408 after ``--request-timeout`` when its bytes never come.
- (b) Empty lines before a request line are skipped (RFC 9112 §2.2: a server SHOULD ignore at least
  one), at a connection's start and between pipelined requests (a CRLF after a POST body).
- (c) Every answer has its access-log line, the protocol's own refusals too (505, 400 before or by
  h11, 414, 431, 408, 413 of a chunk, 503 of the connection cap), once.
- A request target in none of RFC 9112 §3.2's forms (a fragment, ``*`` or ``host:port`` for a
  method that takes no such form) is 400; ``OPTIONS *`` and ``CONNECT`` are 501 (no proxy here).
- A ``Host`` value that is no host and port is 400 (RFC 9112 §3.2: MUST).
- A ``Content-Length`` list (``N, N``) above the cap is 413 at once, as a single value is.

Every socket wait is bounded by :data:`~tests.serve_support.TIMEOUT`; no assertion reads a clock.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import socket
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.serve.limits import Limits
from jobschema.serve.protocol import ChunkSizes, skip_blank_lines
from tests.serve_support import (
    AIHC_EXAMPLES,
    AIJOBS,
    RUNAI_EXAMPLES,
    SUBMIT,
    TIMEOUT,
    TOKEN,
    connect,
    parse_answer,
    read_all,
    request_head,
    valid,
    wait_for,
)

SMALL_BODY = 100


@pytest.fixture(scope="module")
def logged():
    """One stub for the module, its access log in memory, with a body cap of 100 bytes and a request
    timeout no test here waits for (an answer at once comes long before it)."""
    from jobschema.serve import start

    log = io.StringIO()
    limits = Limits(max_body=SMALL_BODY, request_timeout=TIMEOUT, idle_timeout=TIMEOUT)
    with start(captures=[str(RUNAI_EXAMPLES), str(AIHC_EXAMPLES)], limits=limits, log=log) as running:
        yield running, log


@pytest.fixture(scope="module")
def server(logged):
    return logged[0]


def exchange(server, *writes: bytes) -> bytes:
    """Send ``writes`` (one write each) and read until the server closes."""
    with connect(server) as sock:
        with contextlib.suppress(OSError):  # a refusal may come (and reset) before all is sent
            for data in writes:
                sock.sendall(data)
        return read_all(sock)


def answers(data: bytes) -> list[int]:
    return [int(part[:3]) for part in data.split(b"HTTP/1.1 ")[1:]]


def refused(data: bytes, status: int, schema: str = "runai-error") -> dict:
    answer = parse_answer(data)
    assert answer.status == status, data[:300]
    assert answer.headers["connection"] == "close"
    body = answer.json()
    assert valid(body, schema), body
    return body


CHUNKED = request_head("POST", TOKEN, "Transfer-Encoding: chunked")
JOB = f"{SUBMIT}/x"


# --------------------------------------------------- (a) a chunk declared past the cap: 413 at once


@pytest.mark.parametrize(
    "writes",
    [
        [CHUNKED + b"FFFFFFFFFFFFFFFF\r\n"],
        [CHUNKED + b"65\r\n"],  # 101 bytes, the cap 100
        [CHUNKED + b"7fffffffffffffffffff\r\n{}"],
        [CHUNKED + b"65;ext=1\r\n"],
        [CHUNKED, b"1", b"0", b"0"],  # the size, a digit a write, passes the cap before its line ends
        [CHUNKED + b"32\r\n" + b"x" * 50 + b"\r\n", b"33\r\n"],  # the second chunk passes it
        [CHUNKED + b"32;" + b"e" * 40, b"\r\n" + b"x" * 50 + b"\r\n33"],  # an extension in two writes
    ],
    ids=["16-digits", "cap+1", "20-digits", "extension", "digit-a-write", "second-chunk", "split-ext"],
)
def test_a_chunk_declared_past_the_cap_is_413_at_once(server, writes):
    """No write here ends the body: an answer that waited for it would be 408 after TIMEOUT."""
    body = refused(exchange(server, *writes), 413)
    assert body["message"] == "The request body is larger than 100 bytes."


def test_a_chunked_body_within_the_cap_is_read_as_before(server):
    data = exchange(
        server, CHUNKED.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n") + b"2\r\n{}\r\n0\r\n\r\n"
    )
    assert parse_answer(data).status == 400 and b"grantType" in parse_answer(data).body  # the route's


def test_a_chunk_declared_past_the_cap_has_one_access_log_line(logged):
    server, log = logged
    marker = "/api/v1/token?chunk-marker=1"
    exchange(server, CHUNKED.replace(TOKEN.encode(), marker.encode()) + b"FFFF\r\n")
    assert wait_for(lambda: marker in log.getvalue())
    lines = [line for line in log.getvalue().splitlines() if marker in line]
    assert [line.rsplit(" ", 1)[0] for line in lines] == [f"POST {marker} 413"]


_CHUNK_SIZES = st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=6)


def _chunked_wire(sizes: list[int], cap: int) -> tuple[bytes, bool]:
    """The chunked body of ``sizes``, sent up to the size line that passes ``cap`` (True), or whole."""
    wire, declared = b"", 0
    for size in sizes:
        declared += size
        wire += f"{size:x}\r\n".encode()
        if declared > cap:
            return wire, True
        wire += b"x" * size + b"\r\n"
    return wire + b"0\r\n\r\n", False


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(sizes=_CHUNK_SIZES, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=4))
def test_chunk_sizes_are_read_however_the_body_is_cut(sizes, cuts):
    """:class:`ChunkSizes` says "past the cap" exactly when the sizes declared so far pass it, whatever
    pieces the bytes come in (each byte is read once: a piece is never re-read)."""
    wire, over = _chunked_wire(sizes, SMALL_BODY)
    points = sorted({min(cut, len(wire)) for cut in cuts} | {0, len(wire)})
    reader = ChunkSizes(SMALL_BODY)
    said = [reader.feed(wire[a:b]) for a, b in itertools.pairwise(points)]
    assert any(said) == over
    assert said.index(True) == len(said) - 1 if over else True  # said at the last piece, not before


@settings(max_examples=15, deadline=None, database=None, derandomize=True)
@given(sizes=_CHUNK_SIZES, cut=st.integers(min_value=1, max_value=200))
def test_a_chunked_body_is_413_when_its_sizes_pass_the_cap_and_read_otherwise(server, sizes, cut):
    wire, over = _chunked_wire(sizes, SMALL_BODY)
    head = CHUNKED.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
    data = exchange(server, head + wire[:cut], wire[cut:]) if wire[cut:] else exchange(server, head + wire)
    if over:
        refused(data, 413)
    else:
        assert parse_answer(data).status == 400  # the token route's refusal of x…: not JSON


# ------------------------------------------------------ (b) empty lines before a request line


@pytest.mark.parametrize("blank", [b"\r\n", b"\n", b"\r\n\r\n", b"\n\r\n", b"\r\n" * 50])
def test_empty_lines_before_a_request_line_are_skipped(server, blank):
    data = exchange(server, blank + request_head("GET", JOB, "Connection: close"))
    assert answers(data) == [401]


def test_an_empty_line_cut_between_its_cr_and_lf_is_skipped(server):
    data = exchange(
        server, b"\r", b"\nGET " + JOB.encode() + b" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
    )
    assert answers(data) == [401]


def test_a_crlf_after_a_post_body_is_skipped_before_the_next_request(server):
    first = request_head("POST", TOKEN, "Content-Length: 2") + b"{}\r\n"
    data = exchange(server, first + request_head("GET", JOB, "Connection: close"))
    assert answers(data) == [400, 401]


@pytest.mark.parametrize("start", [b"\r", b"\r\r\n", b"\n\r", b"\r\n\rX"])
def test_a_cr_not_followed_by_lf_is_still_400(server, start):
    data = exchange(server, start + b"GET / HTTP/1.1\r\n\r\n")
    assert answers(data) == [400]


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(data=st.binary(max_size=12), rest=st.binary(max_size=8))
def test_skip_blank_lines_takes_only_crlf_and_lf(data, rest):
    kept = skip_blank_lines(data + b"G" + rest)
    assert kept.endswith(b"G" + rest)
    skipped = (data + b"G" + rest)[: -len(kept)]
    assert re.fullmatch(rb"(?:\r?\n)*", skipped)


# ------------------------------------------------------------ (c) every answer is logged once

_LINE = re.compile(r"(\S+) (\S+) (\d{3}) \d+\.\dms")


@pytest.mark.parametrize(
    ("writes", "line"),
    [
        ([b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"], "PRI * 505"),
        ([b"GET /api/v1/round9-a HTTP/3.0\r\n\r\n"], "GET /api/v1/round9-a 505"),
        ([b"GET /api/v1/round9-b\r\n"], "GET /api/v1/round9-b 505"),
        ([bytes.fromhex("1603010200010001fc0303")], "- - 400"),
        ([b"GET /api/v1/round9-c HTTP/1.1\r\n\r\n"], "GET /api/v1/round9-c 400"),  # no Host
        ([request_head("GET", "/api/v1/round9-d", "X : y")], "GET /api/v1/round9-d 400"),
        (
            [request_head("POST", "/api/v1/round9-e", "Content-Length: 2", "Transfer-Encoding: chunked")],
            "POST /api/v1/round9-e 400",
        ),
        (
            [request_head("GET", "/api/v1/round9-f", "Authorization: a", "Authorization: b")],
            "GET /api/v1/round9-f 400",
        ),
        ([request_head("GET", "/api/v1/round9-g", "X: " + "y" * 20_000)], "GET /api/v1/round9-g 431"),
        ([b"GET /api/v1/round9-h?" + b"q" * 20_000], "GET /api/v1/round9-h?" + "q" * (512 - 17) + "…(+"),
        ([b"GET /api/v1/round9-i?access_token=PLANTED-round9 HTTP/2.0\r\n\r\n"], "GET /api/v1/round9-i?"),
        ([b"GET /api/v1/round9-j%0a%1b HTTP/2.0\r\n\r\n"], "GET /api/v1/round9-j\\n\\x1b 505"),
        ([b"GET " + AIJOBS.encode() + b"/round9-k HTTP/2.0\r\n\r\n"], f"GET {AIJOBS}/round9-k 505"),
    ],
    ids=[
        "h2",
        "http3",
        "http09",
        "tls",
        "no-host",
        "space-colon",
        "smuggling",
        "two-auth",
        "431",
        "414",
        "masked",
        "control",
        "aihc",
    ],
)
def test_every_refusal_of_the_protocol_has_one_access_log_line(logged, writes, line):
    server, log = logged
    exchange(server, *writes)
    assert wait_for(lambda: line in log.getvalue()), log.getvalue()[-2000:]
    shown = [text for text in log.getvalue().splitlines() if text.startswith(line)]
    assert len(shown) == 1 if line != "- - 400" else len(shown) >= 1
    assert "PLANTED-round9" not in log.getvalue()


def test_a_head_too_slow_and_the_connection_cap_have_their_lines(jobschema_server):
    log = io.StringIO()
    server = jobschema_server(
        limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT, max_connections=1), log=log
    )
    with connect(server) as first:
        first.sendall(b"GET /api/v1/round9-slow HTTP/1.1\r\n")
        second = exchange(server, request_head("GET", JOB))
        assert parse_answer(second).status == 503
        assert parse_answer(read_all(first)).status == 408
    assert wait_for(lambda: "GET /api/v1/round9-slow 408" in log.getvalue()), log.getvalue()
    lines = log.getvalue().splitlines()
    assert sum(line.startswith("- - 503 ") for line in lines) == 1
    assert all(_LINE.fullmatch(line) for line in lines if not line.startswith("warning")), lines


# --------------------------------------------------------------- request targets and Host


@pytest.mark.parametrize(
    ("method", "target", "status"),
    [
        ("GET", f"{JOB}#fragment", 400),
        ("GET", f"{JOB}?a=1#fragment", 400),
        ("GET", "*", 400),
        ("GET", "example.com:80", 400),
        ("GET", "api/v1/token", 400),
        ("POST", "example.com:443", 400),
        ("OPTIONS", "*", 501),
        ("CONNECT", "example.com:443", 501),
        ("CONNECT", "127.0.0.1:1", 501),
    ],
)
def test_a_target_in_no_form_its_method_takes_is_refused(server, method, target, status):
    refused(exchange(server, request_head(method, target)), status)


@pytest.mark.parametrize("host", ["a b", "a/b", "user@a", "a:x", "[::1", "a\tb", "a?b", "a#b"])
def test_a_host_that_is_no_host_and_port_is_400(server, host):
    body = refused(exchange(server, f"GET {JOB} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()), 400)
    assert "Host" in body["message"]


@pytest.mark.parametrize(
    "host", ["", "localhost", "127.0.0.1:8080", "[::1]:80", "a.b-c_d~e", "xn--bcher-kva:"]
)
def test_a_host_that_is_one_is_served(server, host):
    data = exchange(server, f"GET {JOB} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    assert answers(data) == [401]


def test_an_absolute_target_naming_no_valid_host_is_400(server):
    refused(exchange(server, request_head("GET", f"http://a{{b}}{JOB}")), 400)


# ------------------------------------------------------------------------- Content-Length


@pytest.mark.parametrize("value", ["101, 101", "101,101", "18446744073709551616", "9" * 19, "0101"])
def test_a_content_length_above_the_cap_in_any_form_is_413_at_once(server, value):
    """No body follows: an answer that waited for one would be 408 after TIMEOUT."""
    refused(exchange(server, request_head("POST", TOKEN, f"Content-Length: {value}")), 413)


@pytest.mark.parametrize("value", ["+5", "-1", "5, 6", "0x10", "5 5", "", "1" * 25])
def test_a_content_length_that_is_no_length_is_400(server, value):
    """(More than 20 digits is none to h11 either.)"""
    refused(exchange(server, request_head("POST", TOKEN, f"Content-Length: {value}") + b"hello"), 400)


# ------------------------------------------------------------------------- methods, HEAD


def test_a_head_answer_has_no_body_and_the_next_answer_follows_it(server):
    data = exchange(server, request_head("HEAD", JOB) + request_head("GET", JOB, "Connection: close"))
    assert answers(data) == [401, 401]
    first = data.split(b"\r\n\r\n", 1)
    assert first[1].startswith(b"HTTP/1.1 401")  # no body between the two


@pytest.mark.parametrize("method", ["get", "Get", "pOST", "BREW"])
def test_a_method_is_case_sensitive(server, method):
    data = exchange(server, request_head(method, TOKEN, "Connection: close"))
    assert answers(data) == [405]


def test_ten_thousand_query_parameters_within_the_url_cap_are_answered(jobschema_server):
    server = jobschema_server([AIHC_EXAMPLES], limits=Limits(max_url=256 * 1024, max_headers=300 * 1024))
    query = "&".join(["resourcePoolId=p"] * 10_000)
    data = exchange(server, request_head("GET", f"{AIJOBS}/x?{query}", "Connection: close"))
    body = parse_answer(data).json()
    assert parse_answer(data).status == 403 and valid(body, "aihc-error")  # (unsigned)


def test_ipv6_loopback_is_served(jobschema_server):
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    try:
        server = jobschema_server(host="::1")
    except Exception as err:  # (a host without ::1 configured)
        pytest.skip(f"::1 cannot be bound here: {err}")
    with socket.create_connection(("::1", server.port), timeout=TIMEOUT) as sock:
        sock.sendall(request_head("GET", JOB, "Connection: close"))
        assert answers(read_all(sock)) == [401]
    assert server.url == f"http://[::1]:{server.port}"


# ------------------------------------------------------------ upgrades; what a log line may hold

_UPGRADES = [
    ("websocket", "Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"),
    ("h2c", "Upgrade, HTTP2-Settings", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"),
    ("TLS/1.2", "Upgrade"),
]


@pytest.mark.parametrize("upgrade", _UPGRADES, ids=[upgrade[0] for upgrade in _UPGRADES])
def test_an_upgrade_request_is_served_as_http_1_1_and_never_switches(logged, upgrade):
    """RFC 9110 §7.8: a server may ignore Upgrade. The stub serves no WebSocket, h2c or TLS
    upgrade (a WebSocket connection would leave the head, body and time limits behind), whatever
    libraries are installed, and says nothing about installing one."""
    server, log = logged
    name, connection, *extra = upgrade
    head = request_head(
        "GET", f"{JOB}?upgrade={name}", f"Upgrade: {name}", f"Connection: {connection}", *extra
    )
    data = exchange(
        server,
        head.replace(b"\r\n\r\n", b"\r\nX-Close: 1\r\n\r\n"),
        request_head("GET", JOB, "Connection: close"),
    )
    assert answers(data) == [401, 401]  # no 101: the next request on the connection is HTTP still
    assert wait_for(lambda: f"?upgrade={name} 401" in log.getvalue())
    assert (
        "upgrade"
        not in " ".join(line for line in log.getvalue().splitlines() if line.startswith("warning")).lower()
    )


def test_the_server_has_no_websocket_protocol():
    """Whatever is installed (uvicorn[standard] brings websockets): an upgrade could never switch."""
    from jobschema.serve import start

    with start(captures=[str(RUNAI_EXAMPLES)]) as running:
        assert running._server.config.ws_protocol_class is None


@pytest.mark.parametrize("method", ["A" * 200, "M" * 10_000], ids=["200", "10000"])
def test_a_long_method_is_cut_in_its_access_log_line(logged, method):
    server, log = logged
    exchange(server, request_head(method, f"{JOB}?long-method={len(method)}", "Connection: close"))
    assert wait_for(lambda: f"?long-method={len(method)} " in log.getvalue())
    (line,) = [line for line in log.getvalue().splitlines() if f"?long-method={len(method)} " in line]
    assert line.startswith(method[:64] + "…(+") and len(line) < 300


# ------------------------------------------------------- empty lines: composed, and as a flood

_REQUESTS = st.sampled_from(
    [
        request_head("GET", JOB),
        request_head("POST", TOKEN, "Content-Length: 2") + b"{}",
        request_head("POST", TOKEN, "Transfer-Encoding: chunked") + b"2\r\n{}\r\n0\r\n\r\n",
        request_head("HEAD", JOB),
    ]
)
_BLANKS = st.lists(st.sampled_from([b"\r\n", b"\n"]), max_size=3).map(b"".join)


@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(
    requests=st.lists(st.tuples(_BLANKS, _REQUESTS), min_size=1, max_size=4),
    cuts=st.lists(st.integers(min_value=1, max_value=400), max_size=3),
)
def test_pipelined_requests_with_empty_lines_between_are_each_answered(server, requests, cuts):
    """Any requests, each after any empty lines, sent in any pieces: one answer each, in order,
    then the last one's ``Connection: close``."""
    wire = b"".join(blank + request for blank, request in requests) + request_head(
        "GET", JOB, "Connection: close"
    )
    points = sorted({min(cut, len(wire)) for cut in cuts} | {0, len(wire)})
    data = exchange(server, *(wire[a:b] for a, b in itertools.pairwise(points) if b > a))
    expected = [400 if b"POST" in request[:4] else 401 for _, request in requests] + [401]
    assert answers(data) == expected


def test_a_flood_of_empty_lines_is_held_no_longer_than_the_request_timeout(jobschema_server):
    """Skipped lines are not kept (a megabyte of them is no 431) and do not restart any timer: the
    peer sending only them is answered 408 once ``request_timeout`` has passed since the first."""
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT))
    data = exchange(server, b"\r\n" * (512 * 1024))
    answer = parse_answer(data)
    assert (answer.status, answer.headers["connection"], answer.body) == (408, "close", b"")


# ------------------------------------------------------------------------------- --host forms


@pytest.mark.parametrize(("host", "address"), [("[::1]", "::1"), ("::1", "::1"), ("127.1", "127.0.0.1")])
def test_a_loopback_host_in_any_usual_form_is_listened_on(host, address):
    """(``[::1]`` is how a URL writes it: it was 'cannot resolve the name'.)"""
    from jobschema.serve.server import listen_address

    assert listen_address(host) == address


@pytest.mark.parametrize(
    "host", ["[::]", "::", "0", "0.0.0.0", "[0.0.0.0]", "::ffff:0.0.0.0", "[::ffff:0:0]"]
)
def test_an_address_that_is_no_loopback_is_refused_in_any_form(host):
    from jobschema.serve.server import ServeFailed, listen_address

    with pytest.raises(ServeFailed, match=r"not a loopback address|cannot resolve"):
        listen_address(host)


# ------------------------------------------------------- out of descriptors: its 503s are logged

FEW_DESCRIPTORS = (
    "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40)); "
    "sys.argv = ['jobschema', *sys.argv[1:]]; runpy.run_module('jobschema', run_name='__main__')"
)


def _status_of(sock: socket.socket) -> str:
    with sock:
        try:
            sock.sendall(request_head("GET", JOB))
            data = sock.recv(65536)
        except OSError:
            return "closed"
    return data[9:12].decode() if data else "closed"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_NOFILE as Linux counts it")
def test_each_connection_answered_503_for_want_of_descriptors_has_its_log_line():
    import os
    import subprocess

    command = [
        sys.executable,
        "-c",
        FEW_DESCRIPTORS,
        "serve",
        "--max-connections",
        "1000",
        "--idle-timeout",
        "120",
    ]
    env = {**os.environ, "RUNAI_CLIENT_ID": "c", "RUNAI_CLIENT_SECRET": "s"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    socks: list[socket.socket] = []
    try:
        url = process.stdout.readline().removeprefix("listening on ").strip()
        address = ("127.0.0.1", int(url.rsplit(":", 1)[1]))
        socks = [socket.create_connection(address, timeout=TIMEOUT) for _ in range(60)]
        seen = [_status_of(sock) for sock in socks]
        process.terminate()
        _, err = process.communicate(timeout=60)
    finally:
        for sock in socks:
            sock.close()
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "503" in seen, seen
    logged = [line for line in err.splitlines() if re.fullmatch(r"\S+ \S+ 503 \d+\.\dms", line)]
    assert len(logged) >= seen.count("503"), err[-3000:]  # (a 503 whose peer left first is logged too)
    assert "Traceback" not in err


# --------------------------------------------------- composed: one access-log line per answer

_PIECES = st.sampled_from(
    [
        b"\r\n",
        request_head("GET", JOB),
        request_head("GET", "/api/v1/x#f"),
        request_head("POST", TOKEN, "Content-Length: 2") + b"{}",
        request_head("POST", TOKEN, "Content-Length: 500"),
        CHUNKED + b"FFFF\r\n",
        CHUNKED + b"2\r\n{}\r\n0\r\n\r\n",
        b"GET / HTTP/2.0\r\n\r\n",
        b"GET /api/v1/x HTTP/1.1\r\n\r\n",  # no Host
        request_head("GET", JOB, "Host: a b"),
        request_head("OPTIONS", "*"),
        bytes.fromhex("160301"),
        b"\r\x00",
        request_head("GET", JOB, "Bad Header: x"),
    ]
)


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=4))
def test_every_answer_has_exactly_one_access_log_line(logged, pieces):
    """Whatever a connection sends (then its end), each answer it gets is one access-log line with
    that answer's status, in order; a request whose peer left unanswered shows ``-``."""
    server, log = logged
    before = len(log.getvalue().splitlines())
    with connect(server) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(b"".join(pieces))
            sock.shutdown(socket.SHUT_WR)
        data = read_all(sock)
    got = answers(data)

    def logged_lines() -> list[str]:
        lines = log.getvalue().splitlines()[before:]
        return [line for line in lines if not line.startswith("warning")]

    def answered() -> list[int]:
        statuses = [line.rsplit(" ", 2)[1] for line in logged_lines()]
        return [int(status) for status in statuses if status != "-"]

    wait_for(lambda: len(answered()) >= len(got))  # (the line comes just after its answer)
    assert answered() == got, (pieces, logged_lines())


# ------------------------------------------------------- a HEAD refused by the protocol: no body


@pytest.mark.parametrize(
    "data",
    [
        f"HEAD {JOB} HTTP/2.0\r\n\r\n".encode(),
        f"HEAD {JOB} HTTP/1.1\r\n\r\n".encode(),  # no Host: h11's 400
        request_head("HEAD", JOB, "Authorization: a", "Authorization: b"),
        request_head("HEAD", JOB, "Content-Length: 1", "Transfer-Encoding: chunked"),
        request_head("HEAD", JOB, "Bad Header: x"),
        f"HEAD {JOB} HTTP/1.1\r\nHost: a\r\nX: {'y' * 20_000}".encode(),  # 431 while it arrives
        request_head("HEAD", JOB, "Host: a b"),  # (the Guard's: no body already)
    ],
    ids=["505", "no-host", "two-auth", "smuggling", "malformed", "431", "bad-host"],
)
def test_a_head_request_refused_gets_no_body(server, data):
    """RFC 9110 §9.3.2: a server MUST NOT send content in a response to HEAD. A body after the head
    would be read by a client as the start of the next answer."""
    answer = exchange(server, data)
    head, _, rest = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 4") or head.startswith(b"HTTP/1.1 505"), answer[:200]
    assert rest == b"", answer[:300]
    assert b"\r\nconnection: close" in head


def test_a_head_request_too_slow_gets_408_without_a_body(jobschema_server):
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=TIMEOUT))
    answer = exchange(server, f"HEAD {JOB} HTTP/1.1\r\nHost: a\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 408") and answer.endswith(b"\r\n\r\n"), answer


# ------------------------------------------------------- an absolute target naming a userinfo


@pytest.mark.parametrize("login", ["user:PLANTED-pw-round9@", "user@", ":@", "a%40b:c@"])
def test_an_absolute_target_with_a_userinfo_is_400_and_its_password_never_logged(logged, login):
    """RFC 9110 §4.2.4: a recipient SHOULD treat a userinfo in an http(s) URI as an error (it is
    likely used to obscure the authority); it was served as the host after the @."""
    server, log = logged
    body = refused(exchange(server, request_head("GET", f"http://{login}127.0.0.1{JOB}?userinfo=1")), 400)
    assert "userinfo" in body["message"]
    assert wait_for(lambda: f"{JOB}?userinfo=1 400" in log.getvalue())
    assert "PLANTED-pw-round9" not in log.getvalue()


def test_an_absolute_target_without_a_userinfo_is_served(server):
    data = exchange(server, request_head("GET", f"http://127.0.0.1{JOB}", "Connection: close"))
    assert answers(data) == [401]


# --- an error answer that quotes the request goes through the secret policy ---------------------------
GITHUB_TOKEN = "ghp_" + "k3Jd8fQ2mZx7LpW4nR9tYb6Vc1Hs5Ga0Ue2T"


@pytest.mark.parametrize(
    "target",
    [
        "admin:S3cr3tPassw0rdXyz@db.example.com:443",
        f"{GITHUB_TOKEN}.example.com:443",
        f"{GITHUB_TOKEN}:443",
    ],
)
def test_a_refusal_quoting_the_target_masks_a_credential_in_it(server, target):
    """``CONNECT user:password@host`` was answered 501 with the target in the message, unmasked (the
    access log masked it): every error body's words now go through the policy."""
    body = refused(exchange(server, request_head("CONNECT", target)), 501)
    assert "S3cr3tPassw0rdXyz" not in body["message"]
    assert GITHUB_TOKEN not in body["message"]
    assert "<secret:" in body["message"]


def test_every_error_body_s_words_go_through_the_policy():
    """Both APIs' error bodies, however made (a route's answer quoting a job id, a refusal)."""
    from jobschema.serve import aihc, runai

    assert GITHUB_TOKEN not in aihc.not_found("r-1", GITHUB_TOKEN)["message"]
    assert GITHUB_TOKEN not in aihc.error("r-1", "InvalidParam", f"token={GITHUB_TOKEN}")["message"]
    body = runai.error(
        404, f"workload {GITHUB_TOKEN} not found", f"password=S3cr3tPassw0rdXyz {GITHUB_TOKEN}"
    )
    assert GITHUB_TOKEN not in json.dumps(body) and "S3cr3tPassw0rdXyz" not in json.dumps(body)
    # ordinary words and ids are kept as they are
    assert (
        aihc.not_found("r-1", "job-7f3a2b")["message"]
        == "get job by jobid failed, err: job-7f3a2b not found job"
    )
    assert runai.error(404, "Workload not found.") == {"code": 404, "message": "Workload not found."}
