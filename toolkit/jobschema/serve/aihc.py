"""AIHC v1 bodies: error answers, a job detail built from a create request, statuses.

Errors are ``{requestId, code, message}`` (``aihc-error``), the request id also in the
``x-bce-request-id`` header. An unknown job (or a job asked for in another resource pool) answers
``cce.warning.GetAIJobByJobIdFailed`` with the API's message; the API does not document the HTTP
status of that answer, so the stub sends 404. Fault statuses map to BCE's public codes
(``InternalError`` for 500) or to a descriptive code where BCE documents none (429, 502-504).

A created job keeps the request's name, queue, priority, labels, datasources and job spec (image,
command, replicas, resources, envs, RDMA); its pods (one per replica: ``master`` or ``launcher``,
then ``worker``) follow the job's status, and ``runningAt``/``finishedAt`` record when it got there.

Stop (v1 ``POST …/{jobId}/stop``, v2 ``StopJob``) walks a job through ``Stopping`` for one poll to
``ManualTermination``, the status Baidu's CLI and console show for a stopped job (the lifecycle model
reads it as stopped, terminal). A job that went live from a capture (or ``--generate``) keeps its
captured body and pods, its status (and its pods' ``podStatus.status``, v1) dressed on. Stopping or
re-prioritising a finished job is refused 409 ``JobAlreadyFinished``: the API documents no answer
for it, and a conflict is what Run:ai answers for an operation a job's state forbids.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from jobschema.apis import aihc_v2
from jobschema.lifecycle import State, is_terminal, state_of
from jobschema.secrets import scrub
from jobschema.serve.config import Step
from jobschema.serve.lifecycle import Job

SCHEMA = "aihc-job-detail"
ERROR_SCHEMA = "aihc-error"
NOT_FOUND = "cce.warning.GetAIJobByJobIdFailed"
CODES = {
    403: ("AccessDenied", "Access denied."),
    429: ("RequestRateExceeded", "Too many requests; please retry later."),
    500: ("InternalError", "We encountered an internal error. Please try again."),
    502: ("BadGateway", "Bad gateway."),
    503: ("ServiceUnavailable", "Service is temporarily unavailable. Please try again."),
    504: ("GatewayTimeout", "Gateway timeout."),
}
#: The code of the 409 that stop or a priority change of a finished job answers (see the module).
FINISHED = "JobAlreadyFinished"
#: The status a stopped job ends in, and the one it shows for a poll on the way.
STOPPED, STOPPING = "ManualTermination", "Stopping"
#: The priorities a job may have (v1 ``PUT …/{jobId}``, v2 ``ModifyJob``), as the schema's enum.
PRIORITIES = ("high", "normal", "low")
JOB_ID_KEY = "aijob.cce.baidubce.com/openapi-jobid"
FROM_API = "aijob.cce.baidubce.com/create-from-aihcp-api"
#: The pod phase a job's state shows on its pods once they are placed (jobschema.lifecycle).
POD_PHASES = {State.RUNNING: "Running", State.SUCCEEDED: "Succeeded", State.FAILED: "Failed"}


def _waiting(status: str) -> bool:
    """Not placed yet: no pod IPs, no scheduledAt (an unknown status right after submit included)."""
    return state_of("aihc", status) in (State.WAITING, State.UNKNOWN)


def error(request_id: str, code: str, message: str) -> dict[str, Any]:
    """An ``aihc-error`` body; its message goes through the secret policy (it may quote the
    request: a job id, a parameter)."""
    return {"requestId": request_id, "code": code, "message": scrub(message)}


def not_found(request_id: str, job_id: str) -> dict[str, Any]:
    """The answer for a job the pool does not hold."""
    return error(request_id, NOT_FOUND, f"get job by jobid failed, err: {job_id} not found job")


def finished(request_id: str, job_id: str, status: str) -> dict[str, Any]:
    """The answer to stopping or re-prioritising a job that has finished (409)."""
    return error(request_id, FINISHED, f"The job {job_id} has finished ({status}).")


def status_error(request_id: str, status: int) -> dict[str, Any]:
    """The body of an injected error status."""
    code, message = CODES.get(status, ("InternalError", "We encountered an internal error."))
    return error(request_id, code, message)


def timestamp(now: float) -> str:
    """RFC 3339 UTC to the second, as AIHC writes its times."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


#: The type of each create-request field the stub reads (absent or null: its default), checked before
#: any is used, so a number where a list belongs is a 400 naming the field, never a 500.
FIELDS: dict[str, type] = {
    "name": str,
    "queue": str,
    "priority": str,
    "jobFramework": str,
    "faultTolerance": bool,
    "labels": list,
    "datasources": list,
    "jobSpec": dict,
}
SPEC_FIELDS: dict[str, type] = {
    "image": str,
    "command": str,
    "replicas": int,
    "enableRDMA": bool,
    "hostNetwork": bool,
    "resources": list,
    "envs": list,
}
#: The fields of a v2 ``CreateJob`` read before it is said as a v1 request.
V2_FIELDS: dict[str, type] = {"jobType": str, "command": str, "jobSpec": dict}
#: Lists whose items must be objects (the job keeps them as they are; its schema checks their keys).
OBJECT_LISTS = ("labels", "datasources", "resources", "envs")
_TYPE_NAMES = {str: "a string", bool: "true or false", int: "an integer", list: "an array", dict: "an object"}


def type_problem(request: Any, fields: dict[str, type] | None = None, where: str = "") -> str | None:
    """Which field of a create request has the wrong JSON type (None: every field read is right)."""
    if not isinstance(request, dict):
        return f"{where or 'the request body'} must be a JSON object"
    for key, kind in (FIELDS if fields is None else fields).items():
        value = request.get(key)
        if value is not None and not _is(value, kind):
            return f"{where}{key} must be {_TYPE_NAMES[kind]}"
        if key in OBJECT_LISTS and value is not None and not all(isinstance(item, dict) for item in value):
            return f"{where}{key} must be an array of objects"
    spec = request.get("jobSpec")
    if fields is None and isinstance(spec, dict):
        return type_problem(spec, SPEC_FIELDS, "jobSpec.")
    return None


def _is(value: Any, kind: type) -> bool:
    """JSON's types: a boolean is not an integer."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def request_problem(request: dict[str, Any]) -> str | None:
    """Why a create request whose fields have their types (:func:`type_problem`) cannot make a job."""
    if not request.get("name"):
        return "name must be set"
    if not isinstance(request.get("jobSpec"), dict):
        return "jobSpec must be set"
    replicas = request["jobSpec"].get("replicas", 1)
    if not isinstance(replicas, int) or not 1 <= replicas <= 64:
        return "jobSpec.replicas must be an integer from 1 to 64"
    return None


def from_v2_request(body: Any) -> Any:
    """A v2 ``CreateJob`` body (its fields' types checked by ``type_problem(body, V2_FIELDS)``) as
    the v1 create request it says the same as: v2 names the framework ``jobType`` (``pytorchjob``,
    ``mpijob``) and keeps ``command`` beside ``jobSpec``."""
    if not isinstance(body, dict) or not isinstance(body.get("jobSpec"), dict):
        return body
    framework = "mpi" if str(body.get("jobType") or "").lower().startswith("mpi") else "pytorch"
    spec = {**body["jobSpec"], "command": body.get("command", body["jobSpec"].get("command", ""))}
    return {**body, "jobFramework": framework, "jobSpec": spec}


def job_prefix(request: dict[str, Any]) -> str:
    """``mpijob`` for an MPI job, else ``pytorchjob``: the prefix of the job id."""
    return "mpijob" if str(request.get("jobFramework") or "").lower().startswith("mpi") else "pytorchjob"


def job(request: dict[str, Any], job_id: str, pool: str, now: float, uid: str) -> dict[str, Any]:
    """The base ``result`` of a created job (its status is dressed on by :func:`dress`)."""
    spec = request["jobSpec"]
    labels = list(request.get("labels") or [])
    labels += [{"key": FROM_API, "value": "true"}, {"key": JOB_ID_KEY, "value": job_id}]
    envs = [{"name": "AIHC_JOB_NAME", "value": request["name"]}, *(spec.get("envs") or [])]
    return {
        "jobId": job_id,
        "name": request["name"],
        "resourcePoolId": pool,
        "command": spec.get("command", ""),
        "createdAt": timestamp(now),
        "finishedAt": "",
        "runningAt": "",
        "scheduledAt": "",
        "datasources": list(request.get("datasources") or []),
        "enableFaultTolerance": bool(request.get("faultTolerance", False)),
        "customFaultTolerancePattern": [],
        "labels": labels,
        "priority": request.get("priority", "normal"),
        "queue": request.get("queue", "default"),
        "status": "",
        "image": spec.get("image", ""),
        "resources": list(spec.get("resources") or []),
        "enableRDMA": bool(spec.get("enableRDMA", False)),
        "hostNetwork": bool(spec.get("hostNetwork", spec.get("enableRDMA", False))),
        "replicas": spec.get("replicas", 1),
        "envs": envs,
        "jobFramework": "mpi" if job_prefix(request) == "mpijob" else "pytorch",
        "k8sUID": uid,
        "k8sNamespace": "default",
        "podList": {"listMeta": {"totalItems": 0}, "pods": []},
    }


def stopped() -> tuple[Step, ...]:
    """Stop: ``Stopping`` for one poll, then ``ManualTermination``."""
    return (Step(STOPPING), Step(STOPPED))


def own_fields(value: dict[str, Any]) -> dict[str, Any]:
    """The job's own fields in ``value``: a v1 detail's ``result``, a v2 answer's ``job`` (or the answer
    itself, flattened), a submitted job's base."""
    result = value.get("result")
    return result if isinstance(result, dict) else aihc_v2.job_of(value)


def status_of(job: Job, now: float) -> str:
    """The status ``job`` is in: its timeline's, else its last served snapshot's."""
    phase = job.phase(now)
    if phase is not None:
        return phase
    said = own_fields(job.current_value()).get("status")
    return said if isinstance(said, str) else ""


def name_of(job: Job) -> str:
    """The job's name (empty when its body has none)."""
    name = own_fields(job.current_value()).get("name")
    return name if isinstance(name, str) else ""


def with_priority(value: dict[str, Any], priority: str) -> dict[str, Any]:
    """``value`` (a served body or a submitted job's base) with its job's ``priority`` set."""
    own = {**own_fields(value), "priority": priority}
    return _put_own(value, own)


def _put_own(value: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``value`` with its own fields (:func:`own_fields`) replaced by ``own``."""
    if isinstance(value.get("result"), dict):
        return {**value, "result": own}
    if isinstance(value.get("job"), dict):
        return {**value, "job": own}
    return {**value, **own}


def dress(job: Job, status: str, now: float) -> dict[str, Any]:
    """The job detail in ``status``: times from when the job reached each status, pods to match."""
    if job.from_capture:
        return _restatus(job, status, now)
    result = dict(job.base or {})
    result["status"] = status
    started = [job.marks[name] for name in job.marks if not _waiting(name)]
    if started:
        result["scheduledAt"] = result["runningAt"] = timestamp(min(started))
    if is_terminal("aihc", status):
        result["finishedAt"] = timestamp(job.marks.get(status, now))
    history = job.pod_history()
    pods = [_pod(result, index, status, history) for index in range(int(result.get("replicas", 1)))]
    result["podList"] = {"listMeta": {"totalItems": len(pods)}, "pods": pods}
    return {"requestId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{job.job_id}/{status}")), "result": result}


def _restatus(job: Job, status: str, now: float) -> dict[str, Any]:
    """A job gone live from a capture (v1 or v2, its whole body the base) in ``status``: its pods as
    captured (a v1 pod's ``podStatus.status`` says the job's status, as the API writes it), its
    ``finishedAt`` (and a v2 ``jobTimeLine`` entry) once terminal."""
    value = dict(job.base or {})
    own = {**own_fields(value), "status": status}
    if is_terminal("aihc", status):
        own["finishedAt"] = timestamp(job.marks.get(status, now))
        if isinstance(own.get("jobTimeLine"), list):
            entry = {"conditionType": status, "conditionMessage": "", "time": own["finishedAt"]}
            own["jobTimeLine"] = [*own["jobTimeLine"], entry]
    pods = own.get("podList", {}).get("pods") if isinstance(own.get("podList"), dict) else None
    if isinstance(pods, list):
        pods = [_pod_in(pod, status) for pod in pods]
        own["podList"] = {**own["podList"], "pods": pods}
    value = _put_own(value, own)
    value["requestId"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{job.job_id}/{status}"))
    return value


def _pod_in(pod: Any, status: str) -> Any:
    """A captured v1 pod of a job in ``status``."""
    if not isinstance(pod, dict) or not isinstance(pod.get("podStatus"), dict):
        return pod
    return {**pod, "podStatus": {**pod["podStatus"], "status": status}}


def _incarnation(index: int, history: Sequence[tuple[Step, float]]) -> tuple[int, float | None, int]:
    """Pod ``index`` after the steps walked: how many times it was replaced, when its current pod
    was created (None: with the job), and its container's restarts since."""
    generation, created, restarts = 0, None, 0
    for step, began in history:
        if index < step.replace:
            generation, created, restarts = generation + 1, began, 0
        restarts += step.restarts
    return generation, created, restarts


def _pod(
    result: dict[str, Any], index: int, status: str, history: Sequence[tuple[Step, float]] = ()
) -> dict[str, Any]:
    """Pod ``index`` of a job in ``status``: scripted restarts add to its restart count; a
    replacement makes it a new pod under the same name (uid, creation time), its count from zero."""
    generation, created, restarts = _incarnation(index, history)
    kind = "MPIJob" if result["jobFramework"] == "mpi" else "PyTorchJob"
    first = "launcher" if kind == "MPIJob" else "master"
    role, number = (first, 0) if index == 0 else ("worker", index - 1)
    name, count = result["name"], int(result.get("replicas", 1))
    scheduled = not _waiting(status)
    return {
        "PodIP": f"192.168.0.{10 + index}" if scheduled else "",
        "nodeName": f"192.168.0.{10 + index}" if scheduled else "",
        "objectMeta": {
            "name": f"{name}-{role}-{number}",
            "namespace": "default",
            "creationTimestamp": timestamp(created) if created is not None else result["createdAt"],
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{result['jobId']}/pod/{index}/{generation}")),
            "labels": {
                JOB_ID_KEY: result["jobId"],
                "training.kubeflow.org/job-name": name,
                "training.kubeflow.org/replica-type": role,
            },
            "annotations": {JOB_ID_KEY: result["jobId"], "cce-workload-kind": kind},
            "ownerReferences": [
                {"apiVersion": "kubeflow.org/v1", "kind": kind, "name": name, "uid": result["k8sUID"]}
            ],
        },
        "podStatus": {
            "podPhase": POD_PHASES.get(state_of("aihc", status), "Pending" if not scheduled else "Unknown"),
            "status": status,
        },
        "replicaType": role,
        "restartCount": restarts,
        "envs": [{"name": "WORLD_SIZE", "value": str(count)}, {"name": "RANK", "value": str(index)}],
    }
