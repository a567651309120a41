"""What a body's ``Content-Encoding`` may say: every member of a multi-member gzip body is decoded
(under the same cap), bytes after the end of a stream are a decoding error, and so are codings the
recorder never asked for and chains longer than :data:`~jobschema.record.limits.MAX_CODINGS`."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from jobschema.record.body import Body, BodyDecodingError, read_capped
from jobschema.record.limits import BODY_STEP, MAX_CODINGS
from tests.hostile_support import ENV, JOB, answer, is_token, running, token_answer, workload
from tests.record_support import FakeTime, run_record

FOREVER = float("inf")


def _pieces(data: bytes, step: int) -> list[bytes]:
    return [data[start : start + step] for start in range(0, len(data), step)]


@pytest.mark.parametrize("step", [1, 7, 4096])
def test_every_gzip_member_is_decoded_whatever_the_chunks(step):
    parts = [b'{"a": ', b"1", b', "b": 2}']
    data = b"".join(gzip.compress(part) for part in parts)
    body = read_capped(_pieces(data, step), ["gzip"], 1024, FOREVER)
    assert body == Body(b'{"a": 1, "b": 2}', 16, len(data))


def test_a_multi_member_bomb_is_still_cut_at_the_cap():
    member = gzip.compress(b"\0" * (4 * BODY_STEP))
    body = read_capped([member] * 64, ["gzip"], 8 * BODY_STEP, FOREVER)
    assert body.truncated and 8 * BODY_STEP < body.size <= 9 * BODY_STEP and body.data == b""


@pytest.mark.parametrize(
    ("coding", "pack"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data, wbits=-15)),
    ],
)
@pytest.mark.parametrize("after", [b"GARBAGE-after-the-stream", b"\0", b"\x1f\x8bX"])
def test_bytes_after_the_end_of_the_stream_are_a_decoding_error(coding, pack, after):
    data = pack(b'{"a": 1}') + after
    for step in (1, len(data)):
        with pytest.raises(BodyDecodingError):
            read_capped(_pieces(data, step), [coding], 1024, FOREVER)


def test_a_gzip_body_cut_inside_its_second_member_ends_early():
    data = gzip.compress(b"[1]") + gzip.compress(b"[2]")[:-3]
    with pytest.raises(BodyDecodingError, match="the compressed stream ends early"):
        read_capped([data], ["gzip"], 1024, FOREVER)


@pytest.mark.parametrize("coding", ["br", "zstd", "compress", "x"])
def test_a_coding_the_recorder_did_not_ask_for_is_a_decoding_error(coding):
    with pytest.raises(BodyDecodingError, match=f"'{coding}' is not an encoding the recorder asked for"):
        read_capped([b'{"a": 1}'], [coding], 1024, FOREVER)


def test_a_chain_of_at_most_max_codings_is_undone_and_a_longer_one_refused():
    data = b'{"a": 1}'
    packed = data
    for _ in range(MAX_CODINGS):
        packed = gzip.compress(packed)
    assert read_capped([packed], ["gzip"] * MAX_CODINGS, 1024, FOREVER).data == data
    with pytest.raises(
        BodyDecodingError, match=f"{MAX_CODINGS + 1} content codings \\(at most {MAX_CODINGS}\\)"
    ):
        read_capped([gzip.compress(packed)], ["gzip"] * (MAX_CODINGS + 1), 1024, FOREVER)


def test_thousands_of_codings_are_one_short_decoding_error_answer(tmp_path):
    body = json.dumps(workload(phase="Completed")).encode()

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, body, {"Content-Encoding": ",".join(["x"] * 4000)})

    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV)
    (poll,) = got.entries[1:2]
    assert poll["_error"] == "DecodingError: x, x, x, x, … (4000 codings): 4000 content codings (at most 4)"
    assert got.lines == [] and set(got.outcome.jobs[0].errors) == {"DecodingError"}


def test_a_multi_member_gzip_answer_is_recorded_whole(tmp_path):
    full = json.dumps(workload(phase="Completed")).encode()
    half = len(full) // 2

    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        body = gzip.compress(full[:half]) + gzip.compress(full[half:])
        return answer(conn, 200, body, {"Content-Encoding": "gzip"})

    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV)
    assert got.outcome.code == 0 and got.lines == [workload(phase="Completed")]
