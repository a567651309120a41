"""``jobschema serve`` reads every field of every request body by its JSON type: any JSON value in any
field (or as the whole body) of every route that takes a body is answered below 500, an error in the
API's error body. A field the stub reads is type-checked before it is used, never assumed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.serve import start
from tests.serve_support import (
    AIHC_EXAMPLES,
    FINISHED,
    HISTORY_WORKLOAD,
    POOL,
    RUNAI_HISTORY,
    TIMEOUT,
    bce_headers,
    job_request,
    token,
    valid,
    workload_request,
)

WORKLOADS = "/api/v1/workloads/distributed"
V2 = {"resourcePoolId": POOL, "queueID": "q"}
#: Every route that takes a body: (API, path, query, a body it serves).
ROUTES: list[tuple[str, str, dict[str, str], Any]] = [
    ("runai", "/api/v1/token", {}, {"grantType": "client_credentials", "clientId": "c", "clientSecret": "s"}),
    ("runai", WORKLOADS, {}, {**workload_request(), "departmentId": "2", "useGivenNameAsPrefix": True}),
    ("runai", f"{WORKLOADS}/{HISTORY_WORKLOAD}/suspend", {}, {}),
    ("runai", f"{WORKLOADS}/{HISTORY_WORKLOAD}/resume", {}, {}),
    (
        "aihc",
        "/api/v1/aijobs",
        {"resourcePoolId": POOL},
        {**job_request(), "labels": [{"key": "a", "value": "b"}]},
    ),
    ("aihc", "/", {"action": "CreateJob", **V2}, {**job_request(), "jobType": "PyTorchJob", "command": "x"}),
    ("aihc", "/", {"action": "DescribeJob", **V2}, {"jobId": FINISHED, "needDetail": True}),
]
#: Strings with lone surrogates too (JSON's ``"\\ud800"``), as a peer may send them.
TEXT = st.text(st.characters(exclude_categories=()), max_size=6)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Where a value sits in ``value``: the whole (``()``), each key of an object, each item of an array."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        yield from _paths(inner, (*prefix, key))


def _replaced(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(body))
    holder = copy
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return copy


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with start(captures=[str(RUNAI_HISTORY), str(AIHC_EXAMPLES)]) as running:
        yield running


@pytest.fixture(scope="module")
def bearer_token(server) -> str:
    return token(server)


@pytest.mark.parametrize(("api", "path", "query", "base"), ROUTES, ids=[f"{r[1]}{r[2]}" for r in ROUTES])
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_json_in_any_field_is_answered_below_500_in_the_api_error_body(
    server, bearer_token, api, path, query, base, data
):
    where = data.draw(st.sampled_from(list(_paths(base))), label="field")
    body = json.dumps(_replaced(base, where, data.draw(VALUES, label="value"))).encode()
    if api == "runai":
        headers = {"Authorization": f"Bearer {bearer_token}"}
    else:
        headers = bce_headers(server, "POST", path, query)
    answer = httpx.post(f"{server.url}{path}", params=query, content=body, headers=headers, timeout=TIMEOUT)
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        assert valid(answer.json(), f"{api}-error"), answer.text
        if api == "aihc":
            assert answer.headers["x-bce-request-id"] == answer.json()["requestId"]


@pytest.mark.parametrize(
    ("field", "value"),
    [("labels", 5), ("datasources", True), ("jobSpec.envs", 1), ("jobSpec.resources", 1.5), ("queue", ["q"])],
)
def test_an_aihc_field_of_the_wrong_type_is_400_naming_it(server, field, value):
    request = job_request()
    holder, _, key = field.rpartition(".")
    (request[holder] if holder else request)[key] = value
    kind = {"labels": "an array", "datasources": "an array", "jobSpec.envs": "an array"}
    expected = kind.get(field, {"jobSpec.resources": "an array", "queue": "a string"}.get(field))
    for query, code in (
        ({"resourcePoolId": POOL}, "InvalidParam"),
        ({"action": "CreateJob", **V2}, "MalformedJSON"),
    ):
        path = "/api/v1/aijobs" if "action" not in query else "/"
        headers = bce_headers(server, "POST", path, query)
        answer = httpx.post(
            f"{server.url}{path}", params=query, json=request, headers=headers, timeout=TIMEOUT
        )
        assert answer.status_code == 400
        assert answer.json()["code"] == code
        assert answer.json()["message"] == f"{field} must be {expected}"


def test_a_token_request_with_a_lone_surrogate_is_refused_as_any_wrong_secret(server):
    creds = server.credentials
    body = {"grantType": "client_credentials", "clientId": creds.runai_client_id, "clientSecret": "\ud800"}
    content = json.dumps(body).encode()  # ensure_ascii: the lone surrogate as JSON's escape
    answer = httpx.post(f"{server.url}/api/v1/token", content=content, timeout=TIMEOUT)
    assert (answer.status_code, answer.json()) == (
        401,
        {"code": 401, "message": "Invalid client credentials."},
    )
