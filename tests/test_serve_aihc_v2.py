"""``jobschema serve`` answers AIHC v2 ``POST /?action=DescribeJob`` as Baidu's API does, and a real
client no one here wrote reads it: baiducloud-python-sdk-aihc's ``AihcClient.describe_job`` (signing
with its own BCE v1 signer) gets a v2 capture, a v1 capture said in v2, and a submitted job; a wrong
signature and an unknown job get the documented error bodies."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from jobschema.apis.aihc_map import shared_v1, shared_v2
from jobschema.validate import validate_payload
from tests.record_support import submit_job
from tests.serve_support import AIHC_EXAMPLES, FINISHED, POOL
from tests.support import REPO

sdk = pytest.importorskip("baiducloud_python_sdk_aihc", reason="the test extra brings Baidu's AIHC SDK")

V2_EXAMPLES = REPO / "schemas" / "examples" / "aihc-v2-job"
V2_CAPTURE = V2_EXAMPLES / "sdk-running-4-pods.json"


def _client(server, secret: str | None = None) -> Any:
    from baiducloud_python_sdk_aihc.api.aihc_client import AihcClient
    from baiducloud_python_sdk_core.auth.bce_credentials import BceCredentials
    from baiducloud_python_sdk_core.bce_client_configuration import BceClientConfiguration
    from baiducloud_python_sdk_core.retry.retry_policy import NoRetryPolicy

    creds = server.credentials
    given = BceCredentials(creds.bce_access_key_id, secret or creds.bce_secret_access_key)
    config = BceClientConfiguration(credentials=given, endpoint=server.url, retry_policy=NoRetryPolicy())
    return AihcClient(config)


def _describe(server, job_id: str, pool: str, detail: bool = True, secret: str | None = None) -> Any:
    from baiducloud_python_sdk_aihc.models.describe_job_request import DescribeJobRequest

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # the SDK leaves a kept-alive socket to the GC
        return _client(server, secret).describe_job(DescribeJobRequest(pool, "default", job_id, detail))


def _as_read(answer: Any) -> dict[str, Any]:
    """What the SDK read, as its own models say it (``to_dict``), JSON-clean."""
    return json.loads(json.dumps(answer.to_dict(), default=str))


def test_the_sdk_reads_a_served_v2_capture_as_captured(jobschema_server) -> None:
    capture = json.loads(V2_CAPTURE.read_text(encoding="utf-8"))
    job = capture["job"]
    server = jobschema_server([V2_CAPTURE])
    read = _as_read(_describe(server, job["jobid"], job["resourcePoolId"]))
    assert read["job"]["jobid"] == job["jobid"]
    assert read["job"]["status"] == job["status"]
    assert [pod["name"] for pod in read["job"]["pods"]] == [pod["name"] for pod in job["pods"]]
    assert shared_v2(read) == shared_v2(capture)


def test_without_detail_the_pods_are_left_out(jobschema_server) -> None:
    job = json.loads(V2_CAPTURE.read_text(encoding="utf-8"))["job"]
    server = jobschema_server([V2_CAPTURE])
    read = _as_read(_describe(server, job["jobid"], job["resourcePoolId"], detail=False))
    assert not read["job"].get("pods") and not read["job"].get("historyPods")


def test_a_v1_capture_is_answered_in_v2_through_the_mapping(jobschema_server) -> None:
    capture = json.loads((AIHC_EXAMPLES / "finished-job.json").read_text(encoding="utf-8"))
    server = jobschema_server([AIHC_EXAMPLES])
    answer = _describe(server, FINISHED, POOL)
    read = _as_read(answer)
    assert shared_v2(read) == shared_v1(capture)
    assert validate_payload(read).schema == "aihc-v2-job"


def test_a_submitted_job_walks_its_lifecycle_in_v2(jobschema_server) -> None:
    server = jobschema_server(lifecycle={"aihc": ["Pending", "Running", "Succeeded"]})
    job = submit_job(server)
    statuses = [_as_read(_describe(server, job, POOL))["job"]["status"] for _ in range(4)]
    assert statuses == ["Pending", "Running", "Succeeded", "Succeeded"]


def _refusal(server, job_id: str, pool: str, secret: str | None = None) -> Any:
    """The server's error as the SDK raises it (its HTTP client wraps it, having retried nothing)."""
    from baiducloud_python_sdk_core.exception import BceHttpClientError

    with pytest.raises(BceHttpClientError) as raised:
        _describe(server, job_id, pool, secret=secret)
    return raised.value.last_error


def test_a_wrong_signature_and_an_unknown_job_get_the_documented_errors(jobschema_server) -> None:
    server = jobschema_server([V2_CAPTURE])
    job = json.loads(V2_CAPTURE.read_text(encoding="utf-8"))["job"]
    wrong = _refusal(server, job["jobid"], job["resourcePoolId"], secret="f" * 32)
    assert (wrong.status_code, wrong.code) == (400, "SignatureDoesNotMatch")
    unknown = _refusal(server, "job-unknown", job["resourcePoolId"])
    assert (unknown.status_code, unknown.code) == (404, "cce.warning.GetAIJobByJobIdFailed")
    elsewhere = _refusal(server, job["jobid"], "another-pool")
    assert (elsewhere.status_code, elsewhere.code) == (404, "cce.warning.GetAIJobByJobIdFailed")


# --- record --api v2 ----------------------------------------------------------------------------------


def test_record_polls_describe_job_to_the_terminal_status(jobschema_server, tmp_path) -> None:
    from tests.record_support import FakeTime, run_record

    fake = FakeTime()
    server = jobschema_server(lifecycle={"aihc": ["Pending", "Running", "Succeeded"]}, clock=fake)
    job = submit_job(server)
    got = run_record(server, "aihc", [job], tmp_path, fake, aihc_api="v2")
    assert [line["job"]["status"] for line in got.lines] == ["Pending", "Running", "Succeeded"]
    assert all(validate_payload(line).schema == "aihc-v2-job" for line in got.lines)
    assert got.outcome.code == 0 and got.outcome.jobs[0].done == "terminal"
    methods = {
        (entry["request"]["method"], entry["request"]["url"].split("?")[0][-1:]) for entry in got.entries
    }
    assert methods == {("POST", "/")}
    assert "needDetail" in got.entries[0]["request"]["postData"]["text"]


def test_record_v2_names_a_rejected_key(jobschema_server, tmp_path) -> None:
    from tests.record_support import FakeTime, run_record

    fake = FakeTime()
    server = jobschema_server(clock=fake)
    job = submit_job(server)
    env = {**server.credentials.as_env(), "BCE_SECRET_ACCESS_KEY": "f" * 32}
    from jobschema.record.credentials import AuthFailed

    with pytest.raises(AuthFailed) as refused:  # (the command line says it in one line, exit 2)
        run_record(server, "aihc", [job], tmp_path, fake, aihc_api="v2", env=env)
    assert str(refused.value).startswith(
        f"BCE_SECRET_ACCESS_KEY rejected by {server.url}/?action=DescribeJob"
    )
    assert str(refused.value).endswith("(400 SignatureDoesNotMatch)")


def test_the_sdk_creates_a_job_that_walks_the_scripted_lifecycle(jobschema_server) -> None:
    from baiducloud_python_sdk_aihc.models.create_job_request import CreateJobRequest
    from baiducloud_python_sdk_aihc.models.job_spec import JobSpec
    from baiducloud_python_sdk_aihc.models.resource import Resource

    server = jobschema_server(lifecycle={"aihc": ["Pending", "Running", "Succeeded"]})
    spec = JobSpec(image="registry.baidubce.com/aihc/train:1", replicas=2, resources=[Resource("cpu", 4)])
    request = CreateJobRequest(POOL, "default", "sft-v2", "default", job_spec=spec, command="python train.py")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        created = _client(server).create_job(request)
    assert created.job_name == "sft-v2" and created.job_id.startswith("pytorchjob-")
    reads = [_as_read(_describe(server, created.job_id, POOL)) for _ in range(3)]
    assert [read["job"]["status"] for read in reads] == ["Pending", "Running", "Succeeded"]
    assert [len(read["job"]["pods"]) for read in reads] == [2, 2, 2]
    assert all(validate_payload(read).valid for read in reads)


def test_a_v2_recording_s_har_is_validated_entry_by_entry(jobschema_server, tmp_path, run_cli) -> None:
    from tests.record_support import FakeTime, run_record

    fake = FakeTime()
    server = jobschema_server(lifecycle={"aihc": ["Pending", "Running", "Succeeded"]}, clock=fake)
    got = run_record(server, "aihc", [submit_job(server)], tmp_path, fake, aihc_api="v2")
    result = run_cli(["validate", "-v", str(got.har)], code=0).stdout.splitlines()
    assert [line.split(": ")[-1] for line in result[:-1]] == ["ok (aihc-v2-job)"] * 3
    assert result[-1] == "3 payloads: 3 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped"
