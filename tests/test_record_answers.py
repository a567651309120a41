"""Answers the recorder must read without crashing and never write where resuming would refuse them:
an AIHC error body nested 100,000 deep (read by the project's one JSON parser, which bounds depth),
and 2xx answers that are JSON but no object (``[]``, ``null``, ``"x"``, ``42``), which are unreadable
answers, reported and never written as snapshot lines."""

from __future__ import annotations

import base64

import pytest

from jobschema.record import Schedule
from jobschema.record.aihc import _code
from jobschema.record.runai import token_expiry
from tests.hostile_support import answer, running
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
