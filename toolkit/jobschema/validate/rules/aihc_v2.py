"""Semantic rules for Baidu AIHC v2 DescribeJob answers (``aihc-v2-job``), wrapped or flattened.

Where the sources spell a member differently, the schema accepts every spelling and
``aihc-v2-spelling`` warns about each one the Python SDK (the reference client) would not read,
naming whose spelling it is. Every check reads the payload loosely, like the v1 rules: a member of
an unexpected type is skipped (the schema reports it). No environment value reaches a message.

Both SDKs read a member with ``if m.get(KEY) is not None:``, so a null member is an absent one: the
schema lets every member it does not require be null, ``aihc-v2-null-member`` warns about each, and
the other rules read a null member as absent (a terminal job with a null ``finishedAt`` is one
without it; a null ``jobSpec`` is spelled nowhere).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from jobschema.apis.aihc_v2 import JOB_SCHEMA as V2
from jobschema.apis.aihc_v2 import SPELLINGS, is_wrapped, job_of, job_path, spec_of
from jobschema.pointer import Tokens
from jobschema.validate.rules import number, rule, short
from jobschema.validate.rules.aihc import unfinished

if TYPE_CHECKING:
    from jobschema.schemas.places import Place

Findings = Iterator[tuple[Tokens, str]]
POD_LISTS = ("pods", "historyPods")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _pods(job: dict[str, Any], member: str = "pods") -> list[tuple[int, dict[str, Any]]]:
    """``(index, pod)`` of each pod object of ``member``."""
    return [(index, pod) for index, pod in enumerate(_list(job.get(member))) if isinstance(pod, dict)]


def _spec_path(job: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The key the job's spec is under, and the spec (None when it has none)."""
    spec = spec_of(job)
    if not spec:
        return None
    key = next(key for key, value in job.items() if value is spec)
    return key, spec


@rule(
    "aihc-v2-spelling",
    V2,
    "warning",
    "A member spelled as only the documentation or the Java SDK spells it: the Python SDK does not read it",
)
def spelling(payload: dict[str, Any]) -> Findings:
    where = job_path(payload)
    job = job_of(payload)
    if not where and job:
        yield (
            (),
            (
                "the job's fields beside requestId are the documentation's flattened shape; "
                'both SDKs read the job under "job"'
            ),
        )
    for place, python, other, source in SPELLINGS:
        if (place == "job" or (place == "item" and is_wrapped(payload))) and job.get(other) is not None:
            yield (*where, other), f'"{other}" is {source} spelling; the Python SDK reads "{python}"'
    for member in POD_LISTS:
        for index, pod in _pods(job, member):
            for place, python, other, source in SPELLINGS:
                if place == "pod" and pod.get(other) is not None:
                    message = f'"{other}" is {source} spelling; the Python SDK reads "{python}"'
                    yield (*where, member, index, other), message


@rule(
    "aihc-v2-fractional-quantity",
    V2,
    "warning",
    "Resource quantities should be whole numbers: both SDKs model quantity as an integer",
)
def fractional_quantity(payload: dict[str, Any]) -> Findings:
    for where, quantity, resource in _quantities(payload):
        if isinstance(quantity, float) and not quantity.is_integer():
            message = f"quantity {short(quantity)}{_of(resource)} is a fraction; both SDKs read an integer"
            yield where, message + " (v1 sends numbers)"


def _quantities(payload: dict[str, Any]) -> Iterator[tuple[Tokens, float | int, dict[str, Any]]]:
    """Each numeric resource quantity of the job's spec: its place, value and resource."""
    found = _spec_path(job_of(payload))
    if found is None:
        return
    key, spec = found
    at = (*job_path(payload), key, "resources")
    for index, resource in enumerate(_list(spec.get("resources"))):
        item = resource if isinstance(resource, dict) else {}
        quantity = number(item.get("quantity"))
        if quantity is not None:
            yield (*at, index, "quantity"), quantity, item


def _of(resource: dict[str, Any]) -> str:
    """`` of "NAME"`` for a resource with a name (worded only for a finding)."""
    name = resource.get("name")
    return f" of {short(name)}" if isinstance(name, str) else ""


@rule("aihc-v2-negative-quantity", V2, "error", "Resource quantities must not be negative")
def negative_quantity(payload: dict[str, Any]) -> Findings:
    for where, quantity, resource in _quantities(payload):
        if quantity < 0:
            yield where, f"quantity {short(quantity)}{_of(resource)} is negative"


@rule(
    "aihc-v2-terminal-without-finished-at",
    V2,
    "warning",
    "A job in a terminal status (Succeeded, Failed, Stopped, ManualTermination) should have finishedAt",
)
def terminal_without_finished_at(payload: dict[str, Any]) -> Findings:
    job = job_of(payload)
    if job.get("finishedAt", "") is None:  # (null reads as absent)
        job = {key: value for key, value in job.items() if key != "finishedAt"}
    yield from unfinished(job, job_path(payload))


@rule("aihc-v2-running-with-finished-at", V2, "warning", "A Running job should have no finishedAt")
def running_with_finished_at(payload: dict[str, Any]) -> Findings:
    job = job_of(payload)
    finished = job.get("finishedAt")
    if job.get("status") == "Running" and isinstance(finished, str) and finished:
        message = f'status "Running" but finishedAt is {short(finished)}, not empty'
        yield (*job_path(payload), "finishedAt"), message


@rule(
    "aihc-v2-duplicate-pod-name", V2, "error", "Pod names must be unique within pods (not across historyPods)"
)
def duplicate_pod_name(payload: dict[str, Any]) -> Findings:
    first_seen: dict[str, int] = {}
    for index, pod in _pods(job_of(payload)):
        name = pod.get("name")
        if not isinstance(name, str):
            continue
        if name in first_seen:
            message = f"pod name {short(name)} repeats the name of pod {first_seen[name]}"
            yield (*job_path(payload), "pods", index, "name"), message
        else:
            first_seen[name] = index


@rule(
    "aihc-v2-pods-exceed-replicas",
    V2,
    "warning",
    "A job should not list more current pods than its spec's replicas, nor fewer while Running",
)
def pods_exceed_replicas(payload: dict[str, Any]) -> Findings:
    job = job_of(payload)
    found = _spec_path(job)
    replicas = number(found[1].get("replicas")) if found else None
    if replicas is None or not isinstance(job.get("pods"), list) or found is None:
        return
    pods = _pods(job)  # (a null item, or any other that is no object, is no pod: the schema says it)
    where = (*job_path(payload), found[0], "replicas")
    if len(pods) > replicas:
        yield where, f"{len(pods)} pods are listed, more than replicas {short(replicas)}"
    elif job.get("status") == "Running" and pods and len(pods) < replicas:
        yield where, f'status "Running" with {len(pods)} pods listed, fewer than replicas {short(replicas)}'


def _moment(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware datetime (None when it is not one)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


@rule("aihc-v2-timeline-order", V2, "warning", "jobTimeLine entries should be in time order, oldest first")
def timeline_order(payload: dict[str, Any]) -> Findings:
    job = job_of(payload)
    latest: tuple[int, datetime] | None = None
    for index, entry in enumerate(_list(job.get("jobTimeLine"))):
        moment = _moment(entry.get("time")) if isinstance(entry, dict) else None
        if moment is None:
            continue
        if latest is not None and moment < latest[1]:
            message = f"time {short(entry['time'])} is earlier than entry {latest[0]}'s"
            yield (*job_path(payload), "jobTimeLine", index, "time"), message
        else:
            latest = (index, moment)


@rule(
    "aihc-v2-restarting-without-restarts",
    V2,
    "warning",
    "A Restarting job with its pods listed should have a pod restarted (restartCount > 0) or replaced "
    "(historyPods)",
)
def restarting_without_restarts(payload: dict[str, Any]) -> Findings:
    job = job_of(payload)
    if job.get("status") != "Restarting" or not _pods(job):  # (pod objects: a null item is none)
        return
    if _pods(job, "historyPods"):
        return
    if any((number(pod.get("restartCount")) or 0) > 0 for _, pod in _pods(job)):
        return
    message = (
        'status "Restarting" but no pod has restarted (every restartCount is 0) and historyPods is empty'
    )
    yield (*job_path(payload), "status"), message


@rule(
    "aihc-v2-history-pod-uid-reused",
    V2,
    "error",
    "A former pod (historyPods) must not have the uid of a current pod: a replaced pod gets a new uid",
)
def history_pod_uid_reused(payload: dict[str, Any]) -> Findings:
    job = job_of(payload)
    current = {pod.get("uid") for _, pod in _pods(job) if isinstance(pod.get("uid"), str) and pod.get("uid")}
    for index, pod in _pods(job, "historyPods"):
        uid = pod.get("uid")
        if isinstance(uid, str) and uid in current:
            message = f"uid {short(uid)} is also a current pod's: a replaced pod gets a new uid"
            yield (*job_path(payload), "historyPods", index, "uid"), message


@rule(
    "aihc-v2-null-member",
    V2,
    "warning",
    "An optional member is null; both SDKs read a null member as absent (a server should leave it out)",
)
def null_member(payload: dict[str, Any]) -> Findings:
    if not _may_hold_null_member(payload):
        return
    yield from _nulls(payload, _places(), ())


def _may_hold_null_member(payload: dict[str, Any]) -> bool:
    """False when no member of ``payload`` is null: orjson's compact writing of it then has no
    ``":null`` (a member's value follows its key's closing quote and colon), read in C rather than
    walked (True, so walked, when a string holds those characters or the value is not JSON's)."""
    import orjson

    try:
        return b'":null' in orjson.dumps(payload)
    except (TypeError, orjson.JSONEncodeError):
        return True


def _nulls(value: Any, place: Place, at: Tokens) -> Findings:
    """Each null member of ``value`` whose schema lets it be null (the schema's own errors report
    the others), at any depth, as the schema's place tree says (:mod:`jobschema.schemas.places`)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            child = place.item(index)
            if child is not None:
                yield from _nulls(item, child, (*at, index))
        return
    if not isinstance(value, dict):
        return
    for key, member in value.items():
        child = place.child(key)
        if child is None:
            continue
        if member is None:
            if child.nullable:
                yield (*at, key), f'"{key}" is null; both SDKs read a null member as absent (they skip None)'
        else:
            yield from _nulls(member, child, (*at, key))


@cache
def _places() -> Place:
    """The root of the v2 schema's place tree (built once)."""
    from jobschema.schemas import registry
    from jobschema.schemas.places import compile_places

    return compile_places(registry.load(V2).document)[0]
