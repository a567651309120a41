"""``jobschema record``, round 5: every wait the network can impose is bounded, name resolution too;
every name it prints stays on one line.

The system's resolver takes no timeout: these tests put a fake one in its place
(``jobschema.record.deadline._getaddrinfo``) that answers with chosen addresses, or never (until the
test ends). Nothing here reads a clock: outcomes and exit codes decide; the only time limits are
:data:`GUARD`, a generous upper bound on waiting for a recording that would otherwise hang.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpcore
import pytest

from jobschema.record import Outcome, RecordOptions, RetryPolicy, Schedule, record
from jobschema.record import deadline as record_deadline
from jobschema.record.files import OutputError
from jobschema.record.guard import Guard
from jobschema.record.ndjson import NdjsonWriter
from tests.hostile_support import ENV, JOB
from tests.record_support import FakeTime, run_record
from tests.serve_support import HISTORY_WORKLOAD, RUNAI_HISTORY

#: The longest a test waits for a recording (or a process) to end: a guard against a hang, never
#: an assertion about how long anything took.
GUARD = 60.0
#: A host name only the fake resolver knows.
HOST = "stub.test"


@dataclass
class FakeResolver:
    """``getaddrinfo`` answering ``answers[host]`` at once, and any other host never (until the test
    ends: then a resolution error); ``asked`` lists every host it was asked for, in the order the
    resolver threads asked (read it with :meth:`asked_by`)."""

    answers: dict[str, list[str]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def __call__(self, host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        with self.changed:
            self.asked.append(host)
            self.changed.notify_all()
        if host in self.answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in self.answers[host]]
        self.released.wait(GUARD)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    def asked_by(self, count: int) -> list[str]:
        """``asked`` once ``count`` hosts were asked for. ``resolve`` returns once its thread has
        started, not once the thread has asked: on a busy machine a thread asks later (and threads
        in any order), so the asks are waited for (at most :data:`GUARD`, never an assertion)."""
        with self.changed:
            self.changed.wait_for(lambda: len(self.asked) >= count, GUARD)
            return list(self.asked)


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeResolver]:
    fake = FakeResolver()
    monkeypatch.setattr(record_deadline, "_getaddrinfo", fake)
    yield fake
    fake.released.set()
    for lookup in list(record_deadline._lookups.values()):  # the resolver threads end
        lookup.done.wait(GUARD)
    assert not record_deadline._lookups


@dataclass
class Ended:
    outcome: Outcome
    out: str
    err: str


def _record_within_guard(options: RecordOptions, env: dict[str, str], fake: FakeTime) -> Ended:
    """Run ``record`` in a thread; fail (never hang) when it has not ended after :data:`GUARD`."""
    out, err = io.StringIO(), io.StringIO()
    done: dict[str, Any] = {}

    def go() -> None:
        try:
            done["outcome"] = record(options, env=env, runtime=fake.runtime(), out=out, err=err, tty=False)
        except BaseException as problem:  # reported below
            done["error"] = problem

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(GUARD)
    assert not thread.is_alive(), "the recording did not end: a wait is not bounded"
    if "error" in done:
        raise done["error"]
    return Ended(done["outcome"], out.getvalue(), err.getvalue())


def _options(server: Any, tmp_path: Path, **given: Any) -> RecordOptions:
    given.setdefault("schedule", Schedule(interval=1.0, count=3))
    given.setdefault("retry", RetryPolicy(retries=0))
    return RecordOptions(
        "runai",
        f"http://{HOST}:{server.port}",
        (HISTORY_WORKLOAD,),
        output=tmp_path / "rec.ndjson",
        har=tmp_path / "rec.har",
        **given,
    )


def _har_errors(path: Path) -> list[str]:
    entries = json.loads(path.read_text(encoding="utf-8"))["log"]["entries"]
    return [entry.get("_error", "") for entry in entries]


# ------------------------------------------------------------------------------ name resolution


def test_a_resolver_that_never_answers_ends_each_request_at_its_timeout(jobschema_server, tmp_path, resolver):
    fake = FakeTime()
    server = jobschema_server([RUNAI_HISTORY], clock=fake)
    got = _record_within_guard(_options(server, tmp_path, timeout=0.2), server.credentials.as_env(), fake)
    assert got.outcome.code == 1
    (job,) = got.outcome.jobs
    assert job.last is None and job.recorded == 0
    assert "the host name was not resolved in time" in got.err + "".join(_har_errors(tmp_path / "rec.har"))
    assert resolver.asked_by(1) == [HOST]  # every request waited on the one resolution under way


def test_the_recording_s_end_bounds_resolution_whatever_the_timeout(jobschema_server, tmp_path, resolver):
    fake = FakeTime()
    server = jobschema_server([RUNAI_HISTORY], clock=fake)
    options = _options(server, tmp_path, timeout=600.0, schedule=Schedule(interval=1.0, duration=0.2))
    got = _record_within_guard(options, server.credentials.as_env(), fake)
    assert got.outcome.code == 1
    errors = "".join(_har_errors(tmp_path / "rec.har")) + got.err
    assert "--duration ran out before the answer came; the host name was not resolved in time" in errors


def test_each_address_is_tried_in_turn_and_a_name_that_resolves_is_recorded(
    jobschema_server, tmp_path, resolver
):
    # 127.0.0.2 is loopback, where nothing listens on the server's port (it binds 127.0.0.1 only)
    resolver.answers[HOST] = ["127.0.0.2", "127.0.0.1"]
    fake = FakeTime()
    server = jobschema_server([RUNAI_HISTORY], clock=fake)
    options = _options(server, tmp_path, timeout=30.0, schedule=Schedule(interval=1.0, count=50))
    got = _record_within_guard(options, server.credentials.as_env(), fake)
    assert got.outcome.code == 0, got.err
    assert got.outcome.jobs[0].recorded >= 1


def test_resolutions_under_way_are_bounded_and_shared(resolver):
    hosts = [f"h{n}.test" for n in range(record_deadline.MAX_LOOKUPS)]
    for host in hosts:
        with pytest.raises(httpcore.ConnectTimeout, match="not resolved in time"):
            record_deadline.resolve(host, 443, 0.01)
    with pytest.raises(httpcore.ConnectTimeout):  # asked again: waits on the same resolution
        record_deadline.resolve(hosts[0], 443, 0.01)
    with pytest.raises(httpcore.ConnectError, match="being resolved already"):
        record_deadline.resolve("one-more.test", 443, 0.01)
    assert sorted(resolver.asked_by(len(hosts))) == hosts  # no thread for a repeat, none past the bound
    resolver.released.set()
    for lookup in list(record_deadline._lookups.values()):
        lookup.done.wait(GUARD)
    resolver.answers["one-more.test"] = ["127.0.0.1"]
    assert record_deadline.resolve("one-more.test", 443, GUARD) == ["127.0.0.1"]
    assert record_deadline.resolve("::1", 443, 0.0) == ["::1"]  # an address is not resolved


_SILENT_RESOLVER = """
import sys, threading
from jobschema.record import deadline
deadline._getaddrinfo = lambda *args, **kwargs: threading.Event().wait()  # never answers
from jobschema.cli import run
sys.argv = ["jobschema", *sys.argv[1:]]
run()
"""


def test_a_resolver_thread_left_waiting_never_holds_the_process_exit(tmp_path):
    args = ("record", "runai", "--url", f"http://{HOST}:9", "--workload", JOB, "--count", "2")
    args += ("--interval", "1", "--timeout", "0.2", "--retries", "0", "--har", str(tmp_path / "r.har"))
    env = {**os.environ, **ENV, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    process = subprocess.Popen(
        [sys.executable, "-c", _SILENT_RESOLVER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        _, err = process.communicate(timeout=GUARD)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 1, err  # ended with the recording, its resolver thread left behind
    assert "2 errors (Timeout)" in err
    errors = _har_errors(tmp_path / "r.har")
    assert errors and all("the host name was not resolved in time" in error for error in errors)


class _SlowTls:
    """A loopback TCP server whose every connection gets ``first`` and then one byte of ``again``
    every 20 ms (a TLS handshake that never ends: silence, or a record header trickled forever),
    until the client hangs up or :data:`GUARD` passes."""

    def __init__(self, first: bytes, again: bytes) -> None:
        self.first, self.again = first, again
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.sendall(self.first)
                for _ in range(int(GUARD / 0.02)):
                    if self.stop.wait(0.02):
                        return
                    if self.again:
                        conn.sendall(self.again)
            except OSError:  # the client hung up
                return

    def close(self) -> None:
        self.stop.set()
        self.thread.join(GUARD)
        self.sock.close()


@pytest.mark.parametrize(
    ("first", "again"),
    [(b"", b""), (b"\x16\x03\x03\x40\x00", b"\x02")],
    ids=["silent", "trickled-record"],
)
def test_a_tls_handshake_that_never_ends_ends_each_request_at_its_timeout(tmp_path, first, again):
    peer = _SlowTls(first, again)
    try:
        options = RecordOptions(
            "runai",
            f"https://127.0.0.1:{peer.port}",
            (JOB,),
            har=tmp_path / "rec.har",
            schedule=Schedule(interval=1.0, count=2),
            retry=RetryPolicy(retries=0),
            timeout=0.3,
        )
        got = _record_within_guard(options, dict(ENV), FakeTime())
    finally:
        peer.close()
    assert got.outcome.code == 1
    errors = _har_errors(tmp_path / "rec.har")
    assert errors and all(error.split(":", 1)[0].endswith("Timeout") for error in errors), errors


# ------------------------------------------------------------------------------------- names

#: A file name holding a line break, a terminal escape and a byte that is not UTF-8.
ODD = os.fsdecode(b"rec\n\x1b[2Jx\xff")
ODD_SHOWN = "rec\\n\\x1b[2Jx\\xff"


def _one_line_each(text: str) -> None:
    assert "\x1b" not in text and "\r" not in text
    for line in text.splitlines():
        assert not line.startswith("[2J") and not line.startswith("x\\xff")


def test_notes_show_the_output_file_s_name_escaped_on_one_line(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server([RUNAI_HISTORY], clock=fake)
    odd = tmp_path / f"{ODD}.ndjson"
    first = json.dumps({"workloadId": HISTORY_WORKLOAD, "actualPhase": "Creating"})
    odd.write_bytes(first.encode() + b"\n" + first.encode())  # a last line without its newline
    got = run_record(server, "runai", [HISTORY_WORKLOAD], tmp_path, fake, name=ODD)
    _one_line_each(got.err)
    _one_line_each(got.out)
    assert f"note: {tmp_path}/{ODD_SHOWN}.ndjson: its last line had no newline; added one" in got.err


def test_warnings_show_the_credentials_file_s_name_escaped(jobschema_server, tmp_path):
    fake = FakeTime()
    server = jobschema_server([RUNAI_HISTORY], clock=fake)
    secrets = tmp_path / f"{ODD}.toml"
    given = server.credentials.as_env()
    client_id, secret = given["RUNAI_CLIENT_ID"], given["RUNAI_CLIENT_SECRET"]
    secrets.write_text(f'[runai]\nclient_id = "{client_id}"\nclient_secret = "{secret}"\n')
    secrets.chmod(0o644)
    got = run_record(server, "runai", [HISTORY_WORKLOAD], tmp_path, fake, env={}, credentials_file=secrets)
    _one_line_each(got.err)
    assert f"warning: {tmp_path}/{ODD_SHOWN}.toml: readable by other users (chmod 600 it)" in got.err


def test_errors_about_the_output_files_show_their_names_escaped(tmp_path):
    odd = tmp_path / f"{ODD}.ndjson"
    odd.write_text("not json at all\n")
    with pytest.raises(OutputError) as refused:
        NdjsonWriter.open(odd, lambda value: None)
    assert str(refused.value).startswith(f"{tmp_path}/{ODD_SHOWN}.ndjson: not an NDJSON recording")
    assert "\n" not in str(refused.value)


def test_a_note_line_holds_whatever_a_peer_named_on_one_line():
    guard = Guard(["s3cret-value-0001"])
    shown = guard.note(
        "warning: runai a\u2028b: the answer names job 'x\r\n::error::s3cret-value-0001\udcff'"
    )
    assert "\n" not in shown and "\r" not in shown and "\u2028" not in shown
    assert "s3cret-value-0001" not in shown
    assert "\\r\\n::error::" in shown and shown.endswith("\\xff'")
