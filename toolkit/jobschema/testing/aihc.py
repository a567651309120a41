"""AIHC fix-ups: turn schema-valid drafts into jobs that look real and pass every semantic rule.

A job detail gets 1 to 6 pods built from one drawn pod (as a real job's replicas are alike) and named
``<job>-<role>-<i>``; ``WORLD_SIZE`` is the pod count and the ``RANK`` values are a permutation of
0..n-1; ``totalItems`` counts the pods; the ``openapi-jobid`` labels and annotations repeat
``jobId``; timestamps follow the status (a terminal job has ``finishedAt``, a running one ``""``);
and every pod carries the same raw-request annotation, a create request consistent with the job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from jobschema.apis.aihc import JOB_ID_KEY
from jobschema.apis.aihc import RAW_REQUEST_ANNOTATION as RAW_ANNOTATION
from jobschema.lifecycle import terminal_values
from jobschema.testing import values

PODS = "#/$defs/PodList/properties/pods"
RAW_LOCATION = "#/$defs/PodAnnotations/properties/aijob.cce.baidubce.com~1raw-request"
JOB_SPEC = "#/$defs/JobSpec"
KUBEFLOW = "training.kubeflow.org/"

TERMINAL = terminal_values("aihc")
WAITING = frozenset({"Created", "ToBeSubmitted", "Pending"})
SCHEDULED = frozenset({"Scheduled", "Starting"})
PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
#: job status -> the phase of its pods; under other statuses (Failed, Restarting, …) each pod draws one
POD_PHASES = {
    "Running": "Running",
    "Succeeded": "Succeeded",
    **dict.fromkeys(WAITING | SCHEDULED, "Pending"),
}


@dataclass(frozen=True)
class Kind:
    """A training framework: its job-id prefix, workload kind, first role and the names it goes by."""

    prefix: str
    workload: str
    role: str
    detail_names: tuple[str, ...]
    raw_names: tuple[str, ...]
    workload_types: tuple[str, ...]


PYTORCH = Kind("pytorchjob", "PyTorchJob", "master", ("pytorch", "PyTorchJob"), ("PyTorchJob", "pytorch"),
               ("PyTorchJob", "PytorchJob"))  # fmt: skip
MPI = Kind("mpijob", "MPIJob", "launcher", ("mpi", "MPIJob"), ("MPIJob",), ("MPIJob",))
KINDS = (PYTORCH, MPI)


@dataclass(frozen=True)
class Timeline:
    """When the job was created, scheduled, started and finished, and how timestamps are written."""

    created: datetime
    scheduled: datetime
    running: datetime
    finished: datetime
    style: int

    def text(self, moment: datetime) -> str:
        return values.rfc3339(moment, self.style)


def timelines() -> SearchStrategy[Timeline]:
    def build(created: datetime, a: int, b: int, c: int, style: int) -> Timeline:
        scheduled = created + timedelta(seconds=a)
        running = scheduled + timedelta(seconds=b)
        return Timeline(created, scheduled, running, running + timedelta(seconds=c), style)

    return st.builds(
        build, values.moments(), st.integers(1, 600), st.integers(1, 900), st.integers(60, 3 * 86400),
        st.sampled_from((0, 0, 1, 2)),
    )  # fmt: skip


@dataclass(frozen=True)
class PodDraw:
    """What differs between the replicas of one job."""

    ip: str
    restarts: int
    phase: str


POD_DRAWS = st.builds(PodDraw, values.ipv4(), st.integers(0, 3), values.pick(PHASES))


def job_details(
    base: SearchStrategy[dict[str, Any]],
    pod: SearchStrategy[dict[str, Any]],
    raw: Any,
) -> SearchStrategy[dict[str, Any]]:
    """Job detail payloads: ``base`` without pods, one drawn ``pod`` repeated, ``raw(kind, n, job)``."""
    return _job_details(base, pod, raw)


@st.composite
def _job_details(draw: Any, base: Any, pod: Any, raw: Any) -> dict[str, Any]:
    payload = draw(base)
    result = payload["result"]
    kind = draw(values.pick(KINDS))
    count = draw(st.integers(1, 6))
    timeline = draw(timelines())
    _fix_result(result, kind, f"{kind.prefix}-{draw(values.uuid())}", count, timeline)
    if "jobFramework" in result:
        result["jobFramework"] = draw(st.sampled_from(kind.detail_names))
    template = draw(pod)
    text = json.dumps(draw(raw(kind, count, result)), ensure_ascii=False, separators=(",", ":"))
    ranks = draw(st.permutations(range(count)))
    draws = draw(st.lists(POD_DRAWS, min_size=count, max_size=count))
    roles = [(kind.role, 0)] + [("worker", i) for i in range(count - 1)]
    result["podList"]["pods"] = [
        _pod(template, result, kind, role, (ranks[n], count), text, timeline, draws[n])
        for n, role in enumerate(roles)
    ]
    return payload


def _fix_result(result: dict[str, Any], kind: Kind, job_id: str, count: int, timeline: Timeline) -> None:
    result["jobId"] = job_id
    _set_label(result["labels"], JOB_ID_KEY, job_id)
    if "replicas" in result:
        result["replicas"] = count
    result["podList"]["listMeta"]["totalItems"] = count
    status = result["status"]
    result["createdAt"] = timeline.text(timeline.created)
    result["finishedAt"] = timeline.text(timeline.finished) if status in TERMINAL else ""
    if "scheduledAt" in result:
        result["scheduledAt"] = "" if status in WAITING else timeline.text(timeline.scheduled)
    if "runningAt" in result:
        started = status not in WAITING | SCHEDULED
        result["runningAt"] = timeline.text(timeline.running) if started else ""
    for env in result.get("envs", ()):
        if env["name"] == "AIHC_JOB_NAME":
            env["value"] = result["name"]


def _set_label(labels: list[dict[str, Any]], key: str, value: str) -> None:
    for label in labels:
        if label["key"] == key:
            label["value"] = value
            return
    labels.append({"key": key, "value": value})


def _pod(
    template: dict[str, Any],
    result: dict[str, Any],
    kind: Kind,
    role: tuple[str, int],
    rank: tuple[int, int],
    raw: str,
    timeline: Timeline,
    draw: PodDraw,
) -> dict[str, Any]:
    pod = json.loads(json.dumps(template))
    pod.update(PodIP=draw.ip, nodeName=draw.ip, replicaType=role[0], restartCount=draw.restarts)
    phase = POD_PHASES.get(result["status"], draw.phase)
    pod["podStatus"] = {**pod["podStatus"], "podPhase": phase, "status": phase}
    if "finishedAt" in pod:
        ended = result["status"] in TERMINAL
        pod["finishedAt"] = timeline.text(timeline.finished - timedelta(seconds=2)) if ended else ""
    envs = [env for env in pod.get("envs", ()) if env["name"] not in ("WORLD_SIZE", "RANK")]
    pod["envs"] = [
        *envs,
        {"name": "WORLD_SIZE", "value": str(rank[1])},
        {"name": "RANK", "value": str(rank[0])},
    ]
    _fix_meta(pod["objectMeta"], result, kind, role, raw, timeline)
    return pod


def _fix_meta(
    meta: dict[str, Any],
    result: dict[str, Any],
    kind: Kind,
    role: tuple[str, int],
    raw: str,
    timeline: Timeline,
) -> None:
    job = result["name"]
    meta["name"] = f"{job}-{role[0]}-{role[1]}"
    if "namespace" in meta and "k8sNamespace" in result:
        meta["namespace"] = result["k8sNamespace"]
    if "creationTimestamp" in meta:
        meta["creationTimestamp"] = timeline.text(timeline.created + timedelta(seconds=1))
    if isinstance(meta.get("labels"), dict):
        _fix_labels(meta["labels"], job, result["jobId"], kind, role)
    if isinstance(meta.get("annotations"), dict):
        _fix_annotations(meta["annotations"], job, result["jobId"], kind, role, raw)
    if meta.get("ownerReferences"):
        owner = meta["ownerReferences"][0]
        owner.update(apiVersion="kubeflow.org/v1", kind=kind.workload, name=job)
        owner["uid"] = result.get("k8sUID", owner["uid"])
        meta["ownerReferences"] = [owner]


def _fix_labels(labels: dict[str, Any], job: str, job_id: str, kind: Kind, role: tuple[str, int]) -> None:
    labels[JOB_ID_KEY] = job_id
    labels[KUBEFLOW + "job-name"] = job
    labels[KUBEFLOW + "operator-name"] = f"{kind.prefix}-controller"
    labels[KUBEFLOW + "replica-index"] = str(role[1])
    labels[KUBEFLOW + "replica-type"] = role[0]
    if role[0] == kind.role:
        labels[KUBEFLOW + "job-role"] = role[0]
    else:
        labels.pop(KUBEFLOW + "job-role", None)


def _fix_annotations(
    annotations: dict[str, Any], job: str, job_id: str, kind: Kind, role: tuple[str, int], raw: str
) -> None:
    annotations[JOB_ID_KEY] = job_id
    if RAW_ANNOTATION in annotations:
        annotations[RAW_ANNOTATION] = raw
    named = {
        "volcano.sh/task-spec": role[0],
        "cce-workload-kind": kind.workload,
        "cce-workload-name": job,
        "scheduling.k8s.io/group-name": job,
    }
    for key, value in named.items():
        if key in annotations:
            annotations[key] = value


def raw_requests(base: SearchStrategy[dict[str, Any]], replica: SearchStrategy[dict[str, Any]]) -> Any:
    """``raw(kind, count, job)``: raw create requests; ``kind``/``count``/``job`` (a job result) fix them."""

    def raw(kind: Kind | None = None, count: int | None = None, job: dict[str, Any] | None = None) -> Any:
        return _raw_request(base, replica, kind, count, job)

    return raw


@st.composite
def _raw_request(
    draw: Any, base: Any, replica: Any, kind: Kind | None, count: int | None, job: dict[str, Any] | None
) -> dict[str, Any]:
    raw = draw(base)
    kind = kind or draw(values.pick(KINDS))
    count = count or draw(st.integers(1, 6))
    spec = draw(replica)
    if job is not None:
        raw["name"] = job["name"]
        spec.update(image=job["image"], command=job["command"])
        raw.update({k: job[k] for k in ("command", "queue", "priority") if k in raw})
    first = {**spec, "replicas": 1}
    raw["jobSpec"] = {kind.role.capitalize(): first}
    if count > 1:
        raw["jobSpec"]["Worker"] = {**json.loads(json.dumps(spec)), "replicas": count - 1}
    _fix_raw_fields(raw, kind, count, draw)
    return raw


def _fix_raw_fields(raw: dict[str, Any], kind: Kind, count: int, draw: Any) -> None:
    if "jobFramework" in raw:
        raw["jobFramework"] = draw(st.sampled_from(kind.raw_names))
    if "workloadType" in raw:
        raw["workloadType"] = draw(st.sampled_from(kind.workload_types))
    if "jobDistributed" in raw:
        raw["jobDistributed"] = count > 1
    for role in raw["jobSpec"].values():
        env = role.get("env")
        if isinstance(env, dict) and "AIHC_JOB_NAME" in env:
            env["AIHC_JOB_NAME"] = raw["name"]
