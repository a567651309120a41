"""``jobschema serve`` against hostile peers, on real loopback sockets: body, head and target caps,
idle and slow-request timeouts, peers that do not read, the connection cap, running out of
descriptors. Timeouts are set short through the limits and waited for with generous bounds; no test
measures a duration, and every loop is bounded in count."""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import socket
import subprocess
import sys

import httpx
import pytest

from jobschema.serve.limits import KiB, Limits, Warnings, format_size, parse_size
from tests.serve_support import (
    APIS,
    COMPLETED,
    RUNAI_EXAMPLES,
    SUBMIT,
    TIMEOUT,
    TOKEN,
    connect,
    parse_answer,
    read_all,
    request_head,
    token_in_one_write,
    valid,
    wait_for,
)

SMALL = Limits(max_body=1 * KiB, max_headers=4 * KiB, max_url=1 * KiB)


def _refused(data: bytes, status: int, schema: str) -> dict:
    """The answer in ``data`` is ``status`` with a valid ``schema`` error body and closes."""
    answer = parse_answer(data)
    assert answer.status == status, data[:300]
    assert answer.headers["connection"] == "close"
    body = answer.json()
    assert valid(body, schema), body
    if schema == "aihc-error":
        assert answer.headers["x-bce-request-id"] == body["requestId"]
    else:
        assert body["code"] == status
    return body


# ------------------------------------------------------------------------------------------ sizes


@pytest.mark.parametrize(("target", "schema"), APIS)
def test_a_content_length_above_the_cap_is_refused_at_once(jobschema_server, target, schema):
    server = jobschema_server(limits=SMALL)
    with connect(server) as sock:
        sock.sendall(request_head("POST", target, "Content-Length: 1025"))  # not one byte of the body
        body = _refused(read_all(sock), 413, schema)
    assert body["message"] == "The request body is larger than 1 KiB."


def test_a_chunked_body_is_refused_while_it_streams_past_the_cap(jobschema_server):
    server = jobschema_server(limits=SMALL)
    most = 16 * 1024  # 1 KiB chunks: 16 MiB, far more than the cap and than the sockets' buffers hold
    with connect(server) as sock:
        sock.sendall(request_head("POST", TOKEN, "Transfer-Encoding: chunked"))
        sent = _send_until_answered(sock, b"400\r\n" + b" " * 1024 + b"\r\n", most)
        data = read_all(sock)
    assert sent < most  # the server answered while the body was still coming
    _refused(data, 413, "runai-error")


def _send_until_answered(sock: socket.socket, piece: bytes, most: int, pause: float = 0.0) -> int:
    """Send ``piece`` (at most ``most`` times, ``pause`` seconds apart) until the server answers or
    breaks the connection; how many were sent."""
    sent = 0
    with contextlib.suppress(OSError):
        for _ in range(most):
            if select.select([sock], [], [], pause)[0]:
                break
            sock.sendall(piece)
            sent += 1
    return sent


def test_a_body_at_the_cap_is_read(jobschema_server):
    server = jobschema_server(limits=SMALL)
    creds = server.credentials
    grant = {"grantType": "client_credentials", "clientId": creds.runai_client_id}
    grant["clientSecret"] = creds.runai_client_secret
    text = json.dumps(grant).encode()
    body = text + b" " * (1024 - len(text))
    answer = httpx.post(f"{server.url}{TOKEN}", content=body, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    over = httpx.post(f"{server.url}{TOKEN}", content=body + b" ", timeout=TIMEOUT)
    assert over.status_code == 413


@pytest.mark.parametrize(("target", "schema"), APIS)
def test_a_head_larger_than_the_cap_is_431(jobschema_server, target, schema):
    server = jobschema_server(limits=SMALL)
    with connect(server) as sock:  # whole at once: uvicorn's parser takes it, the middleware refuses
        sock.sendall(request_head("GET", target, "X-Padding: " + "p" * 5000))
        _refused(read_all(sock), 431, schema)
    with connect(server) as sock:  # never ending: the parser refuses it once it passes the cap
        sock.sendall(request_head("GET", target)[:-2])
        assert _send_until_answered(sock, b"X-Padding: " + b"p" * 1000 + b"\r\n", 1000, pause=0.01) < 1000
        _refused(read_all(sock), 431, schema)


@pytest.mark.parametrize(("target", "schema"), APIS)
def test_a_target_longer_than_the_cap_is_414(jobschema_server, target, schema):
    server = jobschema_server(limits=SMALL)
    long_target = target + ("&" if "?" in target else "?") + "q=" + "x" * 2000
    with connect(server) as sock:
        sock.sendall(request_head("GET", long_target))
        body = _refused(read_all(sock), 414, schema)
    assert body["message"] == "The request target is longer than 1 KiB."
    with connect(server) as sock:  # a request line alone beyond the head's cap, never ending
        sock.sendall(f"GET {target}&q=".encode())
        assert _send_until_answered(sock, b"x" * 1000, 1000, pause=0.01) < 1000
        _refused(read_all(sock), 414, schema)


@pytest.mark.parametrize(("target", "schema"), APIS)
@pytest.mark.parametrize("bad", ["Bad Header", "Host: twice"])
def test_malformed_http_on_a_readable_path_is_400_with_the_api_error_body(
    jobschema_server, target, schema, bad
):
    server = jobschema_server()
    with connect(server) as sock:  # h11 takes the whole head out of its buffer before refusing it
        sock.sendall(request_head("POST", target, bad, "Content-Length: 2") + b"{}")
        body = _refused(read_all(sock), 400, schema)
    assert body["message"] == "The request is not valid HTTP/1.1."


def test_malformed_http_is_400_and_warned_about_once(jobschema_server):
    log = io.StringIO()
    server = jobschema_server(log=log)
    for _ in range(20):
        with connect(server) as sock:
            sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            assert parse_answer(read_all(sock)).status == 400
    assert httpx.post(f"{server.url}{TOKEN}", json={}, timeout=TIMEOUT).status_code == 400
    assert wait_for(lambda: "POST /api/v1/token 400" in log.getvalue())
    lines = log.getvalue().splitlines()
    assert lines[0] == "warning: Invalid HTTP request received."
    assert [line for line in lines if line.startswith("warning")] == lines[:1]
    assert "Traceback" not in log.getvalue()


# --------------------------------------------------------------------------------------- timeouts


def test_an_idle_connection_is_closed(jobschema_server):
    server = jobschema_server(limits=Limits(idle_timeout=0.3))
    with connect(server) as sock:  # a new connection that says nothing
        assert read_all(sock) == b""
    data = b""
    for _ in range(20):  # a kept-alive connection after its answer
        with connect(server) as sock, contextlib.suppress(OSError):
            sock.sendall(request_head("POST", TOKEN, "Content-Length: 2") + b"{}")
            data = read_all(sock)
        if data:  # (else this thread was descheduled past the idle timeout before it sent: the new
            break  # connection was closed as the one above, and another is tried)
    assert parse_answer(data).status == 400
    assert data.endswith(b"}")  # the answer, then the close: nothing else


@pytest.mark.parametrize(("target", "schema"), APIS)
def test_headers_trickled_past_the_request_timeout_get_408(jobschema_server, target, schema):
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=60))
    most = 6000  # one byte at a time, 10 ms apart: a minute at most, however busy the machine
    with connect(server) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
        sent = _send_until_answered(sock, b"X", most, pause=0.01)
        data = read_all(sock)
    assert sent < most
    body = _refused(data, 408, schema)
    assert body["message"] == "The request did not arrive whole within 0.3 seconds."


@pytest.mark.parametrize(("target", "schema"), APIS)
def test_a_body_trickled_past_the_request_timeout_gets_408(jobschema_server, target, schema):
    log = io.StringIO()
    server = jobschema_server(limits=Limits(request_timeout=0.3, idle_timeout=60), log=log)
    most = 6000  # as above: a body of a minute at least
    with connect(server) as sock:
        sock.sendall(request_head("POST", target, f"Content-Length: {most}"))
        sent = _send_until_answered(sock, b" ", most, pause=0.01)
        data = read_all(sock)
    assert sent < most
    _refused(data, 408, schema)
    assert wait_for(lambda: " 408 " in log.getvalue())


# ------------------------------------------------------------------------------------ connections


def _served(server) -> socket.socket:
    """A kept-alive connection the server has answered once (so it counts as open)."""
    sock = connect(server)
    sock.sendall(request_head("GET", f"{SUBMIT}/x"))
    assert sock.recv(65536).startswith(b"HTTP/1.1 401")
    return sock


def test_connections_past_the_cap_get_503_and_one_warning(jobschema_server):
    log = io.StringIO()
    server = jobschema_server(limits=Limits(max_connections=3, idle_timeout=60), log=log)
    held = [_served(server) for _ in range(3)]
    try:
        for _ in range(5):
            assert _status_of(connect(server)) in {"503", "closed"}  # closed: a reset beat the answer
        held.pop().close()
        assert wait_for(lambda: _status_of(connect(server)) == "401")  # a place is free again
    finally:
        for sock in held:
            sock.close()
    warnings = [line for line in log.getvalue().splitlines() if line.startswith("warning")]
    assert warnings == [
        "warning: 3 connections open (--max-connections): newer ones are answered 503 and closed"
    ]


#: Runs ``jobschema serve`` with at most 40 file descriptors (argv: the command's arguments).
FEW_DESCRIPTORS = (
    "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40)); "
    "sys.argv = ['jobschema', *sys.argv[1:]]; runpy.run_module('jobschema', run_name='__main__')"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_NOFILE as Linux counts it")
def test_running_out_of_descriptors_answers_503_with_one_warning():
    command = [sys.executable, "-c", FEW_DESCRIPTORS, "serve", "-q", "--max-connections", "1000"]
    env = {**os.environ, "RUNAI_CLIENT_ID": "c", "RUNAI_CLIENT_SECRET": "s"}
    process = subprocess.Popen(
        [*command, "--idle-timeout", "120"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    socks: list[socket.socket] = []
    try:
        url = process.stdout.readline().removeprefix("listening on ").strip()
        address = ("127.0.0.1", int(url.rsplit(":", 1)[1]))
        socks = [socket.create_connection(address, timeout=TIMEOUT) for _ in range(60)]
        seen = [_status_of(sock) for sock in socks]
        for sock in socks:
            sock.close()
        # served again once the descriptors are free (asyncio retries accepting a second later)
        served = wait_for(lambda: _status_of(socket.create_connection(address, timeout=TIMEOUT)) == "401")
        process.terminate()
        _, err = process.communicate(timeout=60)
    finally:
        for sock in socks:
            sock.close()
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "401" in seen and "503" in seen, seen  # some served; the rest told to come back
    assert set(seen) <= {"401", "503", "closed"}
    assert served
    assert process.returncode == 0
    assert "Traceback" not in err
    warnings = [line for line in err.splitlines() if "file descriptors" in line]
    assert warnings == [
        "warning: out of file descriptors (Too many open files): waiting connections are answered 503 "
        "and closed (--max-connections 1000 is more than the process may open)"
    ]


def _status_of(sock: socket.socket) -> str:
    """The status a GET on ``sock`` gets (``closed``: none), the socket then closed."""
    with sock:
        try:
            sock.sendall(request_head("GET", f"{SUBMIT}/x"))
            data = sock.recv(65536)
        except OSError:
            return "closed"
    return data[9:12].decode() if data else "closed"


# ------------------------------------------------------------------------------- sizes and warnings


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("1MiB", 1 << 20),
        ("512KiB", 512 * 1024),
        ("4096", 4096),
        ("64 KB", 64_000),
        ("2b", 2),
        ("1gib", 1 << 30),
    ],
)
def test_sizes_read_as_bytes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "1.5MiB", "-1", "1 MiBs", "MiB", "1 M"])
def test_a_size_that_is_not_one_is_refused(text):
    with pytest.raises(ValueError, match="is not a size"):
        parse_size(text)


def test_sizes_are_shown_in_the_largest_unit_that_divides_them():
    assert [format_size(n) for n in (1 << 20, 16 * 1024, 1000, 1)] == [
        "1 MiB",
        "16 KiB",
        "1000 bytes",
        "1 byte",
    ]


def test_a_kind_of_warning_is_one_line_a_minute_and_counts_the_rest():
    lines: list[str] = []
    now = [0.0]
    warn = Warnings(lines.append, quiet=60, clock=lambda: now[0])
    for second in range(0, 150, 10):  # one every 10 s for 150 s, of two kinds
        now[0] = second
        warn("a", "warning: a")
        if second == 0:
            warn("b", "warning: b")
    assert lines == [
        "warning: a",
        "warning: b",
        "warning: a (5 more since the last warning)",
        "warning: a (5 more since the last warning)",
    ]


def test_limits_refuse_nonsense():
    with pytest.raises(ValueError, match="max_body must be at least 1"):
        Limits(max_body=0)
    with pytest.raises(ValueError, match="request_timeout must be positive"):
        Limits(request_timeout=0)


def test_a_peer_that_does_not_take_its_answers_is_cut_off(jobschema_server):
    log = io.StringIO()
    limits = Limits(request_timeout=0.3, idle_timeout=60)
    server = jobschema_server([RUNAI_EXAMPLES], limits=limits, log=log)
    request = request_head(
        "GET", f"{SUBMIT}/{COMPLETED}", f"Authorization: Bearer {token_in_one_write(server)}"
    )
    with connect(server) as sock:
        with contextlib.suppress(OSError):  # the cut may break the sending
            for _ in range(100):  # up to 10,000 pipelined requests for 26 MB of answers, none read
                sock.sendall(request * 100)
        assert wait_for(lambda: "took no part of an answer" in log.getvalue())
        answered = read_all(sock, limit=64 << 20).count(b"HTTP/1.1 200 ")  # until the cut
    assert answered < 10_000
    warnings = [line for line in log.getvalue().splitlines() if line.startswith("warning")]
    assert warnings == ["warning: a peer took no part of an answer for 0.3 s (--request-timeout): cut off"]
