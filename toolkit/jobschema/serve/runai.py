"""Run:ai bodies: error answers, a distributed workload built from a submit request, phases.

Error bodies are ``{code, message}`` (``runai-error``) with the messages of the API's examples. A
submitted workload keeps the request's ``name`` (a suffix is added under ``useGivenNameAsPrefix``),
``projectId``, ``clusterId``, specs and ``masterSpecSameAsWorker``; the server adds ``workloadId``,
``createdBy`` (who the token was issued to), ``createdAt`` (UTC, milliseconds, as the API writes it),
``desiredPhase`` and ``actualPhase``; a deleted workload gets ``deletedAt``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from jobschema.lifecycle import State, state_of
from jobschema.secrets import scrub
from jobschema.serve.config import Step
from jobschema.serve.lifecycle import Job

API = "runai"
SCHEMA = "runai-distributed-workload"
ERROR_SCHEMA = "runai-error"
MESSAGES = {
    400: "Bad request.",
    401: "Issuer is not familiar.",
    403: "You do not have sufficient permissions.",
    404: "Resource id not found.",
    409: "Conflict.",
    429: "Too many requests. Please try again later.",
    500: "Something went wrong.",
    502: "Bad gateway.",
    503: "Please try again in few minutes.",
    504: "Gateway timeout.",
}
#: Request keys copied into the workload as they are.
COPIED = ("spec", "masterSpec", "masterSpecSameAsWorker")


def error(status: int, message: str | None = None, details: str | None = None) -> dict[str, Any]:
    """A ``runai-error`` body; its words go through the secret policy (a message may quote the
    request: a target, an id)."""
    body: dict[str, Any] = {"code": status, "message": scrub(message or MESSAGES.get(status, "Error."))}
    if details:
        body["details"] = scrub(details)
    return body


def timestamp(now: float) -> str:
    """``2022-01-01T03:49:52.531Z``: UTC with milliseconds, as the API writes ``createdAt``."""
    moment = datetime.fromtimestamp(now, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


#: The type of each submit-request field the stub reads itself (the rest is checked by the
#: workload's schema once built), so a field of the wrong JSON type is a 400 naming it, never a 500.
OPTIONAL_FIELDS: dict[str, type] = {
    "departmentId": str,
    "useGivenNameAsPrefix": bool,
    "masterSpecSameAsWorker": bool,
    "spec": dict,
    "masterSpec": dict,
}
_TYPE_NAMES = {str: "a string", bool: "true or false", dict: "an object"}


def request_problem(request: Any) -> str | None:
    """Why a submit request cannot make a workload (None when it can)."""
    if not isinstance(request, dict):
        return "The request body must be a JSON object."
    for key in ("name", "projectId", "clusterId"):
        if request.get(key) in (None, ""):
            return f"The request must give {key}."
        if not isinstance(request[key], str):
            return f"{key} must be a string."
    for key, kind in OPTIONAL_FIELDS.items():
        if request.get(key) is not None and not isinstance(request[key], kind):
            return f"{key} must be {_TYPE_NAMES[kind]}."
    return None


def workload(
    request: dict[str, Any], workload_id: str, creator: str, now: float, suffix: str
) -> dict[str, Any]:
    """The base body of a submitted workload (its phases are dressed on by :func:`dress`)."""
    name = str(request["name"])
    body: dict[str, Any] = {
        "name": f"{name}-{suffix}" if request.get("useGivenNameAsPrefix") else name,
        "requestedName": name,
        "workloadId": workload_id,
        "projectId": str(request["projectId"]),
        "clusterId": request["clusterId"],
        "createdBy": creator,
        "createdAt": timestamp(now),
        "desiredPhase": "Running",
    }
    if request.get("departmentId"):
        body["departmentId"] = str(request["departmentId"])
    body.update({key: request[key] for key in COPIED if request.get(key) is not None})
    return body


def dress(job: Job, phase: str, now: float) -> dict[str, Any]:
    """The job's base body in ``phase``, wanting ``job.desired``."""
    body = dict(job.base or {})
    body["actualPhase"] = phase
    body["desiredPhase"] = job.desired
    if job.desired == "Deleted":
        body["deletedAt"] = timestamp(job.marks.get("Deleting", now))
    return body


#: The tenant every served cluster belongs to.
TENANT = 1001


def cluster(cluster_id: str, version: str | None) -> dict[str, Any]:
    """The answer to ``GET /api/v1/clusters/{clusterId}`` (``DisplayedCluster``): the control plane's
    ``version`` is the one served (``2.19.0`` under ``--api-version runai=2.19``), the one a capture
    was recorded with, or null (the field is nullable) when the server serves every version."""
    return {
        "uuid": cluster_id,
        "tenantId": TENANT,
        "name": f"cluster-{cluster_id[:8]}",
        "createdAt": "2025-01-01T00:00:00.000Z",
        "version": version,
    }


def suspended() -> tuple[Step, ...]:
    """Suspend: Stopping for one poll, then Stopped."""
    return (Step("Stopping"), Step("Stopped"))


def resumed(lifecycle_steps: tuple[Step, ...], end: str | None = None) -> tuple[Step, ...]:
    """Resume: Resuming for one poll, then the lifecycle from its first running step on (by the
    lifecycle model: ``Running``, ``Updating``, ``Degraded``); a lifecycle with none runs one poll
    and ends as it ends (its last step, terminal). ``end`` is the phase a job drawn to fail ends in
    (its ``fail_phase``): a resumed job keeps its fate, as its submit drew it."""
    running = [i for i, step in enumerate(lifecycle_steps) if state_of(API, step.phase) is State.RUNNING]
    rest = lifecycle_steps[running[0] :] if running else (Step("Running"), lifecycle_steps[-1])
    if end is not None:
        rest = (*rest[:-1], Step(end))
    return (Step("Resuming"), *rest)


def deleted() -> tuple[Step, ...]:
    """Delete: Deleting for one poll, then gone (404)."""
    return (Step("Deleting"), Step("Deleting"))
