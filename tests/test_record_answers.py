"""Answers the recorder must read without crashing and never write where resuming would refuse them:
an AIHC error body nested 100,000 deep (read by the project's one JSON parser, which bounds depth),
and 2xx answers that are JSON but no object (``[]``, ``null``, ``"x"``, ``42``), which are unreadable
answers, reported and never written as snapshot lines."""

from __future__ import annotations

import base64
import json

import pytest

from jobschema.record import Schedule
from jobschema.record.aihc import _code
from jobschema.record.guard import Guard
from jobschema.record.ndjson import NdjsonWriter, Unwritable, snapshot_line
from jobschema.record.runai import token_expiry
from tests.hostile_support import ENV, JOB, answer, is_token, running, token_answer, workload
from tests.record_support import FakeTime, run_record

DEEP = b"[" * 100_000 + b"]" * 100_000
BCE = {
    "BCE_ACCESS_KEY_ID": "ALTAKhostileAK0123456",
    "BCE_SECRET_ACCESS_KEY": "0123456789abcdef0123456789abcdef",
}


def test_a_deeply_nested_aihc_error_body_is_no_code_not_a_crash():
    assert _code(DEEP) is None
    assert _code(b'{"code": ' + DEEP + b"}") is None
    assert _code(b'{"code": "AccessDenied"}') == "AccessDenied"


def test_a_jwt_whose_claims_nest_deeply_has_no_expiry():
    claims = base64.urlsafe_b64encode(DEEP).decode().rstrip("=")
    assert token_expiry(f"e30.{claims}.c2ln") is None


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_an_aihc_recording_reads_a_deeply_nested_error_body(tmp_path, api):
    def handler(request, conn):
        return answer(conn, 400, DEEP)

    with running(handler) as peer:
        got = run_record(
            peer,
            "aihc",
            ["job-1"],
            tmp_path,
            FakeTime(),
            env=BCE,
            aihc_api=api,
            schedule=Schedule(interval=10, count=2),
        )
    assert got.outcome.jobs[0].errors == {"400": 2} and got.outcome.code == 1
    assert got.lines == [] and [entry["response"]["status"] for entry in got.entries] == [400, 400]


# --------------------------------------------------------------------------- 2xx, but no object

NOT_OBJECTS = [
    (b"[]", "an array"),
    (b"null", "null"),
    (b'"x"', "a string"),
    (b"42", "a number"),
    (b"true", "a boolean"),
    (b'[{"workloadId": "w"}]', "an array"),
]


@pytest.mark.parametrize(("body", "kind"), NOT_OBJECTS)
def test_a_body_that_is_no_json_object_is_no_snapshot(body, kind):
    assert snapshot_line(body, Guard()) == Unwritable(f"not a JSON object ({kind})")


@pytest.mark.parametrize(("body", "kind"), NOT_OBJECTS)
def test_a_2xx_answer_that_is_no_object_is_reported_not_written_and_the_file_resumes(tmp_path, body, kind):
    def handler(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, body)

    with running(handler) as peer:
        got = run_record(peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV, schedule=Schedule(count=2))
    assert got.ndjson.read_bytes() == b""
    assert got.outcome.jobs[0].errors == {"unreadable": 2} and got.outcome.code == 1
    url = f"{got.entries[1]['request']['url']}"
    assert got.err.splitlines()[0] == f"warning: GET {url}: not recorded: not a JSON object ({kind})"
    assert json.loads(got.entries[1]["response"]["content"]["text"]) == json.loads(body)  # in the HAR

    def healthy(request, conn):
        if is_token(request):
            return token_answer(conn)
        return answer(conn, 200, workload(phase="Completed"))

    with running(healthy) as peer:  # the same files, resumed
        again = run_record(peer, "runai", [JOB], tmp_path, FakeTime(), env=ENV)
    assert again.outcome.code == 0 and again.lines == [workload(phase="Completed")]
    writer = NdjsonWriter.open(got.ndjson, lambda value: value.get("workloadId"))
    assert writer.lines == 1 and writer.notes == []
    writer.close()
