"""Clients no one here wrote, against ``jobschema serve``: runapy (the Run:ai Python client) and the
Baidu SDK's signer and HTTP client; and the documented errors, with schema-valid bodies."""

from __future__ import annotations

import json
import time

import pytest

from jobschema.serve.auth import token_payload
from tests.serve_support import (
    AIHC_EXAMPLES,
    COMPLETED,
    FINISHED,
    POOL,
    RUNAI_EXAMPLES,
    bce_config,
    bce_send,
    client,
    runapy_client,
    signed_get,
    token,
    valid,
)


@pytest.fixture
def runai_server(jobschema_server):
    return jobschema_server([RUNAI_EXAMPLES])


@pytest.fixture
def aihc_server(jobschema_server):
    return jobschema_server([AIHC_EXAMPLES])


def _runapy(server, **options):
    return runapy_client(server, **options)


def test_runapy_authenticates_and_reads_the_captured_workload(runai_server):
    from runai.api.distributed_api import DistributedApi

    with _runapy(runai_server) as api:
        answer = DistributedApi(api).get_distributed(COMPLETED)
        assert answer.status_code == 200
        assert answer.data == json.loads((RUNAI_EXAMPLES / "completed-job.json").read_text(encoding="utf-8"))
        # runapy decoded the token's exp (standard base64) to schedule its refresh
        claims = token_payload(api._token)
        assert api.token_refresher._token_expiry == claims["exp"]
        assert claims["exp"] - claims["iat"] == 3600


def test_runapy_submits_and_follows_a_workload_to_completed(runai_server):
    from runai.api.distributed_api import DistributedApi

    request = {"name": "bert", "projectId": "7", "clusterId": "3f5c2a1e-9b8d-4c7f-a6e5-0d1b2c3a4f56"}
    with _runapy(runai_server) as api:
        submitted = DistributedApi(api).create_distributed(request)
        assert submitted.status_code == 202
        phases = [submitted.data["actualPhase"]]
        for _ in range(6):  # bounded
            phases.append(
                DistributedApi(api).get_distributed(submitted.data["workloadId"]).data["actualPhase"]
            )
    assert phases == ["Creating", "Creating", "Pending", "Running", "Completed", "Completed", "Completed"]


def test_runapy_gets_404_with_a_valid_error_body(runai_server):
    from runai.api.distributed_api import DistributedApi
    from runai.exceptions import ApiException

    with _runapy(runai_server, retry_enabled=False) as api, pytest.raises(ApiException) as caught:
        DistributedApi(api).get_distributed("00000000-0000-4000-8000-000000000000")
    assert caught.value.status == 404
    assert json.loads(caught.value.body) == {"code": 404, "message": "Resource id not found."}
    assert valid(json.loads(caught.value.body), "runai-error")


def test_a_wrong_secret_gets_no_token(runai_server):
    body = {"grantType": "app_token", "AppId": runai_server.credentials.runai_client_id, "AppSecret": "nope"}
    with client(runai_server) as http:
        answer = http.post("/api/v1/token", json=body)
    assert answer.status_code == 401
    assert answer.json() == {"code": 401, "message": "Invalid client credentials."}


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "Authorization header is missing."),
        ({"Authorization": "Bearer not-a-token"}, "Issuer is not familiar."),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "Authorization header is not a Bearer token."),
    ],
)
def test_no_or_a_bad_token_gets_401(runai_server, headers, message):
    with client(runai_server) as http:
        answer = http.get(f"/api/v1/workloads/distributed/{COMPLETED}", headers=headers)
    assert answer.status_code == 401
    assert answer.json() == {"code": 401, "message": message}
    assert valid(answer.json(), "runai-error")


def test_the_generic_workloads_endpoint_answers_403_for_a_distributed_workload(runai_server):
    with client(runai_server) as http:
        headers = {"Authorization": f"Bearer {token(runai_server)}"}
        known = http.get(f"/api/v1/workloads/{COMPLETED}", headers=headers)
        unknown = http.get("/api/v1/workloads/00000000-0000-4000-8000-000000000000", headers=headers)
    assert (known.status_code, known.json()) == (
        403,
        {"code": 403, "message": "You do not have sufficient permissions."},
    )
    assert unknown.status_code == 404
    assert valid(known.json(), "runai-error")


# ---------------------------------------------------------------------------------------- AIHC


def test_the_baidu_sdk_gets_the_captured_job(aihc_server):
    answer = bce_send(bce_config(aihc_server), "GET", f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL})
    assert answer.result.job_id == FINISHED
    assert answer.result.status == "Succeeded"


def test_a_request_signed_by_the_sdk_signer_gets_the_capture_byte_for_byte(aihc_server):
    answer = signed_get(aihc_server, f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL})
    assert answer.status_code == 200
    capture = AIHC_EXAMPLES / "finished-job.json"
    assert answer.content == capture.read_bytes().strip()
    assert answer.headers["x-bce-request-id"] == json.loads(capture.read_text(encoding="utf-8"))["requestId"]


def _assert_aihc_error(answer, status, code):
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["code"] == code
    assert body["requestId"] == answer.headers["x-bce-request-id"]
    assert valid(body, "aihc-error")
    return body


def test_a_wrong_signature_gets_signature_does_not_match(aihc_server):
    from baidubce.exception import BceServerError

    with pytest.raises(BceServerError) as caught:
        bce_send(
            bce_config(aihc_server, secret="0" * 32),
            "GET",
            f"/api/v1/aijobs/{FINISHED}",
            {"resourcePoolId": POOL},
        )
    assert (caught.value.status_code, caught.value.code) == (400, "SignatureDoesNotMatch")
    answer = signed_get(aihc_server, f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL}, secret="0" * 32)
    _assert_aihc_error(answer, 400, "SignatureDoesNotMatch")


def test_a_changed_query_breaks_the_signature(aihc_server):
    signed = signed_get(aihc_server, f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL})
    assert signed.status_code == 200
    with client(aihc_server) as http:
        sent = dict(signed.request.headers)
        answer = http.get(f"/api/v1/aijobs/{FINISHED}", params={"resourcePoolId": "cce-other"}, headers=sent)
    _assert_aihc_error(answer, 400, "SignatureDoesNotMatch")


def test_an_unknown_job_gets_the_api_s_not_found(aihc_server):
    answer = signed_get(
        aihc_server,
        "/api/v1/aijobs/pytorchjob-00000000-0000-4000-8000-000000000000",
        {"resourcePoolId": POOL},
    )
    body = _assert_aihc_error(answer, 404, "cce.warning.GetAIJobByJobIdFailed")
    assert body["message"] == (
        "get job by jobid failed, err: pytorchjob-00000000-0000-4000-8000-000000000000 not found job"
    )


def test_a_job_asked_for_in_another_pool_is_not_found(aihc_server):
    answer = signed_get(aihc_server, f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": "cce-e0isdmib"})
    _assert_aihc_error(answer, 404, "cce.warning.GetAIJobByJobIdFailed")


def test_an_expired_signature_gets_request_expired(aihc_server):
    hour_ago = int(time.time()) - 3600
    answer = signed_get(
        aihc_server,
        f"/api/v1/aijobs/{FINISHED}",
        {"resourcePoolId": POOL},
        timestamp=hour_ago,
        expiration=1800,
    )
    _assert_aihc_error(answer, 400, "RequestExpired")


def test_no_authorization_gets_access_denied_and_an_unknown_key_invalid_access_key_id(aihc_server):
    with client(aihc_server) as http:
        answer = http.get(f"/api/v1/aijobs/{FINISHED}", params={"resourcePoolId": POOL})
        _assert_aihc_error(answer, 403, "AccessDenied")
        forged = "bce-auth-v1/nobody/2026-01-01T00:00:00Z/1800/host/" + "0" * 64
        answer = http.get(
            f"/api/v1/aijobs/{FINISHED}", params={"resourcePoolId": POOL}, headers={"Authorization": forged}
        )
        _assert_aihc_error(answer, 403, "InvalidAccessKeyId")
        answer = http.get(
            f"/api/v1/aijobs/{FINISHED}",
            params={"resourcePoolId": POOL},
            headers={"Authorization": "bce-auth-v1/broken"},
        )
        _assert_aihc_error(answer, 400, "InvalidHTTPAuthHeader")


def test_the_sdk_creates_a_job_that_walks_to_succeeded(aihc_server):
    from tests.serve_support import job_request

    config = bce_config(aihc_server)
    created = bce_send(config, "POST", "/api/v1/aijobs", {"resourcePoolId": POOL}, job_request())
    job_id = created.result.job_id
    assert job_id.startswith("pytorchjob-")
    assert created.result.job_name == "qwen-sft"
    statuses = []
    for _ in range(5):  # bounded
        answer = signed_get(aihc_server, f"/api/v1/aijobs/{job_id}", {"resourcePoolId": POOL})
        assert valid(answer.json(), "aihc-job-detail")
        statuses.append(answer.json()["result"]["status"])
    assert statuses == ["Pending", "Running", "Succeeded", "Succeeded", "Succeeded"]


# ------------------------------------------------------------------------- kinds of Run:ai tokens


def test_only_an_access_token_opens_the_api(runai_server):
    from jobschema.serve.auth import ACCESS, ID, REFRESH

    creds = runai_server.credentials
    grant = {"grantType": "client_credentials", "clientId": creds.runai_client_id}
    grant["clientSecret"] = creds.runai_client_secret
    with client(runai_server) as http:
        tokens = http.post("/api/v1/token", json=grant).json()
        refresh = runai_server.state.tokens.issue(creds.runai_client_id, REFRESH)
        answers = {
            kind: http.get(
                f"/api/v1/workloads/distributed/{COMPLETED}", headers={"Authorization": f"Bearer {t}"}
            )
            for kind, t in (
                ("access", tokens["accessToken"]),
                ("id", tokens["idToken"]),
                ("refresh", refresh),
            )
        }
    assert [token_payload(t)["typ"] for t in (tokens["accessToken"], tokens["idToken"], refresh)] == [
        ACCESS,
        ID,
        REFRESH,
    ]
    assert answers["access"].status_code == 200
    for kind in ("id", "refresh"):
        assert (answers[kind].status_code, answers[kind].json()) == (
            401,
            {"code": 401, "message": "Token is not an access token."},
        )
        assert valid(answers[kind].json(), "runai-error")


def test_a_token_signed_with_another_key_is_unfamiliar(runai_server, jobschema_server):
    other = jobschema_server()
    foreign = token(other)  # a real token of this stub's kind, from another server's key
    with client(runai_server) as http:
        answer = http.get(
            f"/api/v1/workloads/distributed/{COMPLETED}", headers={"Authorization": f"Bearer {foreign}"}
        )
    assert (answer.status_code, answer.json()["message"]) == (401, "Issuer is not familiar.")


# ----------------------------------------------------------------------- BCE: host and expiration


def test_a_signature_that_does_not_cover_host_is_refused(aihc_server):
    answer = signed_get(
        aihc_server, f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL}, signed=("x-bce-date",)
    )
    body = _assert_aihc_error(answer, 400, "InvalidHTTPAuthHeader")
    assert body["message"] == (
        "The Authorization header you provided is not valid: host must be among the signed headers."
    )


def test_a_signature_made_for_another_host_does_not_match(aihc_server):
    answer = signed_get(
        aihc_server, f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL}, host="aihc.bj.baidubce.com"
    )
    _assert_aihc_error(answer, 400, "SignatureDoesNotMatch")


def test_a_signature_may_live_an_hour_and_no_longer(aihc_server):
    from jobschema.serve.auth import MAX_EXPIRATION

    path, params = f"/api/v1/aijobs/{FINISHED}", {"resourcePoolId": POOL}
    assert signed_get(aihc_server, path, params, expiration=MAX_EXPIRATION).status_code == 200
    answer = signed_get(aihc_server, path, params, expiration=MAX_EXPIRATION + 1)
    body = _assert_aihc_error(answer, 400, "InvalidHTTPAuthHeader")
    assert body["message"] == (
        "The Authorization header you provided is not valid: expirationPeriodInSeconds 3601 is above 3600."
    )


@pytest.mark.parametrize("expiration", ["9" * 5000, "\u00b2"], ids=["5000 digits", "superscript two"])
def test_an_expiration_that_is_not_a_small_number_is_malformed(aihc_server, expiration):
    header = f"bce-auth-v1/ak/2026-01-01T00:00:00Z/{expiration}/host/" + "0" * 64
    with client(aihc_server) as http:
        answer = http.get(
            f"/api/v1/aijobs/{FINISHED}",
            params={"resourcePoolId": POOL},
            headers={"Authorization": header.encode("latin-1")},
        )
    _assert_aihc_error(answer, 400, "InvalidHTTPAuthHeader")
