"""``jobschema record`` against hostile peers on loopback: answer bodies past ``--max-body`` (a gzip
bomb, endless chunked bodies in every encoding, a trickle past ``--timeout``, corrupt compression),
held to the cap and one decoding step, never whole, never written to the NDJSON.

The recorder runs on a fake clock (its sleeps move it); the peers are real sockets. Nothing here
asserts a duration: every wait is a bounded poll, every endless body has a byte limit and a deadline.
"""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
import zlib

import pytest

from jobschema.record import RetryPolicy, Schedule
from jobschema.record.limits import BODY_STEP
from tests.hostile_support import (
    ENV,
    JOB,
    answer,
    compressed,
    endless,
    gzip_bomb,
    is_token,
    running,
    token_answer,
    workload,
    zeros,
)
from tests.record_support import FakeTime, run_record

MIB = 1024 * 1024
# ------------------------------------------------------------------------------ the body cap


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_bomb(256 * MIB)


def test_a_gzip_bomb_is_cut_at_the_cap_and_never_held_whole(tmp_path, bomb):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, bomb, {"Content-Encoding": "gzip"})

    fake = FakeTime()
    with running(handler) as peer:
        tracemalloc.start()
        try:
            got = run_record(
                peer,
                "runai",
                [JOB],
                tmp_path,
                fake,
                env=ENV,
                max_body=MIB,
                schedule=Schedule(interval=10, count=2),
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert got.outcome.code == 1 and got.lines == []
    polls = got.entries[1:]
    assert [entry["response"]["status"] for entry in polls] == [200, 200]
    for entry in polls:
        content = entry["response"]["content"]
        assert content["_truncated"] is True and "text" not in content
        assert MIB < content["size"] <= MIB + BODY_STEP  # read: the cap and at most one step more
        assert 0 < entry["response"]["bodySize"] < len(bomb)  # the compressed bytes read: a part
        assert "passed --max-body" in content["comment"]
    assert peak < 16 * MIB, peak  # 256 MiB decoded: what was held is the cap and a step or two
    assert (
        got.err.splitlines()[-1]
        == f"runai {JOB}: (no snapshot) (count); 2 polls, 0 changes, 2 errors (TooLarge)"
    )
    assert got.err.count("passed --max-body") == 1  # said once per job


@pytest.mark.parametrize(
    ("encoding", "wbits"), [("identity", None), ("gzip", 31), ("deflate", 15), ("deflate", -15)]
)
def test_an_endless_chunked_body_is_cut_at_the_cap(tmp_path, encoding, wbits):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        pieces = zeros() if wbits is None else compressed(zeros(), wbits)
        return endless(conn, pieces, {"Content-Encoding": encoding})

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            fake,
            env=ENV,
            max_body=MIB,
            schedule=Schedule(interval=10, count=1),
        )
        (sent,) = peer.wait_sent(1)
    content = got.entries[1]["response"]["content"]
    assert content["_truncated"] is True and MIB < content["size"] <= MIB + BODY_STEP
    assert sent.cut and sent.bytes < 256 * MIB  # the recorder hung up; the peer stopped sending
    assert got.lines == [] and got.outcome.jobs[0].errors == {"TooLarge": 1}


@pytest.mark.parametrize(
    ("encoding", "pack"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the standard says
        ("deflate", lambda data: zlib.compress(data, wbits=-15)),  # raw, as some servers send it
        ("deflate, gzip", lambda data: gzip.compress(zlib.compress(data))),
    ],
)
def test_a_compressed_answer_under_the_cap_is_decoded_and_recorded(tmp_path, encoding, pack):
    body = json.dumps(workload(phase="Completed"), indent=2).encode()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, pack(body), {"Content-Encoding": encoding})

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, fake, env=ENV, max_body=len(body))
        assert peer.requests[1].headers["accept-encoding"] == "gzip, deflate"
    assert got.outcome.code == 0 and got.lines == [workload(phase="Completed")]
    response = got.entries[1]["response"]
    assert response["content"]["size"] == len(body) and response["bodySize"] == len(pack(body))
    assert json.loads(response["content"]["text"]) == workload(phase="Completed")


def test_a_body_one_byte_over_the_cap_is_truncated(tmp_path):
    body = json.dumps(workload(phase="Completed")).encode()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, body)

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            fake,
            env=ENV,
            max_body=len(body) - 1,
            schedule=Schedule(interval=10, count=1),
        )
    content = got.entries[1]["response"]["content"]
    assert content["_truncated"] is True and content["size"] == len(body)
    assert got.lines == []


def test_a_corrupt_compressed_body_is_an_error_answer(tmp_path):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, b"\x1f\x8b\x08\x00garbage, not gzip at all", {"Content-Encoding": "gzip"})

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, fake, env=ENV, schedule=Schedule(interval=10, count=1)
        )
    assert got.outcome.code == 1 and got.lines == []
    assert all(entry["_error"].startswith("DecodingError: gzip: ") for entry in got.entries[1:])
    assert set(got.outcome.jobs[0].errors) == {"DecodingError"}


def test_a_body_that_trickles_in_is_cut_at_the_timeout(tmp_path):
    """A byte every 20 ms forever: no single read waits long, yet the answer never ends. It is cut
    --timeout after the request began (the peer gives up after a minute if the recorder does not)."""

    def trickle():
        while True:
            time.sleep(0.02)
            yield b" "

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return endless(conn, trickle())

    fake = FakeTime()
    with running(handler) as peer:
        got = run_record(
            peer,
            "runai",
            [JOB],
            tmp_path,
            fake,
            env=ENV,
            timeout=3.0,  # (the token is asked for within it too: room for a busy machine)
            retry=RetryPolicy(retries=0),
            schedule=Schedule(interval=10, count=1),
        )
        (sent,) = peer.wait_sent(1)
    assert sent.cut  # ended by the recorder, not by the peer's own limit
    (poll,) = got.entries[1:]
    kind, _, detail = poll["_error"].partition(":")
    assert kind in {"Timeout", "ReadTimeout"}  # ours, or httpx's if one read alone waited that long
    if kind == "Timeout":
        assert detail.startswith(" the answer took longer than --timeout (3 s); ")
    assert poll["response"]["status"] == 200 and "text" not in poll["response"]["content"]
    assert got.lines == [] and got.outcome.code == 1


def test_validate_names_a_truncated_har_entry(tmp_path, run_cli):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return endless(conn, zeros())

    with running(handler) as peer:
        got = run_record(
            peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV, max_body=4096, schedule=Schedule(count=1)
        )
    result = run_cli(["validate", str(got.har)], code=1)
    assert "response body not recorded: it was truncated (HAR content._truncated) [har]" in result.stdout
