"""``jobschema serve`` as a library and through the fixture: histories, lifecycles, operations,
faults, generated jobs, refused captures, the access log, and bodies it cannot read. Every request
loop is bounded."""

from __future__ import annotations

import io
import json

import httpx
import pytest

from jobschema.serve import CapturesRefused, Credentials, start
from jobschema.serve.auth import token_payload
from tests.serve_support import (
    AIHC_HISTORY,
    AIJOBS,
    HISTORY_JOB,
    HISTORY_WORKLOAD,
    POOL,
    RUNAI_EXAMPLES,
    RUNAI_HISTORY,
    TIMEOUT,
    TOKEN,
    Clock,
    bce_headers,
    bearer,
    client,
    job_request,
    signed_get,
    token,
    valid,
    wait_for,
    workload_request,
)
from tests.support import REPO

WORKLOADS = "/api/v1/workloads/distributed"


def _phases(server, workload_id, count, headers):
    with client(server) as http:
        answers = [http.get(f"{WORKLOADS}/{workload_id}", headers=headers) for _ in range(count)]
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert valid(answer.json(), "runai-distributed-workload")
    return [answer.json()["actualPhase"] for answer in answers]


def _submit(server, headers, **extra):
    with client(server) as http:
        answer = http.post(WORKLOADS, json=workload_request(**extra), headers=headers)
    assert answer.status_code == 202, answer.text
    assert valid(answer.json(), "runai-distributed-workload")
    return answer.json()


def test_an_ndjson_history_is_replayed_one_snapshot_per_get(jobschema_server):
    server = jobschema_server([RUNAI_HISTORY])
    phases = _phases(server, HISTORY_WORKLOAD, 6, bearer(server))
    assert phases == ["Pending", "Running", "Running", "Completed", "Completed", "Completed"]


def test_an_aihc_history_is_replayed_to_its_terminal_status(jobschema_server):
    server = jobschema_server([AIHC_HISTORY])
    statuses = []
    for _ in range(4):  # bounded
        answer = signed_get(server, f"/api/v1/aijobs/{HISTORY_JOB}", {"resourcePoolId": POOL})
        assert answer.status_code == 200
        statuses.append(answer.json()["result"]["status"])
        assert answer.headers["x-bce-request-id"] == answer.json()["requestId"]
    assert statuses == ["Created", "Running", "Succeeded", "Succeeded"]


def test_a_submitted_workload_walks_the_default_lifecycle(jobschema_server):
    server = jobschema_server()
    headers = bearer(server)
    workload = _submit(server, headers, useGivenNameAsPrefix=True)
    assert (workload["actualPhase"], workload["desiredPhase"]) == ("Creating", "Running")
    assert workload["requestedName"] == "llama-sft"
    assert workload["name"].startswith("llama-sft-")
    assert workload["createdBy"] == server.credentials.runai_client_id
    phases = _phases(server, workload["workloadId"], 5, headers)
    assert phases == ["Creating", "Pending", "Running", "Completed", "Completed"]


def test_the_config_file_scripts_unknown_polls_and_faults_under_its_seed(jobschema_server):
    server = jobschema_server(config=REPO / "tests" / "fixtures" / "serve" / "lifecycle.toml", faults=[])
    headers = bearer(server)
    workload = _submit(server, headers)
    assert workload["actualPhase"] == "Unknown"
    phases = _phases(server, workload["workloadId"], 8, headers)
    assert phases == [
        "Unknown",
        "Creating",
        "Pending",
        "Pending",
        "Running",
        "Running",
        "Completed",
        "Completed",
    ]


def test_timed_steps_follow_the_clock(jobschema_server):
    clock = Clock()
    lifecycle = {"runai": ["Creating", {"phase": "Running", "seconds": 30}, "Completed"]}
    server = jobschema_server(lifecycle=lifecycle, clock=clock)
    headers = bearer(server)
    workload_id = _submit(server, headers)["workloadId"]
    seen = []
    for step in (0, 10, 10, 25):  # seconds the clock moves before each GET
        clock.now += step
        seen.append(_phases(server, workload_id, 1, headers)[0])
    assert seen == ["Creating", "Running", "Running", "Completed"]


def test_every_job_fails_at_fail_rate_one(jobschema_server):
    server = jobschema_server(config={"runai": {"fail_rate": 1.0}, "aihc": {"fail_rate": 1.0}})
    headers = bearer(server)
    assert _phases(server, _submit(server, headers)["workloadId"], 5, headers)[-1] == "Failed"


def test_not_found_right_after_submit(jobschema_server):
    server = jobschema_server(config={"runai": {"not_found_after_submit": 2}})
    headers = bearer(server)
    workload_id = _submit(server, headers)["workloadId"]
    with client(server) as http:
        codes = [http.get(f"{WORKLOADS}/{workload_id}", headers=headers).status_code for _ in range(3)]
    assert codes == [404, 404, 200]


def test_suspend_resume_and_delete(jobschema_server):
    server = jobschema_server(
        lifecycle={"runai": ["Creating", {"phase": "Running", "polls": 5}, "Completed"]}
    )
    headers = bearer(server)
    workload_id = _submit(server, headers)["workloadId"]
    seen = []
    with client(server) as http:

        def get():
            answer = http.get(f"{WORKLOADS}/{workload_id}", headers=headers)
            if answer.status_code != 200:
                return answer.status_code
            assert valid(answer.json(), "runai-distributed-workload")
            return answer.json()["actualPhase"], answer.json()["desiredPhase"]

        def act(verb, method="POST"):
            path = f"{WORKLOADS}/{workload_id}" + (f"/{verb}" if verb else "")
            answer = http.request(method, path, headers=headers)
            assert answer.status_code == 202
            assert valid(answer.json(), "runai-error")  # {code, message}
            return answer.json()

        seen += [get(), get()]
        assert act("suspend") == {"code": 202, "message": "Request to suspend workload accepted."}
        seen += [get(), get()]
        act("resume")
        seen += [get(), get()]
        act("", "DELETE")
        seen += [get(), get()]
    assert seen == [
        ("Creating", "Running"),
        ("Running", "Running"),
        ("Stopping", "Stopped"),
        ("Stopped", "Stopped"),
        ("Resuming", "Running"),
        ("Running", "Running"),
        ("Deleting", "Deleted"),
        404,
    ]


def test_a_submitted_aihc_job_can_end_failed_and_every_body_validates(jobschema_server):
    server = jobschema_server(lifecycle={"aihc": ["Pending", "Running", "Failed"]})
    from tests.serve_support import bce_config, bce_send

    created = bce_send(
        bce_config(server),
        "POST",
        "/api/v1/aijobs",
        {"resourcePoolId": POOL},
        job_request(jobFramework="MPIJob"),
    )
    job_id = created.result.job_id
    assert job_id.startswith("mpijob-")
    bodies = [
        signed_get(server, f"/api/v1/aijobs/{job_id}", {"resourcePoolId": POOL}).json() for _ in range(3)
    ]
    for body in bodies:
        result = validate_clean(body, "aihc-job-detail")
        assert result == []
    last = bodies[-1]["result"]
    assert last["status"] == "Failed"
    assert last["finishedAt"] != ""
    assert [pod["replicaType"] for pod in last["podList"]["pods"]] == ["launcher", "worker"]


def validate_clean(body, schema):
    from jobschema.validate import validate_payload

    result = validate_payload(body, schema)
    return [f"{f.pointer} {f.rule}" for f in result.findings]


def test_a_bad_submit_is_refused_with_a_valid_error(jobschema_server):
    server = jobschema_server()
    headers = bearer(server)
    with client(server) as http:
        missing = http.post(WORKLOADS, json={"name": "x"}, headers=headers)
        invalid = http.post(WORKLOADS, json=workload_request(clusterId="not-a-uuid"), headers=headers)
        garbage = http.post(WORKLOADS, content=b"{", headers=headers)
    assert (missing.status_code, missing.json()) == (
        400,
        {"code": 400, "message": "The request must give projectId."},
    )
    assert invalid.status_code == 400
    assert invalid.json()["details"] == '/clusterId: "not-a-uuid" is not a valid uuid [format]'
    assert garbage.json() == {
        "code": 400,
        "message": "The request body is not valid JSON: Expecting property name enclosed in double quotes.",
    }
    for answer in (missing, invalid, garbage):
        assert valid(answer.json(), "runai-error")


# ---------------------------------------------------------------------------------------- faults


def _fault_codes(seed):
    faults = [{"route": "runai.get", "rate": 0.25, "status": [429, 503], "retry_after": 3}]
    with start(captures=[str(RUNAI_HISTORY)], config=_config(faults, seed)) as server:
        headers = bearer(server)
        with client(server) as http:
            answers = [http.get(f"{WORKLOADS}/{HISTORY_WORKLOAD}", headers=headers) for _ in range(200)]
    for answer in answers:
        if answer.status_code != 200:
            assert answer.headers["retry-after"] == "3"
            assert answer.json()["code"] == answer.status_code
            assert valid(answer.json(), "runai-error")
    return [answer.status_code for answer in answers]


def _config(faults, seed):
    from jobschema.serve import parse_config

    return parse_config({"faults": faults, "seed": seed})


def test_faults_come_at_the_configured_rate_and_repeat_under_the_seed():
    first, again, other = _fault_codes(11), _fault_codes(11), _fault_codes(12)
    assert first == again
    assert first != other
    failed = [code for code in first if code != 200]
    assert 30 <= len(failed) <= 70  # 25% of 200, and the same count in every run of seed 11
    assert failed[:4] == [429, 503, 429, 503]  # the statuses in turn


def test_a_failed_request_does_not_count_as_a_poll(jobschema_server):
    server = jobschema_server([RUNAI_HISTORY], faults=[{"route": "runai.get", "rate": 0.5}], seed=3)
    headers = bearer(server)
    phases = []
    with client(server) as http:
        for _ in range(20):  # bounded
            answer = http.get(f"{WORKLOADS}/{HISTORY_WORKLOAD}", headers=headers)
            if answer.status_code == 200:
                phases.append(answer.json()["actualPhase"])
    assert phases[:4] == ["Pending", "Running", "Running", "Completed"]


def test_the_token_expires_after_token_expiry(jobschema_server):
    clock = Clock()
    server = jobschema_server(config={"runai": {"token_expiry": 60}}, clock=clock)
    issued = token(server)
    claims = token_payload(issued)
    assert claims["exp"] - claims["iat"] == 60
    headers = {"Authorization": f"Bearer {issued}"}
    with client(server) as http:
        clock.now += 59
        assert (
            http.get(f"{WORKLOADS}/00000000-0000-4000-8000-000000000000", headers=headers).status_code == 404
        )
        clock.now += 1
        expired = http.get(f"{WORKLOADS}/00000000-0000-4000-8000-000000000000", headers=headers)
    assert (expired.status_code, expired.json()) == (401, {"code": 401, "message": "Token is expired."})


def test_token_payloads_decode_with_standard_base64_as_runapy_does(jobschema_server):
    server = jobschema_server()
    for _ in range(30):  # bounded
        payload = token(server).split(".")[1]
        assert "-" not in payload and "_" not in payload


@pytest.mark.parametrize(
    "body",
    [
        {"grantType": "client_credentials", "clientID": "{id}", "clientSecret": "{secret}"},  # the spec
        {"grantType": "client_credentials", "clientId": "{id}", "clientSecret": "{secret}"},  # NeMo-Run
        {"GRANTTYPE": "client_credentials", "CLIENTID": "{id}", "CLIENTSECRET": "{secret}"},
        {"grantType": "app_token", "AppId": "{id}", "AppSecret": "{secret}"},  # runapy
        {"grantType": "app_token", "appID": "{id}", "appSecret": "{secret}"},  # the spec
    ],
)
def test_token_request_keys_match_case_insensitively(jobschema_server, body):
    server = jobschema_server()
    creds = server.credentials
    filled = {
        k: v.format(id=creds.runai_client_id, secret=creds.runai_client_secret) for k, v in body.items()
    }
    answer = httpx.post(f"{server.url}/api/v1/token", json=filled, timeout=TIMEOUT)
    assert answer.status_code == 200
    assert set(answer.json()) == {"accessToken", "idToken"}


def test_a_separate_app_pair_serves_the_legacy_grant_only(jobschema_server):
    creds = Credentials("cid", "csecret", "aid", "asecret", {})
    server = jobschema_server(credentials=creds)
    url = f"{server.url}/api/v1/token"
    app = httpx.post(
        url, json={"grantType": "app_token", "AppId": "aid", "AppSecret": "asecret"}, timeout=TIMEOUT
    )
    crossed = httpx.post(
        url, json={"grantType": "app_token", "AppId": "cid", "AppSecret": "csecret"}, timeout=TIMEOUT
    )
    assert (app.status_code, crossed.status_code) == (200, 401)


# ------------------------------------------------------------------------------------- generated


def test_generate_answers_unknown_ids_with_the_same_valid_bytes(jobschema_server):
    workload_id = "5f0c8b2e-1d3a-4c6e-9b7f-2a4d6e8f0a1c"
    bodies = []
    for _ in range(2):
        server = jobschema_server(generate=True)
        with client(server) as http:
            answer = http.get(f"{WORKLOADS}/{workload_id}", headers=bearer(server))
        assert answer.status_code == 200
        bodies.append(answer.content)
    assert bodies[0] == bodies[1]
    body = json.loads(bodies[0])
    assert body["workloadId"] == workload_id
    assert valid(body, "runai-distributed-workload")


def test_the_generator_starts_with_the_server_not_with_the_first_unknown_id(jobschema_server):
    """Its start-up (seconds on a busy machine) is not the first generated answer's wait."""
    server = jobschema_server(generate=True)
    generator = server.state.generator
    assert wait_for(lambda: generator._process is not None and not generator._lock.locked())
    assert generator._process.poll() is None
    assert jobschema_server().state.generator._process is None  # (only under --generate)


def test_generated_payloads_repeat_across_processes_and_differ_by_id(monkeypatch):
    from jobschema.serve.generated import Worker

    ids = ("5f0c8b2e-1d3a-4c6e-9b7f-2a4d6e8f0a1c", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    job_id = "pytorchjob-1e2d3c4b-5a69-4788-9a0b-c1d2e3f4a5b6"
    drawn = []
    for hash_seed in ("1", "2"):  # two worker processes, different string hashing
        monkeypatch.setenv("PYTHONHASHSEED", hash_seed)
        worker = Worker()
        try:
            drawn.append([worker.runai(ids[0], 0), worker.runai(ids[1], 0), worker.aihc(job_id, POOL, 0)])
        finally:
            worker.stop()
    assert json.dumps(drawn[0]) == json.dumps(drawn[1])
    first, second, job = drawn[0]
    assert first["workloadId"] == ids[0]
    assert {k: v for k, v in first.items() if k != "workloadId"} != {
        k: v for k, v in second.items() if k != "workloadId"
    }
    assert valid(first, "runai-distributed-workload") and valid(second, "runai-distributed-workload")
    assert valid(job, "aihc-job-detail")
    assert job["result"]["jobId"] == job_id
    assert job["result"]["resourcePoolId"] == POOL


# ------------------------------------------------------------------------- sources and the log


def test_an_invalid_capture_is_refused_with_its_findings(tmp_path):
    bad = tmp_path / "bad.json"
    capture = json.loads((RUNAI_EXAMPLES / "mpi-job.json").read_text(encoding="utf-8"))
    capture["desiredPhase"] = "Sleeping"
    bad.write_text(json.dumps(capture), encoding="utf-8")
    with pytest.raises(CapturesRefused) as caught:
        start(captures=[str(bad)])
    [result] = caught.value.catalog.refused
    assert [(f.pointer, f.rule) for f in result.findings] == [("/desiredPhase", "enum")]
    with start(captures=[str(bad)], serve_invalid=True) as server, client(server) as http:
        answer = http.get(f"{WORKLOADS}/{capture['workloadId']}", headers=bearer(server))
    assert answer.json()["desiredPhase"] == "Sleeping"


def test_the_access_log_masks_secrets_and_never_shows_credentials(jobschema_server):
    log = io.StringIO()
    server = jobschema_server([RUNAI_HISTORY], log=log)
    issued = token(server)
    with client(server) as http:
        http.get(
            f"{WORKLOADS}/{HISTORY_WORKLOAD}",
            params={"access_token": issued},
            headers={"Authorization": f"Bearer {issued}"},
        )
    signed_get(server, f"/api/v1/aijobs/{HISTORY_JOB}", {"resourcePoolId": POOL})
    # a line is written once its answer is sent: it may follow it (bounded: a hang fails below)
    wait_for(lambda: log.getvalue().count("\n") >= 3)
    lines = [line.rsplit(" ", 1)[0] for line in log.getvalue().splitlines()]  # drop the time
    from jobschema.secrets import mask

    assert lines == [
        "POST /api/v1/token 200",
        f"GET {WORKLOADS}/{HISTORY_WORKLOAD}?access_token={mask(issued)} 200",
        f"GET /api/v1/aijobs/{HISTORY_JOB}?resourcePoolId={POOL} 404",
    ]
    creds = server.credentials
    for secret in (issued, creds.runai_client_secret, creds.bce_secret_access_key, creds.bce_access_key_id):
        assert secret not in log.getvalue()


# ------------------------------------------------------------------------------ unreadable bodies

UNREADABLE = {
    "5000 digits": b"1" * 5000,
    "nested 100000 deep": b"[" * 100_000 + b"]" * 100_000,
    "not UTF-8": b'{"name": "\xff\xfe"}',
    "not JSON": b"name=sft&projectId=1",
}


def _post_runai(server, path: str, body: bytes) -> httpx.Response:
    headers = {} if path == TOKEN else bearer(server)
    return httpx.post(f"{server.url}{path}", content=body, headers=headers, timeout=TIMEOUT)


@pytest.mark.parametrize("body", UNREADABLE.values(), ids=UNREADABLE.keys())
@pytest.mark.parametrize(
    "path",
    [TOKEN, WORKLOADS, f"{WORKLOADS}/{HISTORY_WORKLOAD}/suspend", f"{WORKLOADS}/{HISTORY_WORKLOAD}/resume"],
)
def test_a_body_run_ai_cannot_read_is_400_with_its_error_body(jobschema_server, path, body):
    server = jobschema_server([RUNAI_HISTORY])
    answer = _post_runai(server, path, body)
    assert answer.status_code == 400, answer.text
    assert valid(answer.json(), "runai-error")
    assert answer.json()["message"].startswith("The request body is not valid JSON: ")


@pytest.mark.parametrize("body", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_body_aihc_cannot_read_is_400_malformed_json(jobschema_server, body):
    server = jobschema_server()
    params = {"resourcePoolId": POOL}
    headers = bce_headers(server, "POST", AIJOBS, params)
    answer = httpx.post(
        f"{server.url}{AIJOBS}", params=params, content=body, headers=headers, timeout=TIMEOUT
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "MalformedJSON"
    assert valid(answer.json(), "aihc-error")


@pytest.mark.parametrize("verb", ["suspend", "resume"])
def test_a_deleted_workload_is_never_revived(jobschema_server, verb):
    server = jobschema_server([RUNAI_HISTORY])
    headers = bearer(server)
    for workload_id in (_submit(server, headers)["workloadId"], HISTORY_WORKLOAD):
        path = f"{WORKLOADS}/{workload_id}"
        with client(server) as http:
            assert http.delete(path, headers=headers).status_code == 202
            during = http.post(f"{path}/{verb}", headers=headers)
            again = http.delete(path, headers=headers)  # Deleting: accepted, changes nothing
            polled = http.get(path, headers=headers)
            after = [http.post(f"{path}/{verb}", headers=headers), http.delete(path, headers=headers)]
            gone = http.get(path, headers=headers)
        assert (during.status_code, during.json()) == (
            409,
            {"code": 409, "message": "The workload is being deleted."},
        )
        assert (again.status_code, again.json()["code"]) == (202, 202)
        assert (polled.json()["actualPhase"], polled.json()["desiredPhase"]) == ("Deleting", "Deleted")
        assert [answer.status_code for answer in after] == [404, 404]
        assert (gone.status_code, gone.json()) == (404, {"code": 404, "message": "Resource id not found."})
