"""``jobschema serve`` reviewed against real clients and hostile peers: a job drawn to fail keeps its
fate through suspend and resume; a server stopping answers the requests still arriving in the API's
error body; what submitted jobs hold is bounded by size as well as by count; the access log says
what was answered; and bce-python-sdk's own AIHC v2 client (``baidubce.services.aihc``) and runapy's
token refresh work against the stub."""

from __future__ import annotations

import io
import json
import threading
import warnings
from typing import Any

import httpx
import pytest

from jobschema.serve import start
from jobschema.serve.config import Step
from jobschema.serve.limits import KiB, Limits
from jobschema.serve.protocol import SHUTTING_DOWN
from jobschema.serve.runai import resumed
from tests.serve_support import (
    AIHC_EXAMPLES,
    FINISHED,
    POOL,
    TIMEOUT,
    bearer,
    client,
    connect,
    job_request,
    parse_answer,
    read_all,
    request_head,
    runapy_client,
    valid,
    wait_for,
    workload_request,
)
from tests.support import REPO

WORKLOADS = "/api/v1/workloads/distributed"
V2_EXAMPLES = REPO / "schemas" / "examples" / "aihc-v2-job"

# ------------------------------------------------------------------ a job's fate through resume


@pytest.mark.parametrize(
    ("lifecycle", "after_resume"),
    [
        (["Creating", "Pending", {"phase": "Running", "polls": 3}, "Completed"], ["Running"] * 3),
        (["Creating", "Pending", "Completed"], ["Running"]),  # no running phase: one poll of Running
        (["Creating", "Degraded", "Running", "Completed"], ["Degraded", "Running"]),
    ],
)
def test_a_workload_drawn_to_fail_still_fails_after_suspend_and_resume(
    jobschema_server, lifecycle, after_resume
):
    fail_phase = "Failed"
    server = jobschema_server(
        lifecycle={"runai": lifecycle},
        config={"runai": {"fail_rate": 1.0, "fail_phase": fail_phase}},
    )
    headers = bearer(server)
    with client(server) as http:
        workload_id = http.post(WORKLOADS, json=workload_request(), headers=headers).json()["workloadId"]
        assert http.post(f"{WORKLOADS}/{workload_id}/suspend", headers=headers).status_code == 202
        assert http.post(f"{WORKLOADS}/{workload_id}/resume", headers=headers).status_code == 202
        phases = [
            http.get(f"{WORKLOADS}/{workload_id}", headers=headers).json()["actualPhase"]
            for _ in range(len(after_resume) + 3)
        ]
    assert phases == ["Resuming", *after_resume, fail_phase, fail_phase]


def test_a_workload_not_drawn_to_fail_ends_as_its_lifecycle_after_resume(jobschema_server):
    server = jobschema_server(lifecycle={"runai": ["Creating", "Running", "Completed"]})
    headers = bearer(server)
    with client(server) as http:
        workload_id = http.post(WORKLOADS, json=workload_request(), headers=headers).json()["workloadId"]
        http.post(f"{WORKLOADS}/{workload_id}/suspend", headers=headers)
        http.post(f"{WORKLOADS}/{workload_id}/resume", headers=headers)
        phases = [
            http.get(f"{WORKLOADS}/{workload_id}", headers=headers).json()["actualPhase"] for _ in range(4)
        ]
    assert phases == ["Resuming", "Running", "Completed", "Completed"]


def test_resumed_ends_in_the_phase_it_is_given():
    steps = (Step("Creating"), Step("Running", 2), Step("Completed"))
    assert [step.phase for step in resumed(steps, "Failed")] == ["Resuming", "Running", "Failed"]
    assert [step.phase for step in resumed(steps)] == ["Resuming", "Running", "Completed"]


# ----------------------------------------------------------------------- stopping with requests open


def _open_requests(server: Any) -> int:
    return len(server._server.server_state.tasks)


@pytest.mark.parametrize(
    ("target", "schema"),
    [
        ("/api/v1/token", "runai-error"),
        ("/api/v1/workloads/distributed", "runai-error"),
        (f"/api/v1/aijobs?resourcePoolId={POOL}", "aihc-error"),
        (f"/?action=DescribeJob&resourcePoolId={POOL}", "aihc-error"),
    ],
)
def test_a_request_still_arriving_when_the_server_stops_gets_503_in_the_api_body(target, schema):
    log = io.StringIO()
    server = start(limits=Limits(request_timeout=TIMEOUT * 2, idle_timeout=TIMEOUT * 2), log=log)
    try:
        with connect(server) as body_under_way, connect(server) as head_under_way:
            head = request_head("POST", target, "Content-Type: application/json", "Content-Length: 100")
            body_under_way.sendall(head + b'{"grantType"')
            head_under_way.sendall(f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-".encode())
            assert wait_for(lambda: _open_requests(server) == 1)  # the first one's route is reading
            stopping = threading.Thread(target=server.stop)
            stopping.start()
            answers = [parse_answer(read_all(sock)) for sock in (body_under_way, head_under_way)]
            stopping.join(TIMEOUT)
    finally:
        server.stop()
    for answer in answers:
        assert (answer.status, answer.headers["connection"]) == (503, "close")
        assert answer.json()["message"] == SHUTTING_DOWN
        assert valid(answer.json(), schema)
    method_and_path = f"POST {target.split('?')[0]}"
    lines = [line for line in log.getvalue().splitlines() if line.startswith(method_and_path)]
    # one line each: the route's that was reading the body, the protocol's for the head (round 9)
    assert [line.split(" ")[2] for line in lines] == ["503", "503"], log.getvalue()
    assert "Exception" not in log.getvalue()


def test_a_peer_that_leaves_before_its_body_is_whole_is_logged_as_unanswered(jobschema_server):
    log = io.StringIO()
    server = jobschema_server(log=log)
    with connect(server) as sock:
        sock.sendall(request_head("POST", "/api/v1/token", "Content-Length: 100") + b"{")
        assert wait_for(lambda: _open_requests(server) == 1)
    assert wait_for(lambda: "POST /api/v1/token" in log.getvalue())
    assert log.getvalue().split("POST /api/v1/token ")[1].split(" ")[0] == "-"


# ------------------------------------------------------------------- memory a peer can make us hold


def _big_workload(size: int) -> dict[str, Any]:
    env = [{"name": f"E{i}", "value": "x" * 40} for i in range(size // 60)]
    return workload_request(spec={"image": "nvcr.io/nvidia/pytorch:24.05-py3", "environmentVariables": env})


def test_submitted_workloads_are_bounded_by_the_size_they_keep(jobschema_server):
    limits = Limits(max_body=64 * KiB, max_kept=128 * KiB)
    server = jobschema_server(limits=limits, lifecycle={"runai": ["Creating", "Running", "Completed"]})
    headers = bearer(server)
    with client(server) as http:
        kept = []
        for _ in range(3):
            answer = http.post(WORKLOADS, json=_big_workload(50 * KiB), headers=headers)
            if answer.status_code != 202:
                break
            kept.append(answer.json()["workloadId"])
        assert len(kept) == 2  # a third 50 KiB job would pass 128 KiB
        assert answer.status_code == 503
        assert answer.json() == {
            "code": 503,
            "message": "128 KiB of live workloads are kept (max_kept): try again once one finishes "
            "or is deleted.",
        }
        assert valid(answer.json(), "runai-error")
        small = http.post(WORKLOADS, json=workload_request(), headers=headers)
        assert small.status_code == 202  # a small one still fits
        for _ in range(3):  # the first big one finishes: it makes room
            http.get(f"{WORKLOADS}/{kept[0]}", headers=headers)
        again = http.post(WORKLOADS, json=_big_workload(50 * KiB), headers=headers)
        assert again.status_code == 202, again.text
    jobs = server.state.runai_jobs
    assert kept[0] not in jobs
    assert jobs.kept == sum(job.size for job in jobs.submitted.values()) <= limits.max_kept


def test_an_aihc_create_past_the_kept_size_is_503_service_unavailable(jobschema_server):
    from tests.serve_support import bce_headers

    server = jobschema_server(limits=Limits(max_body=64 * KiB, max_kept=48 * KiB))
    envs = [{"name": f"E{i}", "value": "x" * 40} for i in range(300)]  # a job of about 20 KiB
    request = job_request(jobSpec={**job_request()["jobSpec"], "envs": envs})
    codes = []
    with client(server) as http:
        for _ in range(3):
            body = json.dumps(request).encode()
            headers = bce_headers(server, "POST", "/api/v1/aijobs", {"resourcePoolId": POOL})
            answer = http.post(
                "/api/v1/aijobs",
                params={"resourcePoolId": POOL},
                content=body,
                headers={**headers, "Content-Type": "application/json"},
            )
            codes.append(answer.status_code)
    assert codes == [200, 200, 503], [job.size for job in server.state.aihc_jobs.submitted.values()]
    assert answer.json()["code"] == "ServiceUnavailable"
    assert "(max_kept)" in answer.json()["message"]
    assert valid(answer.json(), "aihc-error")


def test_the_kept_size_defaults_to_sixteen_bodies_and_refuses_nonsense():
    assert Limits().max_kept == 16 * Limits().max_body
    assert Limits(max_body=KiB).max_kept == 16 * KiB
    assert Limits(max_kept=5).max_kept == 5
    with pytest.raises(ValueError, match="max_kept"):
        Limits(max_kept=-1)


def test_a_job_keeps_one_encoded_body_whatever_its_phases(jobschema_server):
    steps = ["Creating", "Pending", "Running", "Running", "Running", "Completed"]
    server = jobschema_server(lifecycle={"runai": steps})
    headers = bearer(server)
    with client(server) as http:
        workload_id = http.post(WORKLOADS, json=workload_request(), headers=headers).json()["workloadId"]
        for _ in range(len(steps)):
            http.get(f"{WORKLOADS}/{workload_id}", headers=headers)
    job = server.state.runai_jobs.submitted[workload_id]
    assert job._body is not None and json.loads(job._body[1])["actualPhase"] == "Completed"


# ------------------------------------------------- bce-python-sdk's own AIHC v2 client (a real one)


def _bce_v2_client(server: Any, secret: str | None = None) -> Any:
    pytest.importorskip("baidubce.services.aihc.aihc_client", reason="bce-python-sdk brings the AIHC client")
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.bce_client_configuration import BceClientConfiguration
    from baidubce.retry.retry_policy import NoRetryPolicy
    from baidubce.services.aihc.aihc_client import AihcClient

    creds = server.credentials
    given = BceCredentials(creds.bce_access_key_id, secret or creds.bce_secret_access_key)
    return AihcClient(
        BceClientConfiguration(credentials=given, endpoint=server.url, retry_policy=NoRetryPolicy())
    )


def _quietly(call: Any, *args: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # the SDK leaves its socket to the GC
        return call(*args)


def test_bce_python_sdk_describes_a_v1_and_a_v2_capture(jobschema_server):
    capture = json.loads((V2_EXAMPLES / "sdk-running-4-pods.json").read_text(encoding="utf-8"))["job"]
    server = jobschema_server([AIHC_EXAMPLES, V2_EXAMPLES / "sdk-running-4-pods.json"])
    sdk = _bce_v2_client(server)
    v1 = _quietly(sdk.DescribeJob, POOL, "default", FINISHED, True)
    assert (v1.job.jobid, v1.job.status) == (FINISHED, "Succeeded")
    v2 = _quietly(sdk.DescribeJob, capture["resourcePoolId"], "default", capture["jobid"], True)
    assert (v2.job.jobid, v2.job.status) == (capture["jobid"], capture["status"])
    assert [pod.name for pod in v2.job.pods] == [pod["name"] for pod in capture["pods"]]
    brief = _quietly(sdk.DescribeJob, capture["resourcePoolId"], "default", capture["jobid"], False)
    assert "pods" not in vars(brief.job) and "pods" in vars(v2.job)  # (an Expando answers None)


def test_bce_python_sdk_creates_a_job_and_polls_it_to_its_end(jobschema_server):
    server = jobschema_server(lifecycle={"aihc": ["Pending", {"phase": "Running", "polls": 2}, "Failed"]})
    sdk = _bce_v2_client(server)
    spec = {k: v for k, v in job_request()["jobSpec"].items() if k != "command"}
    created = _quietly(sdk.CreateJob, POOL, "default", "qwen-sft", "torchrun train.py", spec)
    assert created.jobId.startswith("pytorchjob-") and created.jobName == "qwen-sft"
    statuses = [_quietly(sdk.DescribeJob, POOL, "default", created.jobId, False).job.status for _ in range(5)]
    assert statuses == ["Pending", "Running", "Running", "Failed", "Failed"]


@pytest.mark.parametrize(
    ("secret", "job_id", "status", "code"),
    [
        ("0" * 32, FINISHED, 400, "SignatureDoesNotMatch"),
        (None, "pytorchjob-00000000-0000-4000-8000-000000000000", 404, "cce.warning.GetAIJobByJobIdFailed"),
    ],
)
def test_bce_python_sdk_reads_the_documented_errors(jobschema_server, secret, job_id, status, code):
    from baidubce.exception import BceHttpClientError

    server = jobschema_server([AIHC_EXAMPLES])
    with pytest.raises(BceHttpClientError) as caught:
        _quietly(_bce_v2_client(server, secret).DescribeJob, POOL, "default", job_id, True)
    error = caught.value.last_error
    assert (error.status_code, error.code) == (status, code)
    assert error.request_id


# --------------------------------------------------------------------------- runapy's token refresh


def test_runapy_refreshes_a_token_about_to_expire_and_the_new_one_opens_the_api(jobschema_server):
    from runai.api.distributed_api import DistributedApi

    log = io.StringIO()
    # a token living 30 s is inside runapy's 60 s refresh margin: it asks for a new one every call
    server = jobschema_server(config={"runai": {"token_expiry": 30}}, log=log)
    request = {"name": "bert", "projectId": "7", "clusterId": "3f5c2a1e-9b8d-4c7f-a6e5-0d1b2c3a4f56"}
    with runapy_client(server, retry_enabled=False) as api:
        first = api._token
        submitted = DistributedApi(api).create_distributed(request)
        phases = [DistributedApi(api).get_distributed(submitted.data["workloadId"]).data["actualPhase"]]
        phases += [DistributedApi(api).get_distributed(submitted.data["workloadId"]).data["actualPhase"]]
        assert api._token != first
    assert submitted.status_code == 202
    assert phases == ["Creating", "Pending"]
    tokens = [line for line in log.getvalue().splitlines() if line.startswith("POST /api/v1/token ")]
    assert [line.split(" ")[2] for line in tokens] == ["200"] * 4  # one to start, one before each call


def test_an_expired_token_is_401_with_the_documented_message(jobschema_server):
    from tests.serve_support import Clock

    clock = Clock()
    server = jobschema_server(config={"runai": {"token_expiry": 30}}, clock=clock)
    headers = bearer(server)
    with client(server) as http:
        clock.now += 30
        answer = http.get(f"{WORKLOADS}/00000000-0000-4000-8000-000000000000", headers=headers)
    assert (answer.status_code, answer.json()) == (401, {"code": 401, "message": "Token is expired."})


def test_a_pooled_client_is_not_handed_a_refused_connection_again(jobschema_server):
    server = jobschema_server(limits=Limits(max_body=16))
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        refused = http.post("/api/v1/token", content=b"x" * 64)
        assert (refused.status_code, refused.headers["connection"]) == (413, "close")
        again = http.post("/api/v1/token", json={})
        assert again.status_code == 400
