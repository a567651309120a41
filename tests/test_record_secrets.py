"""No credential leaves ``jobschema record`` in the clear: planted markers in the served payloads and
in the credentials themselves never reach the NDJSON, the HAR, stdout, stderr or an error."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from jobschema.record.guard import Guard, mask_members, mask_named
from jobschema.record.har import _redacted, entry
from jobschema.record.transport import Call, Exchange
from jobschema.secrets import mask
from jobschema.serve import Credentials
from tests.record_support import FIXTURES, FakeTime, run_record

CLIENT_SECRET = "PLANTED-client-secret-5d6e7f80"
ACCESS_KEY = "PLANTEDak0123456789abcdef"
SECRET_KEY = "PLANTED-secret-access-key-a1b2c3"
PLANTED = (
    "PLANTED-hf-token-8c1d2e3f",
    "PLANTED-cookie-4b5c6d7e",
    "PLANTED-registry-pass-1a2b3c",
    "PLANTED-cookie-9f8e7d",
    CLIENT_SECRET,
    SECRET_KEY,
)
RUNAI_JOB = "5a0e7c1d-2b3f-4e5a-9c6d-7e8f9a0b1c2d"
AIHC_JOB = "pytorchjob-3c2b1a09-8f7e-4d6c-b5a4-938271605f4e"


@pytest.fixture
def planted_server(jobschema_server):
    fake = FakeTime()
    credentials = Credentials("client-planted", CLIENT_SECRET, None, None, {ACCESS_KEY: SECRET_KEY})
    server = jobschema_server(
        [FIXTURES / "runai-planted.json", FIXTURES / "aihc-planted.json"], credentials=credentials, clock=fake
    )
    return server, fake


def _everything(got) -> str:
    return got.out + got.err + got.ndjson.read_text(encoding="utf-8") + got.har.read_text(encoding="utf-8")


@pytest.mark.parametrize(("api", "job"), [("runai", RUNAI_JOB), ("aihc", AIHC_JOB)])
def test_planted_credentials_are_recorded_masked(planted_server, tmp_path, api, job, run_cli):
    server, fake = planted_server
    got = run_record(server, api, [job], tmp_path, fake, resource_pool="cce-6zwnp4zf")
    assert got.outcome.code == 0
    everything = _everything(got)
    for marker in PLANTED:
        assert marker not in everything, marker
    assert "eyJ" not in everything  # no access or id token (JWTs) anywhere
    assert base64.b64encode(SECRET_KEY.encode()).decode() not in everything
    line = got.ndjson.read_text(encoding="utf-8")
    if api == "runai":
        assert mask("PLANTED-hf-token-8c1d2e3f") in line and mask("session=PLANTED-cookie-4b5c6d7e") in line
    else:
        assert "imagePullSecretPassword" in line and mask("sid=PLANTED-cookie-9f8e7d") in line
    for path in (got.ndjson, got.har):  # the recording is clean by the policy's own check, and valid
        assert run_cli(["redact", "--check", str(path)]).exit_code == 0
        assert run_cli(["validate", str(path)]).exit_code == 0


def test_the_har_masks_the_authorization_header_and_the_token_exchange(planted_server, tmp_path):
    server, fake = planted_server
    got = run_record(server, "runai", [RUNAI_JOB], tmp_path, fake)
    token, workload = got.entries[0], got.entries[1]
    sent = json.loads(token["request"]["postData"]["text"])
    assert sent == {
        "grantType": "client_credentials",
        "clientId": mask("client-planted"),
        "clientSecret": mask(CLIENT_SECRET),
    }
    answer = json.loads(token["response"]["content"]["text"])
    assert set(answer) == {"accessToken", "idToken"} and all(
        v.startswith("<secret:") for v in answer.values()
    )
    headers = {h["name"]: h["value"] for h in workload["request"]["headers"]}
    assert headers["authorization"].startswith("<secret:")
    assert headers["host"] == f"127.0.0.1:{server.port}"


def _exchange(**given) -> Exchange:
    base = {
        "call": Call("job", "j"),
        "method": "GET",
        "url": "https://api.example/api/v1/workloads/distributed/j?token=PLANTED-query-token1",
        "request_headers": [("Cookie", "sid=PLANTED-req-cookie1"), ("X-Trace", "Bearer PLANTEDbearer12345")],
        "request_body": b"",
        "started": 1_780_000_000.0,
        "status": 200,
        "response_headers": [
            ("Set-Cookie", "sid=PLANTED-set-cookie1; HttpOnly"),
            ("Content-Type", "application/json"),
        ],
        "body": b'{"code": 500, "message": "x"}',
    }
    return Exchange(**{**base, **given})


def test_cookie_and_set_cookie_headers_bearer_values_and_query_tokens_are_masked_in_the_har():
    text = _redacted(entry(_exchange()), Guard()).decode()
    for marker in (
        "PLANTED-req-cookie1",
        "PLANTED-set-cookie1",
        "PLANTEDbearer12345",
        "PLANTED-query-token1",
    ):
        assert marker not in text, marker
    item = json.loads(text)
    assert item["request"]["url"].endswith("?token=" + mask("PLANTED-query-token1"))


def test_a_known_credential_in_an_innocent_field_is_still_masked():
    guard = Guard([SECRET_KEY])
    body = json.dumps({"result": {"note": f"echo {SECRET_KEY}"}}).encode()
    text = _redacted(entry(_exchange(body=body)), guard).decode()
    assert SECRET_KEY not in text and mask(SECRET_KEY) in text
    assert guard.caught == 1


def test_a_token_body_that_is_not_text_is_not_recorded():
    exchange = _exchange(call=Call("token"), body=b"\xff\xfe" + SECRET_KEY.encode())
    text = _redacted(entry(exchange), Guard()).decode()
    assert SECRET_KEY not in text and "not recorded" in text


def test_guard_masks_json_escaped_forms_and_short_values_only_as_whole_tokens():
    guard = Guard(['quote"d-secret/value', "short"])
    assert guard.clean(json.dumps({"v": 'quote"d-secret/value'})) == json.dumps(
        {"v": mask('quote"d-secret/value')}
    )
    assert guard.clean("short stays") == f"{mask('short')} stays"  # (before: written as it is)
    words = "shortcut, shorts, un-short, short_cut stay"
    assert guard.clean(words) == words


def test_mask_named_and_mask_members():
    assert mask_named(
        {"accessToken": "t0ken-value", "nested": [{"refreshToken": "r"}], "expiresIn": 3600}
    ) == {
        "accessToken": mask("t0ken-value"),
        "nested": [{"refreshToken": mask("r")}],
        "expiresIn": 3600,
    }
    assert mask_members({"grantType": "app_token", "AppId": "a", "AppSecret": "s"}, ["grantType"]) == {
        "grantType": "app_token",
        "AppId": mask("a"),
        "AppSecret": mask("s"),
    }


def test_no_credential_in_the_status_lines_or_errors_of_a_wrong_key(
    jobschema_server, tmp_path: Path, run_cli, monkeypatch
):
    server = jobschema_server()
    monkeypatch.setenv("RUNAI_CLIENT_ID", server.credentials.runai_client_id)
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "PLANTED-wrong-secret-77")
    result = run_cli(
        [
            "record",
            "runai",
            "--url",
            server.url,
            "--workload",
            "w",
            "-o",
            str(tmp_path / "r.ndjson"),
            "--har",
            str(tmp_path / "r.har"),
        ],
        code=2,
    )
    assert "PLANTED-wrong-secret-77" not in result.stdout + result.stderr
    assert "PLANTED-wrong-secret-77" not in (tmp_path / "r.har").read_text()
    assert server.credentials.runai_client_id not in (tmp_path / "r.har").read_text()


def test_no_planted_form_reaches_a_recording(jobschema_server, tmp_path):
    """Every planted form (tests/fixtures/secrets/forms) served in a job's env values is masked in the
    NDJSON, the HAR and both streams of a recording."""
    from tests.test_secrets_forms import CASES, _markers

    job = json.loads((FIXTURES / "aihc-planted.json").read_text(encoding="utf-8"))
    forms = [case.read_text(encoding="utf-8") for case in CASES]
    job["result"]["envs"] = [{"name": f"STEP_{index}", "value": form} for index, form in enumerate(forms)]
    capture = tmp_path / "forms-job.json"
    capture.write_text(json.dumps(job), encoding="utf-8")
    fake = FakeTime()
    credentials = Credentials("client-planted", CLIENT_SECRET, None, None, {ACCESS_KEY: SECRET_KEY})
    server = jobschema_server([capture], credentials=credentials, clock=fake)
    got = run_record(server, "aihc", [AIHC_JOB], tmp_path, fake, resource_pool="cce-6zwnp4zf")
    assert got.outcome.code == 0
    recorded = json.loads(got.ndjson.read_text(encoding="utf-8").splitlines()[0])
    assert len(str(recorded)) > 10_000  # the job, with its envs, was recorded
    assert _markers(_everything(got)) == set()
