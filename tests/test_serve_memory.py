"""What a peer can make ``jobschema serve`` hold is bounded: submitted jobs (live ones capped, a
submit past the cap refused in the API's error body), deleted jobs (forgotten once gone or when room
is needed), generated jobs (least recently asked for forgotten first), AIHC request ids. Counts are
asserted, never memory sizes."""

from __future__ import annotations

import uuid

import httpx

from jobschema.serve import routes
from jobschema.serve.limits import Limits
from tests.serve_support import (
    AIJOBS,
    POOL,
    bce_headers,
    bearer,
    client,
    job_request,
    valid,
    workload_request,
)

WORKLOADS = "/api/v1/workloads/distributed"
FULL = "3 {} are live (--max-jobs): try again once one finishes or is deleted."


def test_submits_past_the_live_cap_are_503_and_deleted_workloads_make_room(jobschema_server):
    server = jobschema_server(limits=Limits(max_jobs=3))
    headers = bearer(server)
    with client(server) as http:
        ids = [
            http.post(WORKLOADS, json=workload_request(), headers=headers).json()["workloadId"]
            for _ in range(3)
        ]
        refused = http.post(WORKLOADS, json=workload_request(), headers=headers)
        assert (refused.status_code, refused.json()) == (
            503,
            {"code": 503, "message": FULL.format("workloads")},
        )
        assert valid(refused.json(), "runai-error")
        for _ in range(20):  # submit and delete, never polled: each deleted one makes room for the next
            assert http.delete(f"{WORKLOADS}/{ids.pop(0)}", headers=headers).status_code == 202
            answer = http.post(WORKLOADS, json=workload_request(), headers=headers)
            assert answer.status_code == 202, answer.text
            ids.append(answer.json()["workloadId"])
    jobs = server.state.runai_jobs
    assert (len(jobs.submitted), len(jobs.forgotten)) == (3, 3)


def test_a_deleted_workload_is_forgotten_once_gone(jobschema_server):
    server = jobschema_server(limits=Limits(max_jobs=3))
    headers = bearer(server)
    with client(server) as http:
        workload_id = http.post(WORKLOADS, json=workload_request(), headers=headers).json()["workloadId"]
        http.delete(f"{WORKLOADS}/{workload_id}", headers=headers)
        codes = [http.get(f"{WORKLOADS}/{workload_id}", headers=headers).status_code for _ in range(3)]
    assert codes == [200, 404, 404]
    assert workload_id not in server.state.runai_jobs
    assert list(server.state.runai_jobs.forgotten) == [workload_id]


def test_an_aihc_submit_past_the_cap_is_503_until_a_job_finishes(jobschema_server):
    server = jobschema_server(limits=Limits(max_jobs=3))
    params = {"resourcePoolId": POOL}

    def create() -> httpx.Response:
        headers = bce_headers(server, "POST", AIJOBS, params)
        return httpx.post(f"{server.url}{AIJOBS}", params=params, json=job_request(), headers=headers)

    ids = [create().json()["result"]["jobId"] for _ in range(3)]
    refused = create()
    assert (refused.status_code, refused.json()["code"]) == (503, "ServiceUnavailable")
    assert refused.json()["message"] == FULL.format("jobs")
    assert valid(refused.json(), "aihc-error")
    path = f"{AIJOBS}/{ids[0]}"
    statuses = [
        httpx.get(
            f"{server.url}{path}", params=params, headers=bce_headers(server, "GET", path, params)
        ).json()["result"]["status"]
        for _ in range(3)
    ]
    assert statuses == ["Pending", "Running", "Succeeded"]
    assert create().status_code == 200  # the finished job is forgotten to make room
    assert ids[0] not in server.state.aihc_jobs
    assert len(server.state.aihc_jobs.submitted) == 3


def test_generated_jobs_are_kept_least_recently_used_first(jobschema_server):
    server = jobschema_server(generate=True, limits=Limits(max_jobs=3))
    headers = bearer(server)
    ids = [str(uuid.UUID(int=n, version=4)) for n in range(1, 8)]
    with client(server) as http:
        first = [http.get(f"{WORKLOADS}/{workload_id}", headers=headers) for workload_id in ids]
        again = http.get(f"{WORKLOADS}/{ids[0]}", headers=headers)  # forgotten, generated again
    assert [answer.status_code for answer in first] == [200] * 7
    assert again.content == first[0].content
    assert list(server.state.runai_jobs.generated) == [ids[5], ids[6], ids[0]]


def test_aihc_request_ids_are_remembered_for_a_bounded_number_of_bodies():
    assert routes._request_id.cache_info().maxsize == routes.REQUEST_IDS_KEPT == 256
