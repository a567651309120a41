"""Baidu AIHC v2 training jobs (action-style ``POST /?action=DescribeJob``): facts the schema cannot say.

The sources disagree on spellings (``../shared/reference/aihc-v2.md``): the SDKs wrap the job as
``{"requestId", "job": JobItem}``, the documentation's example puts the job's fields beside
``requestId``; ids, queues, the spec and pod IPs are spelled differently by each. Every spelling is
read here, the Python SDK's first (it is the client ``serve`` answers and the tests drive).
"""

from __future__ import annotations

from typing import Any

JOB_SCHEMA = "aihc-v2-job"
#: Every v2 call is ``POST /?action=NAME&resourcePoolId=…&queueID=…`` with a JSON body.
ACTION_PATH = "/"
DESCRIBE_JOB = "DescribeJob"
CREATE_JOB = "CreateJob"
#: The query parameters that say where the job lives.
POOL_PARAMETER = "resourcePoolId"
QUEUE_PARAMETER = "queueID"
#: The body members of a DescribeJob request.
JOB_ID_MEMBER = "jobId"
NEED_DETAIL_MEMBER = "needDetail"
#: Members of a job answer that differ on every answer without the job changing.
NOISE: tuple[str, ...] = ("/requestId",)
#: Members that only a ``needDetail: true`` answer has.
DETAIL_ONLY = ("pods", "historyPods")

#: The Python SDK's spelling of each member, and the other sources' spellings of the same member
#: with who uses them: ``(where, python spelling, other spelling, its source)``. ``where`` is
#: ``job`` (a job's fields, wrapped or flattened), ``item`` (only inside the wrapped ``job``) or
#: ``pod`` (a current or former pod).
SPELLINGS: tuple[tuple[str, str, str, str], ...] = (
    ("job", "jobid", "jobId", "the documentation's"),
    ("job", "queue", "queueId", "the documentation's"),
    ("job", "Job", "jobSpec", "the documentation's"),
    ("item", "Job", "job", "the Java SDK's"),
    ("pod", "PodIP", "podIP", "the Java SDK's and the documentation's"),
)
#: The spellings of the job's container spec, the Python SDK's first.
SPEC_KEYS = ("Job", "job", "jobSpec")
#: The spellings of the job id and of a pod's IP, the Python SDK's first.
ID_KEYS = ("jobid", "jobId")
QUEUE_KEYS = ("queue", "queueId")
POD_IP_KEYS = ("PodIP", "podIP")


def is_wrapped(value: Any) -> bool:
    """True for the SDKs' shape, ``{"requestId", "job": {...}}``."""
    return isinstance(value, dict) and isinstance(value.get("job"), dict)


def job_of(value: Any) -> dict[str, Any]:
    """The job's fields: the wrapped ``job``, or the answer itself when flattened (empty when neither)."""
    if not isinstance(value, dict):
        return {}
    inner = value.get("job")
    return inner if isinstance(inner, dict) else value


def job_path(value: Any) -> tuple[str, ...]:
    """Where the job's fields are: ``("job",)`` in the wrapped shape, ``()`` in the flattened one."""
    return ("job",) if is_wrapped(value) else ()


def first(members: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any] | None:
    """The first of ``keys`` that ``members`` has, with its value (None when it has none)."""
    for key in keys:
        if key in members:
            return key, members[key]
    return None


def spec_of(job: dict[str, Any]) -> dict[str, Any]:
    """The job's container spec under any of its spellings (empty when it has none)."""
    for key in SPEC_KEYS:
        spec = job.get(key)
        if isinstance(spec, dict):
            return spec
    return {}


def job_id(value: Any) -> str | None:
    """The job's id under either spelling (None when it has none)."""
    found = first(job_of(value), ID_KEYS)
    return found[1] if found and isinstance(found[1], str) and found[1] else None


def answer_job_id(value: Any) -> str | None:
    """The job id of a v2 DescribeJob answer (it has ``requestId``), wrapped or flattened, under
    either spelling; None for anything else. What a reader that follows several jobs apart keys a v2
    answer by, beside v1's ``result.jobId`` and Run:ai's ``workloadId``."""
    return job_id(value) if isinstance(value, dict) and "requestId" in value else None


def phase(value: Any) -> str | None:
    """The job's ``status`` (None when it has none)."""
    found = job_of(value).get("status")
    return found if isinstance(found, str) else None


def without_detail(value: dict[str, Any]) -> dict[str, Any]:
    """An answer as ``needDetail: false`` gets it: the pods and former pods left out."""
    out = dict(value)
    if is_wrapped(out):
        out["job"] = {k: v for k, v in out["job"].items() if k not in DETAIL_ONLY}
        return out
    return {k: v for k, v in out.items() if k not in DETAIL_ONLY}


def pod_ip(pod: Any) -> Any:
    """A pod's IP under either spelling (None when it has none)."""
    found = first(pod, POD_IP_KEYS) if isinstance(pod, dict) else None
    return found[1] if found else None


#: Each other source's spelling of a job member, as the Python SDK spells it.
_JOB_ALIASES = {"jobId": "jobid", "queueId": "queue", "jobSpec": "Job", "job": "Job"}
_POD_LISTS = ("pods", "historyPods")


def canonical_segments(segments: tuple[str, ...]) -> tuple[str, ...]:
    """A schema place's segments as the SDKs' wrapped shape spells them in the Python SDK: a
    flattened answer's member is the same member under ``job``, and ``jobId``/``queueId``, the spec's
    ``jobSpec``/``job`` and a pod's ``podIP`` are ``jobid``/``queue``, ``Job`` and ``PodIP``
    (``coverage`` counts a member once, whichever shape and spelling an answer used)."""
    if not segments or segments[0] == "requestId":
        return segments
    rest = list(segments[1:] if segments[0] == "job" else segments)
    if rest:
        rest[0] = _JOB_ALIASES.get(rest[0], rest[0])
    if len(rest) >= 3 and rest[0] in _POD_LISTS and rest[1] == "[]" and rest[2] == "podIP":
        rest[2] = "PodIP"
    return ("job", *rest)


def without_nulls(value: Any) -> Any:
    """``value`` with every null member of every object left out, at any depth (a null item of an
    array stays: it is no member). v2 as its SDKs read it: null is absent (they skip None), so a
    request's ``"command": null`` is no command and ``"needDetail": null`` the default (the stub
    server's reading), and an answer drawn for tests holds no null member (a server leaves it out)."""
    if isinstance(value, dict):
        return {key: without_nulls(member) for key, member in value.items() if member is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value
