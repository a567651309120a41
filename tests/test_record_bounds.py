"""``--duration`` bounds the whole recording: no request, retry or wait runs past its end.

Each attempt's ``--timeout`` is cut to what is left of the recording, no attempt nor wait starts once
it has ended, and a ``Retry-After`` or a poll interval is waited out only up to it. Two kinds of
test: the whole loop on a fake clock over an in-memory transport whose every request holds for as
long as it is allowed (what a peer that never answers does), where the clock the recording ends by
is read exactly; and real peers on loopback that hold, trickle or throttle for far longer than the
recording may last, where the only assertion is that the recorder hung up first (no clock is read:
the peers' holds are upper bounds that only stop a hang).
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.record import RecordOptions, RetryPolicy, Schedule, record
from jobschema.record import deadline as request_deadline
from tests.hostile_support import (
    ENV,
    JOB,
    Sent,
    answer,
    is_cluster,
    is_token,
    running,
    token_answer,
    workload,
)
from tests.record_support import FakeTime
from tests.serve_support import ended

#: How long the real peers here hold a connection before giving up on the client (an upper bound
#: that stops a hang; the recorder, given a --timeout of 600 s, must hang up long before).
HOLD = 60.0
#: The recorder's --timeout in the real-time tests: far beyond HOLD, so only --duration can end a
#: request before the peer gives up.
LONG_TIMEOUT = 600.0


# ------------------------------------------------------------------- the loop, on a fake clock


class _Body(httpx.SyncByteStream):
    """A body read as it streams (a ``json=`` answer is read whole before the recorder sees it)."""

    def __init__(self, value: object) -> None:
        self.data = json.dumps(value).encode()

    def __iter__(self):
        yield self.data


def _answer(status: int, value: object, headers: dict[str, str] | None = None) -> httpx.Response:
    fields = {"Content-Type": "application/json", **(headers or {})}
    return httpx.Response(status, headers=fields, stream=_Body(value))


@dataclass
class Held:
    """An in-memory API that answers each request as its script says, on a fake clock: ``hold``
    keeps the request for as long as the recorder allows it (the fake clock moves on by that much),
    ``503`` asks for ``retry_after`` seconds, ``200`` answers a running workload at once."""

    fake: FakeTime
    script: list[tuple[str, int | None]]
    cluster: str = "404"  # or "hold", as a poll's "hold"
    end: float = 0.0  # the recording's end (set when it starts)
    starts: list[float] = field(default_factory=list)
    allowed: list[float] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/token":
            return _answer(200, {"accessToken": "qwertyuiopasdfgh1234"})
        asked = request.url.path.startswith("/api/v1/clusters/")
        if asked and self.cluster == "404":
            return _answer(404, {"code": 404, "message": "Resource id not found."})
        self.starts.append(self.fake.now)
        kind, after = ("hold", None) if asked else self.script[(len(self.starts) - 1) % len(self.script)]
        if kind in ("200", "late"):
            if kind == "late":  # the answer comes as the recording ends
                self.fake.now = max(self.fake.now, self.end)
            return _answer(200, workload())
        if kind == "503":
            headers = {} if after is None else {"Retry-After": str(after)}
            return _answer(503, {"code": 503, "message": "busy"}, headers)
        try:
            left = request_deadline.bounded(None) or 0.0  # what the recorder gave this request
        except request_deadline.DeadlinePassed:  # (a few microseconds, gone already)
            left = 0.0
        self.allowed.append(left)
        self.fake.now += left
        raise httpx.ReadTimeout("held to the end", request=request)


def _record_held(
    api: Held, monkeypatch, duration: float, interval: float, timeout: float, retries: int, err=None
):
    def client(**options):
        options.pop("cookies", None)
        return httpx.Client(transport=httpx.MockTransport(api), **options)

    monkeypatch.setattr(request_deadline, "client", client)
    api.end = api.fake.now + duration
    options = RecordOptions(
        "runai",
        "http://127.0.0.1:9",
        (JOB,),
        schedule=Schedule(interval=interval, duration=duration),
        retry=RetryPolicy(retries=retries),
        timeout=timeout,
    )
    quiet = io.StringIO()
    err = io.StringIO() if err is None else err
    return record(options, env=ENV, runtime=api.fake.runtime(), out=quiet, err=err, tty=False)


STEPS = st.sampled_from(["hold", "503", "200", "late"]).flatmap(
    lambda kind: st.tuples(st.just(kind), st.none() | st.integers(0, 10**6) if kind == "503" else st.none())
)


@settings(database=None, deadline=None, max_examples=50)
@given(
    script=st.lists(STEPS, min_size=1, max_size=6),
    duration=st.floats(0.5, 3000),
    rounds=st.integers(1, 20),
    timeout=st.floats(0.1, 600),
    retries=st.integers(0, 10),
)
def test_nothing_the_peer_does_keeps_the_recording_past_its_duration(
    script, duration, rounds, timeout, retries
):
    interval = max(0.5, duration / rounds)  # (a few rounds: every one is validated)
    fake = FakeTime()
    start = fake.now
    api = Held(fake, script)
    with pytest.MonkeyPatch.context() as patched:
        _record_held(api, patched, duration, interval, timeout, retries)
    end = start + duration
    assert fake.now <= end + 1e-6  # every hold, backoff, Retry-After and pause ended by then
    assert all(begun < end for begun in api.starts)  # no attempt began once it had ended
    assert all(allowed <= timeout + 1e-6 for allowed in api.allowed)


def test_a_request_begun_just_before_the_end_is_cut_to_what_is_left(monkeypatch):
    fake = FakeTime()
    api = Held(fake, [("200", None), ("200", None), ("hold", None)])
    outcome = _record_held(api, monkeypatch, duration=25, interval=10, timeout=600, retries=4)
    # polls at 0 and about 10 s answered; the third, about 20 s in, held: cut at 25 s, not retried
    assert len(api.allowed) == 1 and 3 < api.allowed[0] < 7
    assert fake.now == pytest.approx(api.starts[-1] + api.allowed[0])
    assert outcome.jobs[0].done == "duration" and outcome.jobs[0].polls == 3
    assert outcome.jobs[0].errors == {"ReadTimeout": 1}  # (the in-memory peer's: no socket waited)


def test_a_cluster_question_the_end_cuts_short_says_nothing_of_the_cluster(monkeypatch):
    """A snapshot that came as the recording ended is recorded; its cluster is not asked (no time is
    left), and nothing is said of a question never asked."""
    fake = FakeTime()
    start = fake.now
    api = Held(fake, [("late", None)], cluster="hold")
    err = io.StringIO()
    outcome = _record_held(api, monkeypatch, duration=5, interval=1, timeout=30, retries=4, err=err)
    assert len(api.starts) == 1 and fake.now == pytest.approx(start + 5)  # the poll; no question
    assert outcome.jobs[0].polls == 1 and outcome.jobs[0].done == "duration" and outcome.code == 0
    assert err.getvalue().splitlines() == [
        f"runai {JOB}: Running; 1 poll, 0 changes, 0 errors",
        f"runai {JOB}: Running (duration); 1 poll, 0 changes, 0 errors",
    ]


def test_a_retry_after_of_an_hour_is_waited_out_only_to_the_end(monkeypatch):
    fake = FakeTime()
    start = fake.now
    api = Held(fake, [("503", 3600)])
    outcome = _record_held(api, monkeypatch, duration=30, interval=3600, timeout=30, retries=4)
    assert fake.now == pytest.approx(start + 30)
    assert max(fake.slept) <= 30 and outcome.jobs[0].done == "duration"


# ----------------------------------------------------------------- real peers, real time


def _hold(conn: socket.socket, first: bytes = b"", trickle: bytes = b"") -> Sent:
    """Send ``first``, then ``trickle`` a byte every 50 ms (or nothing), until the client hangs up
    (``cut``) or :data:`HOLD` seconds pass."""
    sent = Sent()
    until = time.monotonic() + HOLD
    conn.sendall(first)
    conn.settimeout(0.05)
    try:
        while time.monotonic() < until:
            try:
                if conn.recv(1) == b"":
                    sent.cut = True
                    return sent
            except TimeoutError:
                pass
            if trickle:
                conn.sendall(trickle)
                sent.bytes += 1
    except OSError:
        sent.cut = True
    return sent


PEERS = {
    "never answers": _hold,
    "trickles its headers": lambda conn: _hold(conn, b"HTTP/1.1 200 OK\r\n", b"X"),
    "trickles its body": lambda conn: _hold(
        conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", b" "
    ),
}


@pytest.mark.parametrize("mode", sorted(PEERS))
def test_a_peer_holding_a_request_longer_than_the_duration_is_hung_up_on(tmp_path, mode):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        if is_cluster(request):
            return answer(conn, 404, {})
        return PEERS[mode](conn)

    with running(handler) as peer:
        options = RecordOptions(
            "runai",
            peer.url,
            (JOB,),
            har=tmp_path / "r.har",
            schedule=Schedule(interval=0.1, duration=1),
            retry=RetryPolicy(retries=0),
            timeout=LONG_TIMEOUT,
        )
        err = io.StringIO()
        outcome = record(options, env=ENV, out=io.StringIO(), err=err, tty=False)
        (sent,) = peer.wait_sent(1, seconds=HOLD + 30)
    assert sent.cut  # the recorder hung up: its 600 s --timeout was cut to the 1 s recording
    assert outcome.jobs[0].done == "duration" and outcome.jobs[0].errors == {"Timeout": 1}
    assert err.getvalue().splitlines()[-1] == (
        f"runai {JOB}: (no snapshot) (duration); 1 poll, 0 changes, 1 error (Timeout)"
    )
    (poll,) = json.loads((tmp_path / "r.har").read_text(encoding="utf-8"))["log"]["entries"][1:]
    assert poll["_error"].startswith("Timeout: --duration ran out before the answer came; ")


def test_the_command_ends_by_its_duration_whatever_the_peer_holds(tmp_path):
    """Real time, the command line: --duration 2 with --timeout 600 against a peer that never
    answers, and retries that would go on: the process ends long before the peer gives up (the old
    recorder waited out the peer's hold on every attempt: minutes)."""

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return _hold(conn)

    har = tmp_path / "r.har"
    command = [sys.executable, "-m", "jobschema", "record", "runai", "--workload", JOB, "--har", str(har)]
    command += ["--duration", "2", "--timeout", f"{LONG_TIMEOUT:g}", "--interval", "0.1", "--retries", "10"]
    with running(handler) as peer:
        process = subprocess.Popen(
            [*command, "--url", peer.url],
            env={**os.environ, **ENV},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _, stderr = process.communicate(timeout=HOLD)  # a hang fails; nothing else is timed
        finally:
            ended(process)
        sent = peer.wait_sent(len(peer.requests) - 1, seconds=HOLD + 30)
    assert process.returncode == 1, stderr
    assert stderr.splitlines()[-1].startswith(f"runai {JOB}: (no snapshot) (duration); ")
    assert sent and all(each.cut for each in sent)
    assert Path(har).exists()
