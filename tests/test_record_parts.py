"""The parts of ``jobschema record`` one by one: the files (torn lines, resume, HAR layouts), retry
timing, token expiry, credentials lookup, change detection and the status lines."""

from __future__ import annotations

import base64
import copy
import gzip
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
import zlib
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

import pytest

from jobschema.apis import aihc, runai
from jobschema.record.body import Body, BodyDecodingError, BodyTimeout, encodings, read_capped
from jobschema.record.change import ChangeDetector
from jobschema.record.credentials import CredentialsError, Lookup, bce_pair, join_sources, runai_pair
from jobschema.record.files import OutputError, signals_deferred
from jobschema.record.guard import Guard
from jobschema.record.har import HarWriter, _redacted, entry, head
from jobschema.record.limits import BODY_STEP, MAX_DURATION
from jobschema.record.ndjson import Line, NdjsonWriter, Unwritable, snapshot_line
from jobschema.record.retry import RetryPolicy, retry_after
from jobschema.record.runai import token_expiry
from jobschema.record.status import JobState, StatusBoard
from jobschema.record.transport import Call, Exchange
from jobschema.secrets import mask
from tests.serve_support import RUNAI_EXAMPLES
from tests.support import load_json


def _workload() -> dict:
    return json.loads((RUNAI_EXAMPLES / "completed-job.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------- NDJSON


def _line(value: dict) -> Line:
    return Line(json.dumps(value, separators=(",", ":")), value)


def test_a_torn_last_line_is_cut_off_with_a_note(tmp_path: Path):
    path = tmp_path / "r.ndjson"
    good = json.dumps(_workload(), separators=(",", ":"))
    path.write_text(good + "\n" + good[:40], encoding="utf-8")
    writer = NdjsonWriter.open(path, runai.job_id)
    try:
        assert writer.notes == [
            f"{path}: cut off an incomplete last line (40 bytes) left by an interrupted write"
        ]
        assert writer.lines == 1
        assert writer.last == {_workload()["workloadId"]: _workload()}
        assert writer.append(_line(_workload())) == 2
    finally:
        writer.close()
    assert path.read_text(encoding="utf-8") == good + "\n" + good + "\n"


def test_a_complete_last_line_without_newline_gets_one(tmp_path: Path):
    path = tmp_path / "r.ndjson"
    path.write_text('{"code":404,"message":"Resource id not found."}', encoding="utf-8")
    writer = NdjsonWriter.open(path, runai.job_id)
    writer.close()
    assert writer.notes == [f"{path}: its last line had no newline; added one"]
    assert writer.lines == 1
    assert path.read_text(encoding="utf-8") == '{"code":404,"message":"Resource id not found."}\n'


def test_resume_counts_blank_lines_and_keeps_each_jobs_last_snapshot(tmp_path: Path):
    first, second = _workload(), _workload()
    second["actualPhase"] = "Failed"
    other = copy.deepcopy(first)
    other["workloadId"] = "11111111-2222-4333-8444-555555555555"
    path = tmp_path / "r.ndjson"
    path.write_text("\n".join(json.dumps(v) for v in (first, other)) + "\n\n" + json.dumps(second) + "\n")
    writer = NdjsonWriter.open(path, runai.job_id)
    writer.close()
    assert writer.lines == 4 and writer.notes == []
    assert writer.last == {first["workloadId"]: second, other["workloadId"]: other}


def test_a_folder_or_unwritable_place_is_one_line(tmp_path: Path):
    with pytest.raises(OutputError, match=r"cannot open: No such file or directory$"):
        NdjsonWriter.open(tmp_path / "missing" / "r.ndjson", runai.job_id)


def test_a_body_on_several_lines_is_written_on_one_and_bad_json_is_never_written():
    body = json.dumps(_workload(), indent=2).encode()
    line = snapshot_line(body, Guard())
    assert isinstance(line, Line) and "\n" not in line.text and line.value == _workload()
    assert snapshot_line(b"<html>502</html>", Guard()) == Unwritable("invalid JSON: Expecting value")


def test_a_snapshot_keeps_the_servers_bytes_when_nothing_is_secret():
    body = b'{"code": 404,  "message": "Resource id not found."}'
    line = snapshot_line(body, Guard())
    assert isinstance(line, Line) and line.text == body.decode()


# ----------------------------------------------------------------------------------------- HAR


def _exchange(status: int = 200, attempt: int = 1) -> Exchange:
    return Exchange(
        Call("job", "j"),
        "GET",
        "http://127.0.0.1:1/api/v1/workloads/distributed/j",
        [("authorization", "Bearer abcdefgh12345678")],
        b"",
        1_780_000_000.25,
        0.0125,
        status,
        "OK",
        "HTTP/1.1",
        [("content-type", "application/json")],
        b'{"code":503,"message":"Please try again in few minutes."}',
        attempt=attempt,
    )


def test_the_har_is_complete_after_every_entry_and_appends_on_resume(tmp_path: Path):
    path = tmp_path / "r.har"
    writer = HarWriter.open(path, Guard())
    assert json.loads(path.read_text())["log"]["entries"] == []
    writer.add(_exchange(503), Guard())
    first = json.loads(path.read_text())
    writer.add(_exchange(200, 2), Guard())
    writer.close()
    entries = json.loads(path.read_text())["log"]["entries"]
    assert [(e["response"]["status"], e["_attempt"]) for e in entries] == [(503, 1), (200, 2)]
    assert first["log"]["entries"] == entries[:1]
    assert entries[0]["startedDateTime"] == "2026-05-28T20:26:40.250Z" and entries[0]["time"] == 12.5
    again = HarWriter.open(path, Guard())
    again.add(_exchange(404), Guard())
    again.close()
    assert [e["response"]["status"] for e in json.loads(path.read_text())["log"]["entries"]] == [
        503,
        200,
        404,
    ]
    assert json.loads(path.read_text())["log"]["version"] == "1.2"


def test_a_har_of_another_layout_is_rewritten_redacted_and_a_non_har_refused(tmp_path: Path):
    path = tmp_path / "other.har"
    foreign = {
        "log": {
            "version": "1.2",
            "creator": {"name": "browser"},
            "entries": [
                {
                    "request": {
                        "method": "GET",
                        "url": "https://x/y",
                        "headers": [{"name": "Cookie", "value": "sid=PLANTED-old-cookie"}],
                    },
                    "response": {"status": 200, "content": {"text": "{}"}},
                }
            ],
        }
    }
    path.write_text(json.dumps(foreign, indent=2))
    writer = HarWriter.open(path, Guard())
    writer.add(_exchange(), Guard())
    writer.close()
    text = path.read_text()
    assert text.startswith(head().decode()) and "PLANTED-old-cookie" not in text
    assert len(json.loads(text)["log"]["entries"]) == 2
    assert not (tmp_path / ".other.har.tmp").exists()
    bad = tmp_path / "bad.har"
    bad.write_text('{"not": "a har"}')
    with pytest.raises(
        OutputError, match=r"bad\.har: not a HAR file \(no log\.entries array\); choose another --har file"
    ):
        HarWriter.open(bad, Guard())
    assert bad.read_text() == '{"not": "a har"}'


# --------------------------------------------------------------------------- retries and tokens


def test_backoff_is_full_jitter_bounded_by_cap_retries_and_budget():
    policy = RetryPolicy(retries=4, base=0.5, cap=3.0, budget=10.0)
    rng = random.Random(1)
    for attempt, top in ((1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0)):
        assert all(0 <= policy.backoff(attempt, rng) <= top for _ in range(200))
    assert policy.wait(5, None, 0.0, rng) is None  # out of retries
    assert policy.wait(1, 4.0, 0.0, rng) == 4.0  # Retry-After as given
    assert policy.wait(2, 4.0, 7.0, rng) is None  # it would pass the budget


def test_retry_after_reads_seconds_and_http_dates():
    now = 1_780_000_000.0
    date = format_datetime(datetime.fromtimestamp(now + 30, UTC), usegmt=True)
    assert retry_after("7", now) == 7.0
    assert retry_after(date, now) == 30.0
    assert retry_after("soon", now) is None and retry_after(None, now) is None
    assert retry_after(format_datetime(datetime.fromtimestamp(now - 5, UTC), usegmt=True), now) == 0.0


@pytest.mark.parametrize(
    "value",
    [
        "soon",
        "-5",
        "1.5",
        "",
        "   ",
        "\u0661\u0662",
        "Fri, 31 Feb 2030 00:00:00 GMT",
        "Mon, 01 Jan 99999 00:00:00 GMT",
    ],
)
def test_a_retry_after_that_is_neither_seconds_nor_a_date_is_none(value):
    assert retry_after(value, 1_780_000_000.0) is None


def test_retry_after_is_at_most_the_longest_recording_and_a_zoneless_date_is_gmt():
    now = 1_780_000_000.0
    assert retry_after("9" * 400, now) == MAX_DURATION
    assert (
        retry_after(format_datetime(datetime.fromtimestamp(now + 10**9, UTC), usegmt=True), now)
        == MAX_DURATION
    )
    zoneless = format_datetime(datetime.fromtimestamp(now + 60, UTC)).replace("+0000", "-0000")
    assert retry_after(zoneless, now) == 60.0


# ------------------------------------------------------------------------------ capped bodies


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("step", [1, 7, 4096, 1 << 20])
@pytest.mark.parametrize(
    ("codings", "pack"),
    [
        ([], lambda data: data),
        (["gzip"], gzip.compress),
        (["x-gzip"], gzip.compress),
        (["deflate"], zlib.compress),
        (["deflate"], lambda data: zlib.compress(data, wbits=-15)),
        (["deflate", "gzip"], lambda data: gzip.compress(zlib.compress(data))),
    ],
)
def test_a_body_under_the_cap_is_decoded_whatever_its_chunks(codings, pack, step):
    data = json.dumps(_workload()).encode() * 20
    body = read_capped(_pieces(pack(data), step), codings, len(data), float("inf"))
    assert body == Body(data, len(data), len(pack(data)))


@pytest.mark.parametrize(
    ("codings", "wbits"), [([], None), (["gzip"], 31), (["deflate"], 15), (["deflate"], -15)]
)
def test_a_body_past_the_cap_is_dropped_within_a_step_of_it(codings, wbits):
    data = b"\0" * (8 * 1024 * 1024)
    wire = data if wbits is None else zlib.compress(data, 9, wbits)
    read = []

    def chunks():
        for piece in _pieces(wire, 65536):
            read.append(len(piece))
            yield piece

    body = read_capped(chunks(), codings, 1024 * 1024, float("inf"))
    assert body.truncated and body.data == b"" and 1024 * 1024 < body.size <= 1024 * 1024 + BODY_STEP
    assert body.received == sum(read)
    if wbits is None:
        assert sum(read) < len(wire)  # reading stopped early


def test_a_body_past_its_deadline_raises_and_bad_gzip_is_a_decoding_error():
    clock = iter(range(100))
    with pytest.raises(BodyTimeout):
        read_capped([b"a"] * 10, [], 1024, 3.5, now=lambda: float(next(clock)))
    with pytest.raises(BodyDecodingError, match="invalid"):
        read_capped([b"\x1f\x8b\x08\x00garbage, not gzip at all"], ["gzip"], 1024, float("inf"))
    for codings, cut in ((["gzip"], gzip.compress(b"{}" * 999)[:-9]), (["deflate"], b"x")):
        with pytest.raises(BodyDecodingError, match="ends early"):
            read_capped([cut], codings, 4096, float("inf"))
    assert read_capped([], ["gzip"], 1024, float("inf")) == Body(b"", 0, 0)  # no body, no stream


def test_content_encodings_are_read_in_the_order_applied():
    assert encodings(["gzip"]) == ["gzip"]
    assert encodings(["deflate, GZIP ", "identity"]) == ["deflate", "gzip"]
    assert encodings([]) == [] and encodings([" , "]) == []


def test_a_truncated_exchange_is_an_error_answer_marked_in_the_har():
    exchange = _exchange(200)
    exchange.body, exchange.truncated, exchange.size, exchange.received = b"", True, 1_114_112, 32_651
    assert not exchange.ok and not exchange.retriable and exchange.outcome == "TooLarge"
    item = json.loads(_redacted(entry(exchange), Guard()))
    assert item["response"]["content"] == {
        "size": 1_114_112,
        "mimeType": "application/json",
        "_truncated": True,
        "comment": "not recorded: the body passed --max-body; reading stopped after 1114112 decoded "
        "bytes (32651 received)",
    }
    assert item["response"]["bodySize"] == 32_651 and item["response"]["status"] == 200


def _jwt(claims: dict) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256'})}.{part(claims)}.c2ln"


def test_token_expiry_reads_exp_without_verifying():
    assert token_expiry(_jwt({"exp": 1_780_000_060, "sub": "a-b_c?>"})) == 1_780_000_060.0
    assert token_expiry(_jwt({"sub": "x"})) is None
    assert token_expiry("opaque-token") is None
    assert token_expiry("a.!!!.c") is None


def test_a_retriable_exchange_and_its_outcome():
    assert _exchange(503).retriable and _exchange(429).retriable
    assert not _exchange(501).retriable and not _exchange(404).retriable
    lost = _exchange(0)
    lost.error = "ConnectError: [Errno 111] Connection refused"
    assert lost.retriable and lost.outcome == "ConnectError"


# ------------------------------------------------------------------------------------ credentials


def test_an_option_wins_over_the_file_which_wins_over_the_environment():
    env = {"BCE_ACCESS_KEY_ID": "env-ak", "BCE_SECRET_ACCESS_KEY": "env-sk"}
    found = Lookup({"secret_access_key": "opt-sk"}, env, {"aihc": {"access_key_id": "file-ak"}}, "c.toml")
    pair = bce_pair(found)
    assert (pair.id.value, pair.id.source) == ("file-ak", "c.toml: aihc.access_key_id")
    assert (pair.secret.value, pair.secret.source) == ("opt-sk", "--bce-secret-access-key")
    assert "opt-sk" not in repr(pair)


def test_app_token_falls_back_to_the_client_pair():
    env = {"RUNAI_CLIENT_ID": "c", "RUNAI_CLIENT_SECRET": "s"}
    assert runai_pair(Lookup({}, env), "app_token").names == "RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET"
    with_app = {**env, "RUNAI_APP_ID": "a"}
    with pytest.raises(CredentialsError, match=r"^no Run:ai app credentials: set RUNAI_APP_SECRET"):
        runai_pair(Lookup({}, with_app), "app_token")


def test_join_sources():
    assert (
        join_sources("c.toml: runai.client_id", "c.toml: runai.client_secret")
        == "c.toml: runai.client_id/client_secret"
    )
    assert join_sources("RUNAI_CLIENT_ID", "--client-secret") == "RUNAI_CLIENT_ID/--client-secret"


# ------------------------------------------------------------------------------ change detection


def test_change_detection_by_meaning_with_noise_left_out():
    detect = ChangeDetector(aihc.phase, aihc.NOISE)
    job = load_json(
        Path(__file__).parent.parent / "schemas" / "examples" / "aihc-job-detail" / "multi-pod-pytorch.json"
    )
    noisy = copy.deepcopy(job)
    noisy["requestId"] = "00000000-0000-4000-8000-000000000000"
    noisy["result"]["podList"]["pods"].reverse()  # pods are keyed by name: order is no change
    assert not detect.changed(job, noisy)
    moved = copy.deepcopy(noisy)
    moved["result"]["podList"]["pods"][0]["restartCount"] = 3
    assert detect.changed(job, moved)
    assert detect.changed(None, job)
    everything = ChangeDetector(aihc.phase, ("/result", "/requestId"))
    failed = copy.deepcopy(job)
    failed["result"]["status"] = "Failed"
    assert not everything.changed(job, moved) and everything.changed(job, failed)


# ---------------------------------------------------------------------------------- status lines


def test_plain_status_lines_are_printed_when_something_but_the_poll_count_changes():
    job = JobState("runai", "w\x1b[31m")
    stream = io.StringIO()
    board = StatusBoard(stream, [job], tty=False, clean=Guard().line)
    board.update()
    job.polls = 1
    board.update()
    job.phase, job.errors["503"] = "Running", 2
    board.update()
    job.done = "terminal"
    board.finish()
    assert stream.getvalue() == (
        "runai w\\x1b[31m: (no snapshot yet); 0 polls, 0 changes, 0 errors\n"
        "runai w\\x1b[31m: Running; 1 poll, 0 changes, 2 errors (503)\n"
        "runai w\\x1b[31m: Running (terminal); 1 poll, 0 changes, 2 errors (503)\n"
    )


def test_on_a_terminal_the_lines_are_redrawn_in_place_and_output_goes_above_them():
    jobs = [JobState("aihc", "a"), JobState("aihc", "b")]
    stream = io.StringIO()
    board = StatusBoard(stream, jobs, tty=True, clean=Guard().line, width=lambda: 40)
    board.update()
    board.above(lambda: stream.write("FINDING\n"))
    jobs[0].polls = 1
    board.update()

    def block(*texts: str) -> str:  # each line cut to the width less one, an ellipsis marking the cut
        return "".join(f"\x1b[K{text[:38]}…\n" for text in texts) + "\x1b[J"

    waiting = "aihc {}: (no snapshot yet); {} poll{}, 0 changes, 0 errors"
    first = block(waiting.format("a", 0, "s"), waiting.format("b", 0, "s"))
    second = block(waiting.format("a", 1, ""), waiting.format("b", 0, "s"))
    assert stream.getvalue() == first + "\x1b[2F\x1b[J" + "FINDING\n" + first + "\x1b[2F" + second


def test_a_known_secret_in_a_status_line_is_masked():
    job = JobState("runai", "PLANTED-secret-in-an-id-000")
    stream = io.StringIO()
    StatusBoard(stream, [job], tty=False, clean=Guard(["PLANTED-secret-in-an-id-000"]).line).update()
    assert stream.getvalue().startswith(f"runai {mask('PLANTED-secret-in-an-id-000')}: ")


# ------------------------------------------------------------------------------------- signals


def test_a_signal_inside_a_request_lands_when_the_request_is_done():
    reached = []
    with pytest.raises(KeyboardInterrupt), signals_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # a pending KeyboardInterrupt would be raised here
        reached.append("end of the block")
    assert reached == ["end of the block"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_signal_inside_a_request_ends_the_process_at_once():
    code = (
        "import os, signal, time\n"
        "from jobschema.record.files import signals_deferred\n"
        "with signals_deferred():\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(5)\n"
        "print('not reached')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")
