"""The one mapping between AIHC v1 (``GET /api/v1/aijobs/ID``) and v2 (``DescribeJob``) job answers:
the fields both APIs say about a job, under one name each, and what only one of them has.

``jobschema diff`` compares a v1 and a v2 capture of the same job through it, and ``jobschema serve``
answers ``DescribeJob`` for jobs it keeps as v1 details through it. The shared view::

    id, name, status, priority, queue, resourcePoolId, createdAt, finishedAt    (the job's own)
    image, replicas, enableRDMA, hostNetwork, resources[name]                    (v1 result.*, v2 job spec)
    envs[name], labels[key], datasources                                         (the job's lists)
    pods[name]: ip, node, phase, replicaType, restartCount, createdAt, finishedAt, reason

v1 pod names are ``objectMeta.name``, its phase ``podStatus.podPhase``, its creation time
``objectMeta.creationTimestamp``; v2 spells them ``name``, ``status``, ``creationAt``. Every other
member is one API's alone (v1 ``runningAt``, ``k8sUID``, ``command``; v2 ``jobTimeLine``,
``historyPods``, ``userId``, ``imageConfig``), listed by :func:`only_in`.
"""

from __future__ import annotations

from typing import Any

from jobschema.apis import aihc_v2

#: Job members of the shared view, the same name on both sides.
JOB_FIELDS = (
    "name", "status", "priority", "queue", "resourcePoolId", "createdAt", "finishedAt", "datasources",
    "labels", "enableBccl", "enableBcclStatus", "enableBcclErrorReason", "enableFaultTolerance",
    "faultToleranceArgs",
)  # fmt: skip
#: Members of the v1 ``result`` that v2 keeps in the job's spec.
SPEC_FIELDS = ("image", "replicas", "enableRDMA", "hostNetwork", "resources", "envs")
#: v1 members whose v2 counterpart is spelled otherwise (or lives elsewhere): not "only v1".
V1_MAPPED = {"jobId", "podList", *JOB_FIELDS, *SPEC_FIELDS}
V2_MAPPED = {"jobid", "jobId", "pods", "queueId", "jobSpec", "Job", "job", *JOB_FIELDS}


def v1_result(value: Any) -> dict[str, Any]:
    """A v1 answer's ``result`` (empty when it has none)."""
    inner = value.get("result") if isinstance(value, dict) else None
    return inner if isinstance(inner, dict) else {}


def shared_v1(value: Any) -> dict[str, Any]:
    """The shared view of a v1 job detail."""
    result = v1_result(value)
    view: dict[str, Any] = {"id": result.get("jobId")}
    view |= {key: result[key] for key in JOB_FIELDS if key in result}
    view |= {key: result[key] for key in SPEC_FIELDS if key in result}
    pods = (result.get("podList") or {}).get("pods") if isinstance(result.get("podList"), dict) else None
    view["pods"] = [_v1_pod(pod) for pod in pods or [] if isinstance(pod, dict)]
    return _present(view)


def shared_v2(value: Any) -> dict[str, Any]:
    """The shared view of a v2 DescribeJob answer (wrapped or flattened, any source's spelling)."""
    job = aihc_v2.job_of(value)
    spec = aihc_v2.spec_of(job)
    view: dict[str, Any] = {"id": aihc_v2.job_id(value)}
    view |= {key: job[key] for key in JOB_FIELDS if key in job}
    if "queue" not in view and "queueId" in job:
        view["queue"] = job["queueId"]
    view |= {key: spec[key] for key in SPEC_FIELDS if key in spec}
    if "pods" in job:
        view["pods"] = [_v2_pod(pod) for pod in job.get("pods") or [] if isinstance(pod, dict)]
    return _present(view)


def only_in(value: Any, api: str) -> list[str]:
    """The members of a job answer that the other API does not have (sorted), as ``name`` paths."""
    if api == "v1":
        result = v1_result(value)
        return sorted(f"result.{key}" for key in result if key not in V1_MAPPED)
    job = aihc_v2.job_of(value)
    prefix = "job." if aihc_v2.is_wrapped(value) else ""
    found = [f"{prefix}{key}" for key in job if key not in V2_MAPPED and key != "requestId"]
    spec_key = next((key for key in aihc_v2.SPEC_KEYS if isinstance(job.get(key), dict)), None)
    if spec_key is not None:
        spec = job[spec_key]
        found += [f"{prefix}{spec_key}.{key}" for key in spec if key not in SPEC_FIELDS]
    return sorted(found)


def _v1_pod(pod: dict[str, Any]) -> dict[str, Any]:
    meta = _dict(pod.get("objectMeta"))
    status = _dict(pod.get("podStatus"))
    return _present(
        {
            "name": meta.get("name"),
            "ip": pod.get("PodIP"),
            "node": pod.get("nodeName"),
            "phase": status.get("podPhase"),
            "replicaType": pod.get("replicaType"),
            "restartCount": pod.get("restartCount"),
            "createdAt": meta.get("creationTimestamp"),
            "finishedAt": pod.get("finishedAt"),
            "reason": pod.get("reason"),
            "envs": pod.get("envs"),
        }
    )


def _v2_pod(pod: dict[str, Any]) -> dict[str, Any]:
    return _present(
        {
            "name": pod.get("name"),
            "ip": aihc_v2.pod_ip(pod),
            "node": pod.get("nodeName"),
            "phase": pod.get("status"),
            "replicaType": pod.get("replicaType"),
            "restartCount": pod.get("restartCount"),
            "createdAt": pod.get("creationAt"),
            "finishedAt": pod.get("finishedAt"),
            "reason": pod.get("reason"),
            "envs": pod.get("envs"),
        }
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _present(view: dict[str, Any]) -> dict[str, Any]:
    """The members that say something: absent and ``None`` alike are left out (one side may omit
    what the other sends as null or empty)."""
    return {key: value for key, value in view.items() if value is not None}


#: The v2 ``jobType`` of a v1 ``jobFramework``.
JOB_TYPES = {"pytorch": "pytorchjob", "mpi": "mpijob"}
#: The v2 timeline's entry for each v1 time, in order.
TIMELINE = (("createdAt", "Created"), ("scheduledAt", "Scheduled"), ("runningAt", "Running"))


def to_v2(value: Any, request_id: str, need_detail: bool = True) -> dict[str, Any]:
    """The v2 DescribeJob answer (the SDKs' wrapped shape) saying what a v1 job detail says: the
    shared view's members under v2's names, the timeline from v1's times, pods only with
    ``need_detail`` (as the API answers ``needDetail: false``)."""
    result = v1_result(value)
    job: dict[str, Any] = {"jobid": result.get("jobId"), "name": result.get("name")}
    job |= {key: result[key] for key in JOB_FIELDS if key in result}
    framework = result.get("jobFramework")
    job["jobType"] = JOB_TYPES.get(framework, str(framework)) if framework else "pytorchjob"
    job["Job"] = {key: result[key] for key in SPEC_FIELDS if key in result}
    job["jobTimeLine"] = _timeline(result)
    if need_detail:
        listed = (
            (result.get("podList") or {}).get("pods") if isinstance(result.get("podList"), dict) else None
        )
        job["pods"] = [_v2_pod_of(pod) for pod in listed or [] if isinstance(pod, dict)]
        job["historyPods"] = []
    return {"requestId": request_id, "job": {k: v for k, v in job.items() if v is not None}}


def _timeline(result: dict[str, Any]) -> list[dict[str, str]]:
    entries = [
        {"conditionType": kind, "conditionMessage": "", "time": result[key]}
        for key, kind in TIMELINE
        if isinstance(result.get(key), str) and result[key]
    ]
    finished, status = result.get("finishedAt"), result.get("status")
    if isinstance(finished, str) and finished and isinstance(status, str):
        entries.append({"conditionType": status, "conditionMessage": "", "time": finished})
    return entries


def _v2_pod_of(pod: dict[str, Any]) -> dict[str, Any]:
    view = _v1_pod(pod)
    meta = _dict(pod.get("objectMeta"))
    out = {
        "name": view.get("name"),
        "PodIP": view.get("ip"),
        "nodeName": view.get("node"),
        "creationAt": view.get("createdAt"),
        "uid": meta.get("uid"),
        "status": view.get("phase"),
        "replicaType": view.get("replicaType"),
        "restartCount": view.get("restartCount"),
        "envs": view.get("envs"),
        "finishedAt": view.get("finishedAt"),
        "reason": view.get("reason"),
    }
    return {key: value for key, value in out.items() if value is not None}
