"""``jobschema serve``'s AIHC job actions, v1 and v2 alike: stop, delete and a priority change.

v1 (``DELETE /api/v1/aijobs/{jobId}``, ``POST …/{jobId}/stop``, ``PUT …/{jobId}``) is driven through
the Baidu SDK's own signer and HTTP client, as bce-sdk-go's ``DeleteJob``/``StopJob``/``UpdateJob``
call it; v2 (``POST /?action=StopJob|DeleteJob|ModifyJob``) through both of Baidu's v2 clients
(baiducloud-python-sdk-aihc's ``AihcClient.stop_job``/``delete_job``/``modify_job`` and
bce-python-sdk's ``AihcClient.StopJob``/``DeleteJob``/``ModifyJob``). A stopped job goes
``Stopping`` for one poll, then ``ManualTermination`` (terminal); a deleted job answers
``cce.warning.GetAIJobByJobIdFailed`` afterwards exactly as an unknown one does; a finished job is
not stopped (409 ``JobAlreadyFinished``).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.serve import RunningServer
from tests.record_support import submit_job
from tests.serve_support import (
    AIHC_EXAMPLES,
    AIHC_HISTORY,
    FINISHED,
    HISTORY_JOB,
    POOL,
    TIMEOUT,
    bce_headers,
    valid,
)
from tests.support import REPO

pytest.importorskip("baidubce", reason="the test extra brings Baidu's SDK")

NOT_FOUND = "cce.warning.GetAIJobByJobIdFailed"
V2_CAPTURE = REPO / "schemas" / "examples" / "aihc-v2-job" / "sdk-running-4-pods.json"
RUNNING_CAPTURE = "pytorchjob-7c1e5a2b-93d4-4f0e-b6a8-2d5f1c9e0a34"  # multi-pod-pytorch.json
RUNNING_POOL = "cce-e0isdmib"
LONG = {"aihc": ["Pending", {"phase": "Running", "polls": 50}, "Succeeded"]}
STOPPED = ["Stopping", "ManualTermination", "ManualTermination"]


# ------------------------------------------------------------------------------------------ clients


def send(
    server: RunningServer,
    method: str,
    path: str,
    params: dict[str, str] | None = None,
    body: Any = None,
    secret: str | None = None,
    signed: bool = True,
) -> httpx.Response:
    """A request signed by the Baidu SDK's signer (or not signed at all), sent with httpx."""
    params = {"resourcePoolId": POOL} if params is None else params
    headers = bce_headers(server, method, path, params, secret) if signed else {}
    content = None if body is None else json.dumps(body).encode()
    return httpx.request(
        method, f"{server.url}{path}", params=params, headers=headers, content=content, timeout=TIMEOUT
    )


def v1(server: RunningServer, verb: str, job: str, pool: str = POOL, **kw: Any) -> httpx.Response:
    """A v1 call: ``get``, ``stop``, ``delete`` or ``priority`` (``kw['body']`` the PUT's body)."""
    method, suffix = {"get": ("GET", ""), "stop": ("POST", "/stop"), "delete": ("DELETE", "")}.get(
        verb, ("PUT", "")
    )
    return send(server, method, f"/api/v1/aijobs/{job}{suffix}", {"resourcePoolId": pool}, **kw)


def v2(server: RunningServer, action: str, body: Any, pool: str = POOL, **kw: Any) -> httpx.Response:
    params = {"action": action, "resourcePoolId": pool, "queueID": "default"}
    return send(server, "POST", "/", params, body, **kw)


def status(server: RunningServer, job: str, pool: str = POOL) -> str:
    answer = v1(server, "get", job, pool)
    assert answer.status_code == 200, answer.text
    assert valid(answer.json(), "aihc-job-detail")
    return str(answer.json()["result"]["status"])


def v2_status(server: RunningServer, job: str, pool: str = POOL) -> str:
    answer = v2(server, "DescribeJob", {"jobId": job, "needDetail": True}, pool)
    assert answer.status_code == 200, answer.text
    assert valid(answer.json(), "aihc-v2-job")
    return str(answer.json()["job"]["status"])


def error(answer: httpx.Response, status_code: int, code: str) -> dict[str, Any]:
    """The error body, checked: its status, code, schema and request id header."""
    assert answer.status_code == status_code, answer.text
    body = answer.json()
    assert valid(body, "aihc-error") and body["code"] == code
    assert answer.headers["x-bce-request-id"] == body["requestId"]
    return dict(body)


def ok(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert answer.headers["x-bce-request-id"] == body["requestId"]
    return dict(body)


def quietly(call: Any, *args: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # the SDKs leave their sockets to the GC
        return call(*args)


def aihc_sdk(server: RunningServer, secret: str | None = None) -> Any:
    """baiducloud-python-sdk-aihc's client."""
    pytest.importorskip("baiducloud_python_sdk_aihc", reason="the test extra brings Baidu's AIHC SDK")
    from baiducloud_python_sdk_aihc.api.aihc_client import AihcClient
    from baiducloud_python_sdk_core.auth.bce_credentials import BceCredentials
    from baiducloud_python_sdk_core.bce_client_configuration import BceClientConfiguration
    from baiducloud_python_sdk_core.retry.retry_policy import NoRetryPolicy

    creds = server.credentials
    given_ = BceCredentials(creds.bce_access_key_id, secret or creds.bce_secret_access_key)
    return AihcClient(
        BceClientConfiguration(credentials=given_, endpoint=server.url, retry_policy=NoRetryPolicy())
    )


def bce_sdk(server: RunningServer, secret: str | None = None) -> Any:
    """bce-python-sdk's AIHC client (it sends ``X-API-Version: v2``)."""
    pytest.importorskip("baidubce.services.aihc.aihc_client", reason="bce-python-sdk brings the AIHC client")
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.bce_client_configuration import BceClientConfiguration
    from baidubce.retry.retry_policy import NoRetryPolicy
    from baidubce.services.aihc.aihc_client import AihcClient

    creds = server.credentials
    given_ = BceCredentials(creds.bce_access_key_id, secret or creds.bce_secret_access_key)
    return AihcClient(
        BceClientConfiguration(credentials=given_, endpoint=server.url, retry_policy=NoRetryPolicy())
    )


def sdk_refusal(call: Any, *args: Any) -> Any:
    """The server's error as an SDK raises it (its HTTP client wraps it)."""
    with pytest.raises(Exception) as raised:
        quietly(call, *args)
    return raised.value.last_error


# ------------------------------------------------------------------------------------------ v1


def test_v1_stop_answers_the_job_id_and_the_job_stops(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    assert [status(server, job) for _ in range(2)] == ["Pending", "Running"]
    answer = ok(v1(server, "stop", job))
    assert set(answer) == {"requestId", "result"} and answer["result"] == {"jobId": job}
    assert [status(server, job) for _ in range(3)] == STOPPED
    detail = v1(server, "get", job).json()["result"]
    assert detail["finishedAt"] and detail["runningAt"]
    assert {pod["podStatus"]["status"] for pod in detail["podList"]["pods"]} == {"ManualTermination"}


def test_v1_delete_answers_id_and_name_and_the_job_is_then_unknown(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    assert status(server, job) == "Pending"
    answer = ok(v1(server, "delete", job))
    assert set(answer) == {"requestId", "result"}
    assert answer["result"] == {"jobId": job, "jobName": "qwen-sft"}
    unknown = "pytorchjob-00000000-0000-4000-8000-000000000000"
    for verb in ("get", "stop", "delete", "priority"):
        gone = error(v1(server, verb, job, body={"priority": "high"}), 404, NOT_FOUND)
        never = error(v1(server, verb, unknown, body={"priority": "high"}), 404, NOT_FOUND)
        assert gone["message"] == never["message"].replace(unknown, job)
    assert job not in server.state.aihc_jobs and server.state.aihc_jobs.kept == 0  # its bodies freed


def test_v1_actions_through_the_baidu_sdk_client(jobschema_server):
    """The SDK's own HTTP client and signer, the shapes bce-sdk-go's structs read."""
    from baidubce.exception import BceServerError

    from tests.serve_support import bce_config, bce_send

    server = jobschema_server(lifecycle=LONG)
    config, job = bce_config(server), submit_job(server)
    path = f"/api/v1/aijobs/{job}"
    updated = bce_send(config, "PUT", path, {"resourcePoolId": POOL}, {"priority": "high"})
    assert updated.result.job_id == job
    stopped = bce_send(config, "POST", f"{path}/stop", {"resourcePoolId": POOL})
    assert stopped.result.job_id == job
    deleted = bce_send(config, "DELETE", path, {"resourcePoolId": POOL})
    assert (deleted.result.job_id, deleted.result.job_name) == (job, "qwen-sft")
    with pytest.raises(BceServerError) as gone:
        bce_send(config, "GET", path, {"resourcePoolId": POOL})
    assert (gone.value.status_code, gone.value.code) == (404, NOT_FOUND)


def test_v1_priority_is_changed_and_checked(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    assert ok(v1(server, "priority", job, body={"priority": "high"}))["result"] == {"jobId": job}
    detail = v1(server, "get", job).json()
    assert valid(detail, "aihc-job-detail") and detail["result"]["priority"] == "high"
    for body in ({"priority": "urgent"}, {"priority": 3}, {}, None, [1]):
        said = error(v1(server, "priority", job, body=body), 400, "InvalidParam")
        assert "priority" in said["message"] or "JSON object" in said["message"]
    assert v1(server, "get", job).json()["result"]["priority"] == "high"
    error(send_raw(server, "PUT", job, b"{not json"), 400, "MalformedJSON")
    error(send_raw(server, "POST", f"{job}/stop", b"{not json"), 400, "MalformedJSON")
    assert status(server, job) == "Running"  # a body the stop could not read stopped nothing


def send_raw(server: RunningServer, method: str, job: str, content: bytes) -> httpx.Response:
    path, params = f"/api/v1/aijobs/{job}", {"resourcePoolId": POOL}
    headers = bce_headers(server, method, path, params)
    return httpx.request(
        method, f"{server.url}{path}", params=params, headers=headers, content=content, timeout=TIMEOUT
    )


@pytest.mark.parametrize("verb", ["stop", "priority"])
def test_a_finished_job_is_a_conflict_and_stays_as_it_ended(jobschema_server, verb):
    server = jobschema_server(lifecycle={"aihc": ["Pending", "Succeeded"]})
    job = submit_job(server)
    assert [status(server, job) for _ in range(2)] == ["Pending", "Succeeded"]
    said = error(v1(server, verb, job, body={"priority": "low"}), 409, "JobAlreadyFinished")
    assert said["message"] == f"The job {job} has finished (Succeeded)."
    assert status(server, job) == "Succeeded"
    assert v1(server, "get", job).json()["result"]["priority"] == "normal"


def test_a_stopped_job_is_finished_too_and_a_stopping_one_is_stopped_once(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    ok(v1(server, "stop", job))
    ok(v1(server, "stop", job))  # while Stopping: accepted, nothing changes
    assert [status(server, job) for _ in range(2)] == ["Stopping", "ManualTermination"]
    said = error(v1(server, "stop", job), 409, "JobAlreadyFinished")
    assert said["message"] == f"The job {job} has finished (ManualTermination)."


def test_another_pool_s_job_is_not_found_and_left_alone(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    for verb in ("stop", "delete", "priority"):
        error(v1(server, verb, job, "cce-another", body={"priority": "high"}), 404, NOT_FOUND)
    assert status(server, job) == "Pending"


def test_a_job_not_visible_yet_is_not_found(jobschema_server):
    server = jobschema_server(config={"aihc": {"not_found_after_submit": 1}})
    job = submit_job(server)
    error(v1(server, "stop", job), 404, NOT_FOUND)
    error(v1(server, "delete", job), 404, NOT_FOUND)
    error(v1(server, "get", job), 404, NOT_FOUND)  # (the GET that makes it visible)
    assert status(server, job) == "Pending"


def test_a_captured_job_is_stopped_with_its_pods_and_deleted(jobschema_server):
    server = jobschema_server([AIHC_EXAMPLES])
    captured = v1(server, "get", RUNNING_CAPTURE, RUNNING_POOL).json()["result"]
    assert captured["status"] == "Running"
    ok(v1(server, "stop", RUNNING_CAPTURE, RUNNING_POOL))
    assert [status(server, RUNNING_CAPTURE, RUNNING_POOL) for _ in range(3)] == STOPPED
    after = v1(server, "get", RUNNING_CAPTURE, RUNNING_POOL).json()["result"]
    assert [pod["objectMeta"]["name"] for pod in after["podList"]["pods"]] == [
        pod["objectMeta"]["name"] for pod in captured["podList"]["pods"]
    ]
    assert after["finishedAt"] and after["name"] == captured["name"]
    error(v1(server, "stop", FINISHED), 409, "JobAlreadyFinished")  # a capture that has finished
    name = json.loads((AIHC_EXAMPLES / "finished-job.json").read_text(encoding="utf-8"))["result"]["name"]
    assert ok(v1(server, "delete", FINISHED))["result"] == {"jobId": FINISHED, "jobName": name}
    error(v1(server, "get", FINISHED), 404, NOT_FOUND)


def test_a_captured_history_is_stopped_where_it_is(jobschema_server):
    server = jobschema_server([AIHC_HISTORY])
    assert status(server, HISTORY_JOB) == "Created"
    ok(v1(server, "priority", HISTORY_JOB, body={"priority": "high"}))
    ok(v1(server, "stop", HISTORY_JOB))
    assert [status(server, HISTORY_JOB) for _ in range(3)] == STOPPED
    assert v1(server, "get", HISTORY_JOB).json()["result"]["priority"] == "high"


def test_a_deleted_generated_job_is_not_generated_again(jobschema_server):
    server = jobschema_server(generate=True)
    job = "pytorchjob-1e2d3c4b-5a69-4788-9a0b-c1d2e3f4a5b6"
    name = v1(server, "get", job).json()["result"]["name"]
    assert ok(v1(server, "delete", job))["result"] == {"jobId": job, "jobName": name}
    error(v1(server, "get", job), 404, NOT_FOUND)
    fresh = "pytorchjob-2e2d3c4b-5a69-4788-9a0b-c1d2e3f4a5b6"  # never asked for: generated, then deleted
    assert ok(v1(server, "delete", fresh))["result"]["jobId"] == fresh
    error(v2(server, "DescribeJob", {"jobId": fresh}), 404, NOT_FOUND)


# ------------------------------------------------------------------------------------------ v2


def test_v2_actions_answer_as_the_sdk_models_read_them(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    assert ok(v2(server, "ModifyJob", {"jobId": job, "priority": "low"})).keys() == {"requestId", "jobId"}
    assert v2(server, "DescribeJob", {"jobId": job}).json()["job"]["priority"] == "low"
    stopped = ok(v2(server, "StopJob", {"jobId": job}))
    assert stopped == {"requestId": stopped["requestId"], "jobId": job}
    assert [v2_status(server, job) for _ in range(3)] == STOPPED
    deleted = ok(v2(server, "DeleteJob", {"jobId": job}))
    assert deleted == {"requestId": deleted["requestId"], "jobId": job, "jobName": "qwen-sft"}
    for action in ("DescribeJob", "StopJob", "DeleteJob", "ModifyJob"):
        error(v2(server, action, {"jobId": job, "priority": "low"}), 404, NOT_FOUND)


def test_v2_modify_job_checks_the_priority_as_v2_checks_types(jobschema_server):
    server = jobschema_server()
    job = submit_job(server)
    said = error(v2(server, "ModifyJob", {"jobId": job, "priority": 1}), 400, "MalformedJSON")
    assert said["message"] == "priority must be a string"
    said = error(v2(server, "ModifyJob", {"jobId": job, "priority": "top"}), 400, "InvalidParam")
    assert said["message"] == "priority must be one of high, normal, low"
    error(v2(server, "ModifyJob", {"jobId": job}), 400, "InvalidParam")
    assert v2(server, "DescribeJob", {"jobId": job}).json()["job"]["priority"] == "normal"


@pytest.mark.parametrize("action", ["DescribeJob", "StopJob", "DeleteJob", "ModifyJob"])
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "InvalidParam"),
        ({"jobId": ""}, "InvalidParam"),
        ({"jobId": 7}, "MalformedJSON"),
        ([], "MalformedJSON"),
    ],
)
def test_v2_actions_name_a_missing_or_wrong_job_id(jobschema_server, action, body, code):
    server = jobschema_server()
    said = error(v2(server, action, body), 400, code)
    assert "jobId" in said["message"] or "JSON object" in said["message"]


def test_baiducloud_sdk_stops_modifies_and_deletes(jobschema_server):
    from baiducloud_python_sdk_aihc.models.delete_job_request import DeleteJobRequest
    from baiducloud_python_sdk_aihc.models.modify_job_request import ModifyJobRequest
    from baiducloud_python_sdk_aihc.models.stop_job_request import StopJobRequest

    server = jobschema_server(lifecycle=LONG)
    sdk, job = aihc_sdk(server), submit_job(server)
    modified = quietly(sdk.modify_job, ModifyJobRequest(POOL, "default", job, "high"))
    assert modified.job_id == job and modified.request_id
    stopped = quietly(sdk.stop_job, StopJobRequest(POOL, "default", job))
    assert stopped.job_id == job and stopped.request_id
    assert [v2_status(server, job) for _ in range(3)] == STOPPED
    deleted = quietly(sdk.delete_job, DeleteJobRequest(POOL, "default", job))
    assert (deleted.job_id, deleted.job_name) == (job, "qwen-sft")
    gone = sdk_refusal(sdk.stop_job, StopJobRequest(POOL, "default", job))
    assert (gone.status_code, gone.code) == (404, NOT_FOUND)
    wrong = sdk_refusal(aihc_sdk(server, "f" * 32).delete_job, DeleteJobRequest(POOL, "default", job))
    assert (wrong.status_code, wrong.code) == (400, "SignatureDoesNotMatch")


def test_bce_python_sdk_stops_modifies_and_deletes(jobschema_server):
    server = jobschema_server(lifecycle=LONG)
    sdk, job = bce_sdk(server), submit_job(server)
    assert quietly(sdk.ModifyJob, POOL, "default", job, "low").jobId == job
    assert quietly(sdk.StopJob, POOL, "default", job).jobId == job
    assert [quietly(sdk.DescribeJob, POOL, "default", job, False).job.status for _ in range(3)] == STOPPED
    finished = sdk_refusal(sdk.StopJob, POOL, "default", job)
    assert (finished.status_code, finished.code) == (409, "JobAlreadyFinished")
    deleted = quietly(sdk.DeleteJob, POOL, "default", job)
    assert (deleted.jobId, deleted.jobName) == (job, "qwen-sft")
    gone = sdk_refusal(sdk.DescribeJob, POOL, "default", job, False)
    assert (gone.status_code, gone.code) == (404, NOT_FOUND)
    wrong = sdk_refusal(bce_sdk(server, "0" * 32).StopJob, POOL, "default", job)
    assert (wrong.status_code, wrong.code) == (400, "SignatureDoesNotMatch")


def test_a_v2_capture_is_stopped_and_deleted(jobschema_server):
    job = json.loads(V2_CAPTURE.read_text(encoding="utf-8"))["job"]
    server = jobschema_server([V2_CAPTURE])
    pool = job["resourcePoolId"]
    error(v2(server, "StopJob", {"jobId": job["jobid"]}, "cce-another"), 404, NOT_FOUND)
    ok(v2(server, "StopJob", {"jobId": job["jobid"]}, pool))
    assert [v2_status(server, job["jobid"], pool) for _ in range(3)] == STOPPED
    after = v2(server, "DescribeJob", {"jobId": job["jobid"], "needDetail": True}, pool).json()["job"]
    assert after["finishedAt"] and [pod["name"] for pod in after["pods"]] == [
        pod["name"] for pod in job["pods"]
    ]
    brief = v2(server, "DescribeJob", {"jobId": job["jobid"]}, pool).json()["job"]
    assert not brief.get("pods")
    deleted = ok(v2(server, "DeleteJob", {"jobId": job["jobid"]}, pool))
    assert deleted["jobName"] == job["name"]
    error(v2(server, "DescribeJob", {"jobId": job["jobid"]}, pool), 404, NOT_FOUND)
    error(v1(server, "get", job["jobid"], pool), 404, NOT_FOUND)
    assert job["jobid"] not in server.state.aihc_v2_jobs  # its snapshots freed
    assert server.state.aihc_jobs.was_deleted(job["jobid"])


# ------------------------------------------------------------------------- auth, faults, memory

ROUTES = [
    ("DELETE", "/api/v1/aijobs/{job}", {"resourcePoolId": POOL}, None),
    ("POST", "/api/v1/aijobs/{job}/stop", {"resourcePoolId": POOL}, None),
    ("PUT", "/api/v1/aijobs/{job}", {"resourcePoolId": POOL}, {"priority": "high"}),
    ("POST", "/", {"action": "StopJob", "resourcePoolId": POOL, "queueID": "q"}, {"jobId": "{job}"}),
    ("POST", "/", {"action": "DeleteJob", "resourcePoolId": POOL, "queueID": "q"}, {"jobId": "{job}"}),
    ("POST", "/", {"action": "ModifyJob", "resourcePoolId": POOL, "queueID": "q"}, {"jobId": "{job}"}),
]


def _route(method: str, path: str, params: dict[str, str], body: Any, job: str) -> tuple[Any, ...]:
    filled = json.loads(json.dumps(body).replace("{job}", job))
    return method, path.replace("{job}", job), params, filled


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r[0]} {r[1]} {r[2].get('action', '')}")
def test_every_action_is_refused_unsigned_or_badly_signed_and_changes_nothing(jobschema_server, route):
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    method, path, params, body = _route(*route, job)
    error(send(server, method, path, params, body, signed=False), 403, "AccessDenied")
    error(send(server, method, path, params, body, secret="0" * 32), 400, "SignatureDoesNotMatch")
    without_pool = {k: v for k, v in params.items() if k != "resourcePoolId"}
    error(send(server, method, path, without_pool, body), 400, "InvalidParam")
    assert [status(server, job) for _ in range(2)] == ["Pending", "Running"]
    assert v1(server, "get", job).json()["result"]["priority"] == "normal"


@pytest.mark.parametrize(
    ("route", "verb", "action"),
    [
        ("aihc.stop", "stop", "StopJob"),
        ("aihc.delete", "delete", "DeleteJob"),
        ("aihc.update", "priority", "ModifyJob"),
    ],
)
def test_faults_apply_to_each_action_by_its_name(jobschema_server, route, verb, action):
    faults = [{"route": route, "rate": 1.0, "status": [503], "retry_after": 3}]
    server = jobschema_server(lifecycle=LONG, faults=faults)
    job = submit_job(server)
    for answer in (
        v1(server, verb, job, body={"priority": "high"}),
        v2(server, action, {"jobId": job, "priority": "high"}),
    ):
        error(answer, 503, "ServiceUnavailable")
        assert answer.headers["retry-after"] == "3"
    assert [status(server, job) for _ in range(2)] == ["Pending", "Running"]  # untouched by them
    assert v2_status(server, job) == "Running"  # DescribeJob is aihc.get's


def test_v2_create_job_is_faulted_as_a_submit_not_as_a_get(jobschema_server):
    server = jobschema_server(faults=[{"route": "aihc.get", "rate": 1.0, "status": [429]}])
    create = {
        "name": "sft",
        "jobType": "PyTorchJob",
        "command": "python train.py",
        "jobSpec": {"image": "x:1"},
    }
    created = ok(v2(server, "CreateJob", create))
    error(v2(server, "DescribeJob", {"jobId": created["jobId"]}), 429, "RequestRateExceeded")


def test_stopped_and_deleted_jobs_make_room_under_max_jobs(jobschema_server):
    from jobschema.serve import Limits

    server = jobschema_server(lifecycle=LONG, limits=Limits(max_jobs=1))
    first = submit_job(server)
    ok(v1(server, "stop", first))
    from baidubce.exception import BceServerError

    with pytest.raises(BceServerError) as full:  # Stopping, not finished yet: no room
        submit_job(server)
    assert (full.value.status_code, full.value.code) == (503, "ServiceUnavailable")
    assert status(server, first) == "Stopping"  # its one poll: ManualTermination from now on
    second = submit_job(server)  # the stopped job is forgotten to make room
    assert first not in server.state.aihc_jobs
    ok(v1(server, "delete", second))
    assert len(server.state.aihc_jobs) == 0 and server.state.aihc_jobs.kept == 0
    submit_job(server)


# ------------------------------------------------------------------------ compositions of actions

ACTIONS = st.lists(
    st.tuples(st.sampled_from(["get", "stop", "delete", "priority"]), st.booleans()), max_size=8
)
COMPOSED = ["Pending", {"phase": "Running", "polls": 2}, "Succeeded"]


class Model:
    """What the docs say a job does: steps of (status, polls), one GET a poll; stop replaces the rest
    by ``Stopping`` for a poll, then ``ManualTermination``; a finished job stays as it ended."""

    def __init__(self) -> None:
        self.steps = [("Pending", 1), ("Running", 2), ("Succeeded", 0)]
        self.polls = 0
        self.deleted = False

    @property
    def status(self) -> str:
        return self.steps[0][0]

    @property
    def finished(self) -> bool:
        return len(self.steps) == 1

    def get(self) -> str:
        said = self.status
        self.polls += 1
        if not self.finished and self.polls >= self.steps[0][1]:
            self.steps, self.polls = self.steps[1:], 0
        return said

    def stop(self) -> None:
        if self.status != "Stopping":
            self.steps, self.polls = [("Stopping", 1), ("ManualTermination", 0)], 0


def test_any_sequence_of_actions_keeps_the_lifecycle_s_laws(jobschema_server):
    """Whatever is asked, v1 or v2: a deleted job is not found by anything; a finished job stays as it
    ended and refuses stop and priority (409); every answer has its API's shape."""
    server = jobschema_server(lifecycle={"aihc": COMPOSED})

    @settings(database=None, deadline=None, max_examples=25)
    @given(ACTIONS)
    def check(actions: list[tuple[str, bool]]) -> None:
        job, model = submit_job(server), Model()
        for verb, in_v2 in actions:
            answer = _act(server, job, verb, in_v2)
            if model.deleted:
                error(answer, 404, NOT_FOUND)
            elif verb in ("stop", "priority") and model.finished:
                said = error(answer, 409, "JobAlreadyFinished")
                assert said["message"] == f"The job {job} has finished ({model.status})."
            elif verb == "get":
                body = ok(answer)
                assert (body["job"] if in_v2 else body["result"])["status"] == model.get()
                assert valid(body, "aihc-v2-job" if in_v2 else "aihc-job-detail")
            else:
                body = ok(answer)
                assert body.get("jobId", body.get("result", {}).get("jobId")) == job
                model.deleted = verb == "delete"
                if verb == "stop":
                    model.stop()
        store = server.state.aihc_jobs
        assert (job in store) is not model.deleted
        assert store.kept == sum(kept.size for kept in store.submitted.values())  # what it holds, counted
        if not model.deleted:
            ok(v1(server, "delete", job))
        assert job not in store and store.kept == 0

    check()


def _act(server: RunningServer, job: str, verb: str, in_v2: bool) -> httpx.Response:
    if not in_v2:
        return v1(server, verb, job, body={"priority": "low"})
    action = {"get": "DescribeJob", "stop": "StopJob", "delete": "DeleteJob", "priority": "ModifyJob"}[verb]
    return v2(server, action, {"jobId": job, "priority": "low", "needDetail": True})


# ------------------------------------------------------------- captures served invalid, then acted on


def _invalid_capture(tmp_path, source, name: str, change: Any) -> Any:
    value = json.loads(source.read_text(encoding="utf-8"))
    change(value)
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path, value


def test_a_capture_served_invalid_stays_as_it_is_when_stopped_or_modified(jobschema_server, tmp_path):
    """(Before: the bodies dressed from it were validated, so every poll after a stop was a 500.)"""
    path, value = _invalid_capture(
        tmp_path, AIHC_EXAMPLES / "multi-pod-pytorch.json", "a.json", lambda v: v["result"].update(queue=7)
    )
    server = jobschema_server([path], serve_invalid=True)
    pool = value["result"]["resourcePoolId"]
    ok(v1(server, "priority", RUNNING_CAPTURE, pool, body={"priority": "low"}))
    ok(v1(server, "stop", RUNNING_CAPTURE, pool))
    answers = [v1(server, "get", RUNNING_CAPTURE, pool) for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    results = [answer.json()["result"] for answer in answers]
    assert [r["status"] for r in results] == STOPPED[:2]
    assert {(r["queue"], r["priority"]) for r in results} == {(7, "low")}
    described = v2(server, "DescribeJob", {"jobId": RUNNING_CAPTURE, "needDetail": True}, pool)
    assert described.status_code == 200 and described.json()["job"]["status"] == "ManualTermination"


def test_a_runai_capture_served_invalid_stays_as_it_is_when_suspended(jobschema_server, tmp_path):
    from tests.serve_support import RUNAI_EXAMPLES, bearer

    path, value = _invalid_capture(
        tmp_path, RUNAI_EXAMPLES / "mpi-job.json", "r.json", lambda v: v.update(projectId=7)
    )
    server = jobschema_server([path], serve_invalid=True)
    url = f"{server.url}/api/v1/workloads/distributed/{value['workloadId']}"
    headers = bearer(server)
    assert httpx.post(f"{url}/suspend", headers=headers, timeout=TIMEOUT).status_code == 202
    answers = [httpx.get(url, headers=headers, timeout=TIMEOUT) for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert [(a.json()["actualPhase"], a.json()["projectId"]) for a in answers] == [
        ("Stopping", 7),
        ("Stopped", 7),
    ]


@pytest.mark.parametrize("verb", ["stop", "delete", "priority"])
def test_a_job_deleted_while_an_action_looked_it_up_is_not_found(jobschema_server, monkeypatch, verb):
    """The lookup runs off the event loop (it may wait for ``--generate``'s worker): a delete answered
    meanwhile wins, and the action answers as for an unknown job (before: two deletes both said 200)."""
    server = jobschema_server(lifecycle=LONG)
    job = submit_job(server)
    state, looked_up = server.state, server.state.aihc_target

    def deleted_meanwhile(job_id: str, pool: str, in_v2: bool) -> Any:
        found = looked_up(job_id, pool, in_v2)
        state.delete_aihc(found)  # (what a delete answered while this lookup waited does)
        return found

    monkeypatch.setattr(state, "aihc_target", deleted_meanwhile)
    error(v1(server, verb, job, body={"priority": "high"}), 404, NOT_FOUND)
