"""``jobschema serve``'s error answers of its own: an unrouted path, a method a path does not take,
a trailing slash; each is the API's error body, picked by path as refusals are, never a redirect."""

from __future__ import annotations

import httpx
import pytest

from tests.serve_support import FINISHED, HISTORY_WORKLOAD, RUNAI_HISTORY, TIMEOUT, bearer, valid

MESSAGES = {404: "No such resource.", 405: "The method is not allowed for this resource."}
UNROUTED = [
    ("GET", "/api/v1/nope", 404, "runai-error"),
    ("GET", f"/api/v1/workloads/distributed/{HISTORY_WORKLOAD}/", 404, "runai-error"),
    ("PUT", f"/api/v1/workloads/distributed/{HISTORY_WORKLOAD}", 405, "runai-error"),
    ("GET", "/api/v1/token", 405, "runai-error"),
    ("GET", "/api/v1/aijobs/a%2Fb", 404, "aihc-error"),
    ("GET", "/api/v1/aijobs", 405, "aihc-error"),
    ("PATCH", f"/api/v1/aijobs/{FINISHED}", 405, "aihc-error"),
    ("GET", f"/api/v1/aijobs/{FINISHED}/stop", 405, "aihc-error"),
    ("GET", "/?action=DescribeJob", 405, "aihc-error"),
]


@pytest.mark.parametrize(("method", "path", "status", "schema"), UNROUTED)
def test_unrouted_paths_and_methods_answer_the_api_error_body(jobschema_server, method, path, status, schema):
    server = jobschema_server([RUNAI_HISTORY])
    answer = httpx.request(method, f"{server.url}{path}", headers=bearer(server), timeout=TIMEOUT)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    assert "location" not in answer.headers
    body = answer.json()
    assert valid(body, schema), body
    if schema == "aihc-error":
        assert answer.headers["x-bce-request-id"] == body["requestId"]
        assert body["code"] == {404: "ResourceNotFound", 405: "MethodNotAllowed"}[status]
    else:
        assert body == {"code": status, "message": MESSAGES[status]}
    if status == 405:
        assert answer.headers["allow"]


@pytest.mark.parametrize(
    ("path", "methods"),
    [
        (f"/api/v1/workloads/distributed/{HISTORY_WORKLOAD}", {"GET", "HEAD", "DELETE"}),
        (f"/api/v1/aijobs/{FINISHED}", {"GET", "HEAD", "DELETE", "PUT"}),
        (f"/api/v1/aijobs/{FINISHED}/stop", {"POST"}),
    ],
)
def test_a_405_allows_every_method_its_path_takes(jobschema_server, path, methods):
    """(Before: a path served by two routes named only the first one's methods in ``Allow``.)"""
    server = jobschema_server([RUNAI_HISTORY])
    answer = httpx.request("PATCH", f"{server.url}{path}", timeout=TIMEOUT)
    assert answer.status_code == 405
    assert set(answer.headers["allow"].split(", ")) == methods
