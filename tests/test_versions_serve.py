"""One Run:ai version served and recorded: ``serve --api-version`` refuses captures the version cannot
have produced, generates and accepts only what it may send, answers the cluster route with it; runapy
(the test extra's, 1.224 for 2.24) reads every workload it serves; ``record`` asks each cluster's
version once, prints it, records it in the HAR and validates with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jobschema.record import Schedule
from jobschema.serve import CapturesRefused
from jobschema.validate import validate_payload
from tests.record_support import FakeTime, run_record, submit_workload
from tests.serve_support import COMPLETED, RUNAI_EXAMPLES, bearer, client, runapy_client
from tests.support import EXAMPLES, REPO

PLAIN_2_18 = EXAMPLES / "versions" / "plain-workload-in-2.18.json"
CLUSTER = "3f5c2a1e-9b8d-4c7f-a6e5-0d1b2c3a4f56"  # the clusterId of tests.serve_support.workload_request
#: The captured examples 2.24 may send (seed.json, the official example, holds segmentSize: no version)
EXAMPLES_2_24 = [str(path) for path in sorted(RUNAI_EXAMPLES.glob("*.json")) if path.name != "seed.json"]
GENERATED_IDS = [f"00000000-0000-4000-8000-{n:012d}" for n in range(1, 9)]


def _get(server: Any, path: str) -> Any:
    with client(server) as http:
        return http.get(path, headers=bearer(server))


# ------------------------------------------------------------------------------------- serve


def test_a_refused_capture_fails_the_test_with_its_findings(jobschema_server) -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        jobschema_server([RUNAI_EXAMPLES / "completed-job.json"], api_versions={"runai": "2.19"})
    lines = str(failed.value).splitlines()
    assert lines[0] == (
        "jobschema_server: 1 capture refused (not valid for Run:ai 2.19); "
        "--serve-invalid serves invalid captures as they are, as faults"
    )
    finding = 'property "preemptibility" is not in Run:ai 2.19 (added in 2.24) [not-in-version]'
    assert any(finding in line for line in lines)


def test_a_capture_the_version_cannot_have_produced_stops_the_start() -> None:
    from jobschema.serve.server import ServeOptions, start_server

    captures = (str(RUNAI_EXAMPLES / "completed-job.json"),)
    with pytest.raises(CapturesRefused, match=r"refused \(not valid for Run:ai 2\.19\)") as refused:
        start_server(ServeOptions(captures=captures, api_versions=(("runai", "2.19"),)))
    (result,) = refused.value.catalog.refused
    assert result.version == "2.19"
    assert {f.rule for f in result.findings} == {"not-in-version"}
    assert "/spec/preemptibility" in {f.pointer for f in result.findings}


def test_serve_refuses_at_start_on_the_command_line(run_cli) -> None:
    out = run_cli(
        ["serve", "--api-version", "runai=2.19", str(RUNAI_EXAMPLES / "completed-job.json")], code=1
    )
    assert 'property "preemptibility" is not in Run:ai 2.19 (added in 2.24) [not-in-version]' in out.stderr
    assert out.stderr.splitlines()[-1].startswith("Error: 1 capture refused (not valid for Run:ai 2.19)")
    assert run_cli(["serve", "--api-version", "runai=1.0"], code=2).stderr.count("not a known version") == 1


def test_a_capture_of_the_version_is_served_and_the_cluster_answers_it(jobschema_server) -> None:
    from jobschema.serve.server import summary

    server = jobschema_server([PLAIN_2_18], api_versions={"runai": "2.18"})
    assert summary(server.state, False)[-1] == "serving 1 Run:ai workload and 0 AIHC jobs (Run:ai 2.18)"
    body = json.loads(PLAIN_2_18.read_text(encoding="utf-8"))
    assert _get(server, f"/api/v1/workloads/distributed/{body['workloadId']}").json() == body
    cluster = _get(server, f"/api/v1/clusters/{body['clusterId']}")
    assert cluster.status_code == 200
    assert cluster.json() == {
        "uuid": body["clusterId"],
        "tenantId": 1001,
        "name": f"cluster-{body['clusterId'][:8]}",
        "createdAt": "2025-01-01T00:00:00.000Z",
        "version": "2.18.0",
    }
    with client(server) as http:
        assert http.get(f"/api/v1/clusters/{body['clusterId']}").status_code == 401


def test_without_a_version_the_cluster_names_none_or_the_recorded_one(
    jobschema_server, tmp_path: Path
) -> None:
    server = jobschema_server([RUNAI_EXAMPLES])
    assert _get(server, f"/api/v1/clusters/{CLUSTER}").json()["version"] is None
    har = json.loads(
        (REPO / "tests" / "fixtures" / "versions" / "two-clusters.har").read_text(encoding="utf-8")
    )
    workload = json.loads(har["log"]["entries"][0]["response"]["content"]["text"])
    workload["spec"].pop("preemptibility")  # (what 2.19, the cluster's version, may send)
    har["log"]["entries"][0]["response"]["content"]["text"] = json.dumps(workload)
    path = tmp_path / "recorded.har"
    path.write_text(json.dumps(har), encoding="utf-8")
    recorded = jobschema_server([path])
    assert _get(recorded, f"/api/v1/clusters/{workload['clusterId'].upper()}").json()["version"] == "2.19.3"


@pytest.mark.parametrize("version", ["2.18", "2.19", "2.23"])
def test_generated_workloads_are_what_the_version_may_send(jobschema_server, version: str) -> None:
    server = jobschema_server(generate=True, api_versions={"runai": version})
    for workload_id in GENERATED_IDS:
        body = _get(server, f"/api/v1/workloads/distributed/{workload_id}").json()
        result = validate_payload(body, api_versions={"runai": version})
        assert result.errors == 0, [f"{f.pointer}: {f.message}" for f in result.findings]


def test_a_submitted_workload_must_be_valid_for_the_version(jobschema_server) -> None:
    server = jobschema_server(api_versions={"runai": "2.19"})
    from tests.serve_support import workload_request

    request = workload_request(spec={"numWorkers": 2, "preemptibility": "preemptible"})
    with client(server) as http:
        answer = http.post("/api/v1/workloads/distributed", json=request, headers=bearer(server))
    assert answer.status_code == 400
    assert answer.json()["message"] == "The workload is not valid."
    assert (
        'property "preemptibility" is not in Run:ai 2.19 (added in 2.24) [not-in-version]'
        in answer.json()["details"]
    )
    assert submit_workload(server)  # what 2.19 has is accepted


def test_runapy_reads_every_workload_the_2_24_server_answers(jobschema_server) -> None:
    """The test extra's runapy (1.224, for control plane 2.24) parses each answer into its own strict
    models: the captures 2.24 may send, generated workloads, a submitted one, and the cluster."""
    from runai.api.clusters_api import ClustersApi
    from runai.api.distributed_api import DistributedApi
    from runai.models.displayed_cluster import DisplayedCluster
    from runai.models.distributed_workload import DistributedWorkload

    server = jobschema_server(EXAMPLES_2_24, generate=True, api_versions={"runai": "2.24"})
    ids = [json.loads(Path(path).read_text(encoding="utf-8"))["workloadId"] for path in EXAMPLES_2_24]
    read = []
    with runapy_client(server, retry_enabled=False) as api:
        submitted = DistributedApi(api).create_distributed(
            {"name": "bert", "projectId": "7", "clusterId": CLUSTER, "spec": {"distributedFramework": "JAX"}}
        )
        for workload_id in [*ids, *GENERATED_IDS, submitted.data["workloadId"]]:
            answer = DistributedApi(api).get_distributed(workload_id)
            assert answer.status_code == 200
            model = DistributedWorkload.from_dict(answer.data)
            assert model is not None and model.workload_id == workload_id
            read.append(model)
        cluster = DisplayedCluster.from_dict(ClustersApi(api).get_cluster_by_uuid(CLUSTER).data)
    assert len(read) == len(ids) + len(GENERATED_IDS) + 1
    assert cluster is not None and cluster.version == "2.24.0"
    assert any(model.workload_id == COMPLETED for model in read)


# ------------------------------------------------------------------------------------ record


def test_record_asks_each_cluster_once_and_validates_with_its_version(
    jobschema_server, tmp_path: Path
) -> None:
    server = jobschema_server(api_versions={"runai": "2.19"}, lifecycle={"runai": ["Running", "Completed"]})
    jobs = [submit_workload(server), submit_workload(server, name="second")]
    got = run_record(server, "runai", jobs, tmp_path, FakeTime(), schedule=Schedule(interval=10.0, count=5))
    assert got.outcome.code == 0
    clusters = [e for e in got.entries if e["request"]["url"].endswith(f"/api/v1/clusters/{CLUSTER}")]
    assert len(clusters) == 1  # two jobs, one cluster: asked once
    assert json.loads(clusters[0]["response"]["content"]["text"])["version"] == "2.19.0"
    headers = {h["name"]: h["value"] for h in clusters[0]["request"]["headers"]}
    assert headers["authorization"].startswith("<secret:")  # the same token, masked as every other
    last = got.err.splitlines()[-2:]
    assert all(line.endswith("; cluster 2.19.0") for line in last), got.err
    assert all(result.version == "2.19" for result in got.outcome.report.results)


def test_a_recording_is_checked_afterwards_with_its_clusters_version(
    jobschema_server, tmp_path: Path, run_cli
) -> None:
    server = jobschema_server(api_versions={"runai": "2.21"}, lifecycle={"runai": ["Running", "Completed"]})
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, FakeTime(), schedule=Schedule(interval=10.0, count=3))
    report = json.loads(run_cli(["validate", "-f", "json", str(got.har)], code=0).stdout)
    assert {result["api_version"] for result in report["results"]} == {"2.21"}
    judged = json.loads(run_cli(["versions", "-f", "json", str(got.har)], code=0).stdout)
    assert {result["cluster_version"] for result in judged["results"]} == {"2.21.0"}
    assert all("2.21" in result["accepted"] for result in judged["results"])


def test_a_cluster_that_cannot_be_asked_is_said_once(jobschema_server, tmp_path: Path) -> None:
    server = jobschema_server(
        api_versions={"runai": "2.19"},
        lifecycle={"runai": ["Running", "Running", "Completed"]},
        faults=[{"route": "runai.cluster", "rate": 1.0, "status": [403]}],
    )
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, FakeTime(), schedule=Schedule(interval=10.0, count=4))
    notes = [line for line in got.err.splitlines() if "could not be asked" in line]
    assert notes == [
        f"note: runai {job}: the cluster's version could not be asked (403); "
        "its snapshots are checked against every version"
    ]
    assert "cluster 2." not in got.err
    assert got.outcome.code == 0 and all(result.version == "" for result in got.outcome.report.results)
    assert [e["response"]["status"] for e in got.entries if "/clusters/" in e["request"]["url"]] == [403]


def test_a_cluster_version_jobschema_does_not_know_is_said(
    jobschema_server, tmp_path: Path, monkeypatch
) -> None:
    from jobschema.serve import runai as served

    real = served.cluster
    monkeypatch.setattr(served, "cluster", lambda cluster_id, version: real(cluster_id, "2.31.4"))
    server = jobschema_server(lifecycle={"runai": ["Completed"]})
    job = submit_workload(server)
    got = run_record(server, "runai", [job], tmp_path, FakeTime(), schedule=Schedule(interval=10.0, count=2))
    assert got.err.splitlines()[-1].endswith("; cluster 2.31.4, not a known version")
    assert got.outcome.report.results == () or all(r.version == "" for r in got.outcome.report.results)


def test_the_start_up_line_counts_aihc_v2_jobs(jobschema_server) -> None:
    from jobschema.serve.server import summary

    server = jobschema_server(
        [REPO / "schemas" / "examples" / "aihc-v2-job", RUNAI_EXAMPLES / "completed-job.json"]
    )
    assert summary(server.state, False)[-1] == "serving 1 Run:ai workload, 0 AIHC jobs and 4 AIHC v2 jobs"
