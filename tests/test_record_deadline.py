"""Every request ends ``--timeout`` after it began, whatever the server sends before its body: an
endless run of ``100 Continue``, a status line or headers trickled a byte at a time, trailers that
never end. A SIGTERM that comes meanwhile ends the recording when the request does.

The peers send forever (bounded by their own byte limit and a minute); the recorder must hang up.
No assertion reads a clock: the only time limits are generous upper bounds on waiting for a peer or
a subprocess, which decide nothing but a hang.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from jobschema.record import RetryPolicy, Schedule
from jobschema.record.deadline import DeadlinePassed, DeadlineStream, bounded, within
from tests.hostile_support import ENDLESS_SECONDS, ENV, JOB, Sent, is_token, running, token_answer
from tests.record_support import FakeTime, run_record
from tests.serve_support import ended

COMMAND = (sys.executable, "-m", "jobschema", "record", "runai")
#: The recorder's --timeout here, in seconds. It bounds every request, the token's too: the token
#: must be answered, and a hostile peer's first bytes must arrive, within it, on a machine that may be
#: busy (a thread descheduled for 2 s). The tests wait this long for each cut.
TIMEOUT = 3.0
FAST = ("--interval", "0.1", "--timeout", f"{TIMEOUT:g}", "--retries", "0")
#: What the peers repeat (each a few bytes, every 20 ms: no read of the recorder waits long).
PAUSE = 0.02


def _repeat(conn: socket.socket, first: bytes, again: Iterator[bytes]) -> Sent:
    """Send ``first``, then pieces of ``again`` until the client hangs up (or a minute passes)."""
    sent = Sent()
    deadline = time.monotonic() + ENDLESS_SECONDS
    try:
        conn.sendall(first)
        for piece in again:
            if time.monotonic() > deadline:
                return sent
            time.sleep(PAUSE)
            conn.sendall(piece)
            sent.bytes += len(piece)
    except OSError:
        sent.cut = True
    return sent


def _forever(piece: bytes) -> Iterator[bytes]:
    while True:
        yield piece


def _bytewise(data: bytes) -> Iterator[bytes]:
    for value in data:
        yield bytes([value])
    yield from _forever(b"X")


HOSTILE = {
    "continue forever": lambda conn: _repeat(conn, b"", _forever(b"HTTP/1.1 100 Continue\r\n\r\n")),
    "status line trickled": lambda conn: _repeat(conn, b"", _bytewise(b"HTTP/1.1 200 OK\r\n")),
    "headers trickled": lambda conn: _repeat(conn, b"HTTP/1.1 200 OK\r\n", _forever(b"X-A: b\r\n")),
    "trailers forever": lambda conn: _repeat(
        conn,
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n",
        _forever(b"X-T: a\r\n"),
    ),
}


@pytest.mark.parametrize("mode", sorted(HOSTILE))
def test_a_request_ends_at_its_timeout_whatever_comes_before_the_body(tmp_path, mode):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return HOSTILE[mode](conn)

    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            FakeTime(),
            env=ENV,
            timeout=TIMEOUT,
            retry=RetryPolicy(retries=0),
            schedule=Schedule(interval=10, count=1),
        )
        (sent,) = peer.wait_sent(1)
    assert sent.cut  # the recorder hung up; the peer did not stop by itself
    (poll,) = got.entries[1:]
    where = "its body had not come whole" if mode == "trailers forever" else "no status line and headers yet"
    assert poll["_error"] == f"Timeout: the answer took longer than --timeout ({TIMEOUT:g} s); {where}"
    assert got.lines == [] and got.outcome.jobs[0].errors == {"Timeout": 1}


def test_sigterm_during_an_endless_run_of_100_continue_ends_the_recording(tmp_path):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return HOSTILE["continue forever"](conn)

    out, har = tmp_path / "r.ndjson", tmp_path / "r.har"
    with running(handler) as peer:
        process = subprocess.Popen(
            [*COMMAND, "--url", peer.url, "--workload", JOB, *FAST, "-o", str(out), "--har", str(har)],
            env={**os.environ, **ENV},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            limit = time.monotonic() + 60  # an upper bound on the peer seeing the poll, not a measure
            while len(peer.requests) < 2 and time.monotonic() < limit and process.poll() is None:
                time.sleep(0.01)
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)  # a hang fails; the bound decides nothing else
        finally:
            ended(process)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr
    json.loads(har.read_text(encoding="utf-8"))  # complete


# ------------------------------------------------------------------------------- the deadline itself


class _Stream:
    """A network stream recording the timeouts it was given."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.timeouts.append(timeout)
        return b"x"

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.timeouts.append(timeout)


def test_each_operation_waits_at_most_what_is_left_of_the_deadline():
    inner = _Stream()
    stream = DeadlineStream(inner)  # type: ignore[arg-type]
    stream.read(1, 30.0)  # no deadline set: httpx's own timeout
    with within(time.monotonic() + 3600):
        stream.read(1, 5.0)  # the shorter of the two
        stream.write(b"x", None)
    assert inner.timeouts[0] == 30.0 and inner.timeouts[1] == 5.0
    assert inner.timeouts[2] is not None and 3500 < inner.timeouts[2] <= 3600
    with within(100.0):
        assert bounded(30.0, now=lambda: 99.5) == 0.5
        with pytest.raises(DeadlinePassed):
            bounded(30.0, now=lambda: 100.0)
    assert bounded(None) is None  # outside a request again
