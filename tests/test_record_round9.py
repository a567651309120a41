"""``jobschema record``, round 9: hostile servers nobody listed.

- A network failure that keeps the API unreachable (a TLS handshake with a plain-HTTP port, a
  refused connection, a name that does not resolve) ends the recording with one error line that
  names the request, its host and the cause, not only the failure's kind: before, the line said
  ``(ConnectError)`` and the cause was in the HAR only.
- Answers of every odd shape end as bounded errors, are recorded, or are warned about, and nothing a
  server echoes (a credential in its status line, reason phrase, headers or trailers) reaches disk
  or stderr unmasked: a 10 MB header, 200,000 headers, chunked trailers, non-JSON, ``NaN``, duplicate
  keys, brotli and unknown codings, raw deflate, a connection closed mid-body or ending the body.

Every recording runs on a fake clock (``FakeTime``): counts and outcomes are asserted, never times.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from jobschema.record import RecordOptions, Schedule, record
from jobschema.record.limits import UNREACHABLE_POLLS
from tests.hostile_support import (
    ENV,
    JOB,
    SOCKET_TIMEOUT,
    TOKEN,
    answer,
    cluster_answer,
    is_cluster,
    is_token,
    running,
    token_answer,
    workload,
)
from tests.record_support import FakeTime, run_record

SECRET = ENV["RUNAI_CLIENT_SECRET"]


def _record(handler: Any, tmp_path: Any, count: int = 3):
    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV, schedule=Schedule(interval=10, count=count)
        )
    return got, peer


def _polls(poll: Any) -> Any:
    """A peer answering tokens and the cluster question, and each poll with ``poll``."""

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return cluster_answer(conn, "2.24.0")
        return poll(request, conn)

    return handler


def _har(got: Any) -> str:
    return got.har.read_text(encoding="utf-8")


def _unreachable(err: str) -> str:
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    return line


# ------------------------------------------------- the unreachable line names the host and the cause


def _unreachable_recording(url: str) -> Any:
    settings = RecordOptions("runai", url, (JOB,), schedule=Schedule(interval=10.0))
    import io

    out, err = io.StringIO(), io.StringIO()
    outcome = record(settings, env=ENV, runtime=FakeTime().runtime(), out=out, err=err, tty=False)
    assert (outcome.jobs[0].done, outcome.code) == ("unreachable", 1)
    return _unreachable(err.getvalue())


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_refused_connection_s_line_names_the_request_and_the_cause():
    port = _closed_port()
    line = _unreachable_recording(f"http://127.0.0.1:{port}")
    assert line.startswith(
        f"error: runai {JOB}: unreachable: the API never answered in {UNREACHABLE_POLLS} polls"
    )
    assert f"the last: POST http://127.0.0.1:{port}/api/v1/token: ConnectError: " in line
    assert "refused" in line and line.endswith("; check --url")


@contextlib.contextmanager
def _plain_http_port() -> Iterator[int]:
    """A port answering whatever comes (a TLS ClientHello too) with a plain HTTP 400, as a real
    server does, then closing; its loop ends with the block."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn, contextlib.suppress(OSError):
                conn.settimeout(SOCKET_TIMEOUT)
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        server.close()
        thread.join(SOCKET_TIMEOUT)


def test_a_tls_failure_s_line_names_the_host_and_the_tls_error():
    with _plain_http_port() as port:
        line = _unreachable_recording(f"https://127.0.0.1:{port}")
    assert f"the last: POST https://127.0.0.1:{port}/api/v1/token: ConnectError: " in line
    assert "SSL" in line or "TLS" in line or "ssl" in line, line


def test_a_name_that_does_not_resolve_is_named_in_the_line(monkeypatch):
    from jobschema.record import deadline as record_deadline

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(record_deadline, "_getaddrinfo", fails)
    line = _unreachable_recording("https://api.no-such-host.invalid:8443")
    assert "the last: POST https://api.no-such-host.invalid:8443/api/v1/token: ConnectError: " in line
    assert "no-such-host.invalid" in line.split("ConnectError: ", 1)[1]


def test_a_long_failure_is_cut_and_stays_one_line(monkeypatch):
    from jobschema.record import deadline as record_deadline

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "x\n" * 2000)

    monkeypatch.setattr(record_deadline, "_getaddrinfo", fails)
    line = _unreachable_recording("https://api.example.invalid")
    assert len(line) < 1000 and "\n" not in line


# ------------------------------------------------------------------------- odd answers, bounded


def test_a_ten_megabyte_header_is_a_bounded_protocol_error(tmp_path):
    def poll(request, conn):
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * (10 * 1024 * 1024) + b"\r\nContent-Length: 2\r\n\r\n{}"
        )

    got, _ = _record(_polls(poll), tmp_path)
    assert got.outcome.code == 1 and got.lines == []
    assert got.outcome.jobs[0].errors.keys() == {"RemoteProtocolError"}
    assert len(_har(got)) < 100_000  # the header is not kept


def test_two_hundred_thousand_headers_are_a_bounded_protocol_error(tmp_path):
    body = json.dumps(workload(phase="Completed")).encode()

    def poll(request, conn):
        many = b"X-A: b\r\n" * 200_000
        conn.sendall(b"HTTP/1.1 200 OK\r\n" + many + b"Content-Length: %d\r\n\r\n" % len(body) + body)

    got, _ = _record(_polls(poll), tmp_path)
    assert got.outcome.jobs[0].errors.keys() == {"RemoteProtocolError"} and got.lines == []


def test_chunked_trailers_are_read_and_a_credential_in_them_never_written(tmp_path):
    body = json.dumps(workload(phase="Completed")).encode()

    def poll(request, conn):
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Trailer: X-Token\r\n\r\n"
            + b"%x\r\n" % len(body)
            + body
            + f"\r\n0\r\nX-Token: Bearer {TOKEN}\r\nX-Secret: {SECRET}\r\n\r\n".encode()
        )

    got, _ = _record(_polls(poll), tmp_path)
    assert (got.outcome.code, len(got.lines), got.lines[0]["actualPhase"]) == (0, 1, "Completed")
    for text in (_har(got), got.ndjson.read_text(encoding="utf-8"), got.err, got.out):
        assert TOKEN not in text and SECRET not in text


@pytest.mark.parametrize(
    "body",
    [
        b"<html>Bad Gateway</html>",
        b'{"actualPhase": NaN}',
        b'{"a": Infinity}',
        b"\xff\xfe{",
        b"",
        b"{" * 100_000,
    ],
    ids=["html", "nan", "infinity", "not-utf8", "empty", "deep"],
)
def test_a_200_that_is_no_json_object_is_unreadable_and_never_a_line(tmp_path, body):
    got, _ = _record(_polls(lambda request, conn: answer(conn, 200, body)), tmp_path)
    assert got.outcome.code == 1 and got.lines == []
    assert got.outcome.jobs[0].errors.keys() == {"unreadable"}
    assert got.outcome.jobs[0].polls == 3


def test_a_duplicate_key_is_recorded_as_sent_and_warned(tmp_path):
    body = json.dumps(workload(phase="Running"))[:-1] + ', "actualPhase": "Completed"}'
    got, _ = _record(_polls(lambda request, conn: answer(conn, 200, body.encode())), tmp_path)
    assert got.lines[0]["actualPhase"] == "Completed"  # the last one wins, as it does for Go and Python
    assert '"actualPhase": "Running"' in got.ndjson.read_text(encoding="utf-8")  # kept as sent
    assert 'warning: duplicate key "actualPhase"' in got.out and "[duplicate-key]" in got.out


@pytest.mark.parametrize("coding", ["br", "x-unknown", "zstd", "gzip, br", "compress"])
def test_a_coding_not_asked_for_is_a_decoding_error(tmp_path, coding):
    got, _ = _record(
        _polls(lambda request, conn: answer(conn, 200, b"{}", {"Content-Encoding": coding})), tmp_path
    )
    assert got.outcome.jobs[0].errors.keys() == {"DecodingError"} and got.lines == []


def test_raw_deflate_is_decoded_as_deflate(tmp_path):
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = packer.compress(json.dumps(workload(phase="Completed")).encode()) + packer.flush()
    got, _ = _record(
        _polls(lambda request, conn: answer(conn, 200, data, {"Content-Encoding": "deflate"})), tmp_path
    )
    assert [line["actualPhase"] for line in got.lines] == ["Completed"]


def test_a_connection_closed_inside_a_chunk_is_a_protocol_error(tmp_path):
    def poll(request, conn):
        conn.sendall(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"a":')

    got, _ = _record(_polls(poll), tmp_path, count=2)
    assert got.outcome.jobs[0].errors.keys() == {"RemoteProtocolError"} and got.lines == []


def test_a_body_ended_by_the_close_is_whole(tmp_path):
    body = json.dumps(workload(phase="Completed")).encode()

    def poll(request, conn):
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body)

    got, _ = _record(_polls(poll), tmp_path)
    assert [line["actualPhase"] for line in got.lines] == ["Completed"]


# ------------------------------------------------------------- credentials echoed where nobody looks


@pytest.mark.parametrize(
    "status_line",
    ["HTTP/1.1 2x0 {echo}", "HTTP/1.1 500 {echo}", "HTTP/1.1 503 token={echo}", "HTTP/1.1 {echo}"],
    ids=["bad-status", "reason", "reason-form", "no-status"],
)
def test_a_credential_echoed_in_the_status_line_is_masked(tmp_path, status_line):
    def handler(request, conn):
        echo = request.headers.get("authorization") or request.body.decode()
        conn.sendall((status_line.format(echo=echo) + "\r\nContent-Length: 0\r\n\r\n").encode())

    got, _ = _record(handler, tmp_path, count=2)
    for text in (_har(got), got.err, got.out):
        assert TOKEN not in text and SECRET not in text


# ------------------------------------------------------------------- an answer framed two ways


@pytest.mark.parametrize(
    "framing",
    [
        "Content-Length: 5\r\nTransfer-Encoding: chunked",
        "Transfer-Encoding: chunked\r\nContent-Length: 5",
        "content-length: 99999\r\ntransfer-encoding: chunked",
        "Content-Length: {size}\r\nTransfer-Encoding: chunked",  # the same size both ways: still two
    ],
)
def test_an_answer_with_both_transfer_encoding_and_content_length_is_an_error(tmp_path, framing):
    """RFC 9112 §6.3: such a message may be request smuggling or response splitting and ought to be
    handled as an error: a transport failure (retried, in the HAR), never a snapshot."""
    body = json.dumps(workload(phase="Completed")).encode()
    chunked = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"

    def poll(request, conn):
        head = framing.format(size=len(chunked))
        conn.sendall(
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{head}\r\n\r\n".encode() + chunked
        )

    got, _ = _record(_polls(poll), tmp_path, count=2)
    assert got.lines == [] and got.outcome.code == 1
    assert got.outcome.jobs[0].errors.keys() == {"RemoteProtocolError"}
    errors = [entry.get("_error", "") for entry in json.loads(_har(got))["log"]["entries"]]
    assert any("both Transfer-Encoding and Content-Length" in error for error in errors), errors
