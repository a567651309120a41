"""Pick the bundled schema a payload is an instance of, by its shape.

Detection looks only at the top-level keys (and the type of a few of their values), so it is cheap and
predictable. Each schema has its marks (:data:`_CANDIDATES`); a payload that fits nothing gets a reason
per candidate.

A payload that holds the marks of more than one schema is **ambiguous** and gets no schema, with a
reason naming each schema and the mark it was fitted by (``fits aihc-job-detail (its 'result'
object) and aihc-v2-job (its 'job' object)``): which answer it is cannot be told from it, and a guess
would check, diff or count it as the wrong one. A mark counts only where the schema that fits does not
declare its key: an AIHC v2 answer in the documentation's flattened shape holds a raw request's
``jobSpec`` and ``name``, which v2 declares, so it is v2's; a Run:ai error body beside a
``requestId`` (a mark of every AIHC answer, declared by no Run:ai schema) is ambiguous.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from jobschema.text import json_type

#: How each reason of a payload no schema is chosen for ends: what a user of validate, diff or coverage
#: does about it.
ADVICE = "; pass --schema"


@dataclass(frozen=True)
class Detection:
    """The schema name chosen, or ``None`` with a one-line explanation; ``fits`` names the schemas an
    ambiguous payload has the marks of, in candidate order (empty otherwise; a mark of every AIHC
    answer, ``requestId``, names each AIHC answer's schema)."""

    schema: str | None
    reason: str = ""
    fits: tuple[str, ...] = ()

    @property
    def why(self) -> str:
        """The reason without its advice to pass ``--schema``, for a command that has no such option."""
        return self.reason.removesuffix(ADVICE)

    @property
    def ambiguous(self) -> bool:
        """True when the payload holds the marks of more than one schema."""
        return len(self.fits) > 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_aihc_v2_job(payload: dict[str, Any]) -> bool:
    """An AIHC v2 DescribeJob answer: the SDKs' wrapped ``{requestId, job: {...}}``, or the
    documentation's flattened shape (the job's id with its status or spec beside ``requestId``)."""
    if "requestId" not in payload:
        return False
    if isinstance(payload.get("job"), dict):
        return True
    has_id = "jobId" in payload or "jobid" in payload
    return has_id and ("status" in payload or "jobSpec" in payload)


#: Each candidate schema: whether a payload fits it by its top-level keys, and why not when not.
_CANDIDATES: tuple[tuple[str, Callable[[dict[str, Any]], bool], str], ...] = (
    (
        "runai-distributed-workload",
        lambda p: "workloadId" in p or ("desiredPhase" in p and ("spec" in p or "name" in p)),
        "no 'workloadId' or 'desiredPhase'",
    ),
    (
        "runai-error",
        lambda p: _is_int(p.get("code")) and "message" in p,
        "no integer 'code' with a 'message'",
    ),
    (
        "aihc-job-detail",
        lambda p: isinstance(result := p.get("result"), dict) and ("jobId" in result or "podList" in result),
        "no 'result' object with 'jobId' or 'podList'",
    ),
    (
        "aihc-error",
        lambda p: isinstance(p.get("code"), str) and "requestId" in p,
        "no string 'code' with a 'requestId'",
    ),
    (
        "aihc-raw-request",
        lambda p: isinstance(p.get("jobSpec"), dict) and "name" in p,
        "no 'jobSpec' object with a 'name'",
    ),
    (
        "aihc-v2-job",
        _is_aihc_v2_job,
        "no 'job' object beside 'requestId', nor a 'jobId'/'jobid' with 'status' or 'jobSpec' beside it",
    ),
)

#: The marks: a top-level key (with the type of its value) that only the answers of these schemas
#: hold, what to call it, and the schemas it marks. ``requestId`` marks every AIHC answer.
_AIHC_ANSWERS = ("aihc-job-detail", "aihc-error", "aihc-v2-job")
_MARKS: tuple[tuple[str, Callable[[Any], bool], str, tuple[str, ...]], ...] = (
    ("workloadId", lambda v: True, "its 'workloadId'", ("runai-distributed-workload",)),
    ("desiredPhase", lambda v: True, "its 'desiredPhase'", ("runai-distributed-workload",)),
    ("code", _is_int, "its integer 'code'", ("runai-error",)),
    ("code", lambda v: isinstance(v, str), "its string 'code'", ("aihc-error",)),
    ("result", lambda v: isinstance(v, dict), "its 'result' object", ("aihc-job-detail",)),
    ("jobSpec", lambda v: isinstance(v, dict), "its 'jobSpec' object", ("aihc-raw-request",)),
    ("job", lambda v: isinstance(v, dict), "its 'job' object", ("aihc-v2-job",)),
    ("requestId", lambda v: True, "its 'requestId'", _AIHC_ANSWERS),
)

#: The top-level keys each schema declares (its ``properties``, and for AIHC v2 the flattened job's
#: too): a mark whose key the fitting schema declares is that schema's own field, no other's mark.
_DECLARED: dict[str, frozenset[str]] = {
    "runai-distributed-workload": frozenset(
        [
            "name",
            "requestedName",
            "workloadId",
            "projectId",
            "departmentId",
            "clusterId",
            "createdBy",
            "createdAt",
            "deletedAt",
            "desiredPhase",
            "actualPhase",
            "spec",
            "masterSpecSameAsWorker",
            "masterSpec",
        ]
    ),
    "runai-error": frozenset(["code", "message", "details"]),
    "aihc-job-detail": frozenset(["requestId", "result"]),
    "aihc-error": frozenset(["requestId", "code", "message"]),
    "aihc-raw-request": frozenset(
        [
            "name",
            "namespace",
            "queue",
            "priority",
            "oversell",
            "faultTolerance",
            "command",
            "datasources",
            "datasource",
            "jobFramework",
            "jobDistributed",
            "jobSpec",
            "imagePullSecrets",
            "imagePullSecretUsername",
            "imagePullSecretPassword",
            "labels",
            "annotations",
            "nodeSelector",
            "autoCreatePVC",
            "hostNetwork",
            "isCopyJob",
            "sourceJobName",
            "workloadType",
            "pfsId",
            "codeSource",
            "tensorboard",
            "retentionPeriod",
            "enabledHangDetection",
            "hangDetectionTimeoutMinutes",
            "hangDetectionStartupTolerationMinutes",
            "hangDetectionStackTimeoutMinutes",
            "faultToleranceLimit",
            "unconditionalFaultToleranceLimit",
            "unconditionalFaultToleranceObserveSeconds",
            "customFaultTolerancePattern",
            "enableReplace",
            "enableUseNodesOfLastJob",
            "enableCheckpointMigration",
            "internalFaultToleranceAlarmPhone",
            "alertConfig",
            "enableBccl",
            "submitTime",
            "privileged",
            "logCollectionFilePatterns",
        ]
    ),
    "aihc-v2-job": frozenset(
        [
            "requestId",
            "job",
            "jobid",
            "jobId",
            "userId",
            "name",
            "status",
            "jobType",
            "resourcePoolId",
            "queue",
            "queueId",
            "jobSpec",
            "createdAt",
            "finishedAt",
            "datasources",
            "labels",
            "priority",
            "enableBccl",
            "enableBcclStatus",
            "enableBcclErrorReason",
            "enableFaultTolerance",
            "faultToleranceArgs",
            "pods",
            "historyPods",
            "jobTimeLine",
        ]
    ),
}

#: What :func:`detect` returns for a payload that fits one schema (one object per schema).
_FITS = {name: Detection(name) for name, _fits, _why in _CANDIDATES}
#: The marks each schema does not declare: where its payloads hold one, they hold another's mark.
_FOREIGN = {
    name: tuple((key, test) for key, test, _called, _owners in _MARKS if key not in _DECLARED[name])
    for name in _DECLARED
}
_ORDER = {name: index for index, (name, _fits, _why) in enumerate(_CANDIDATES)}

#: What :func:`detect` returns for an object no schema fits: one object, its long reason shared by
#: every such payload (a corpus of them keeps one copy of the text, not one per payload).
_WHY_NONE = "; ".join(f"{name}: {why}" for name, _fit, why in _CANDIDATES)
_NONE_FITS = Detection(None, f"no bundled schema fits ({_WHY_NONE}){ADVICE}")


@cache
def _not_an_object(kind: str) -> Detection:
    """Why a top-level value of JSON type ``kind`` fits no schema (``an array``, ``a string``, ``null``)."""
    noun = kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    return Detection(None, f"top level is {noun}, not a JSON object; no schema fits")


def _array_of_payloads(items: list[Any]) -> Detection:
    """Why an array fits no schema, saying so when its items are payloads (``jq -s`` of captures, a
    list an API client returned): they are read one a line (NDJSON), not as one document."""
    fitting = sum(1 for item in items if isinstance(item, dict) and detect(item).schema is not None)
    if not fitting:
        return _not_an_object("array")
    return Detection(
        None,
        f"top level is an array, not a JSON object; no schema fits ({fitting} of its {len(items)} items "
        "fit one: jq -c '.[]' writes them one a line, NDJSON, which is read payload by payload)",
    )


def detect(payload: Any) -> Detection:
    """The schema that fits ``payload``, or why none does: none fits, or it holds the marks of
    several (ambiguous: ``fits`` names them)."""
    if not isinstance(payload, dict):
        return (
            _array_of_payloads(payload) if isinstance(payload, list) else _not_an_object(json_type(payload))
        )
    fits = [name for name, fit, _why in _CANDIDATES if fit(payload)]
    if not fits:
        return _NONE_FITS
    if len(fits) == 1:  # the common case: a lookup per mark the schema does not declare, and no more
        for key, test in _FOREIGN[fits[0]]:
            if key in payload and test(payload[key]):
                break
        else:
            return _FITS[fits[0]]
    return _sorted_out(payload, fits)


Mark = tuple[str, str, tuple[str, ...]]  # (key, what it is called, the schemas it marks)


def _sorted_out(payload: dict[str, Any], fits: list[str]) -> Detection:
    """A payload that fits several schemas, or one and holds another's mark. A fitting schema whose
    marks another fitting schema declares is that one's field, not a schema of its own (AIHC v2's
    flattened answer holds a raw request's ``jobSpec``): it is dropped; when more than one schema is
    left, or a mark no schema left declares, the payload is ambiguous, each named by its marks."""
    held: list[Mark] = [
        (key, called, owners) for key, test, called, owners in _MARKS if key in payload and test(payload[key])
    ]
    marks = {name: {key for key, _called, owners in held if name in owners} for name in fits}

    def explained(name: str, by: str) -> bool:
        return marks[name] <= _DECLARED[by] and not marks[by] <= _DECLARED[name]

    kept = [name for name in fits if not any(other != name and explained(name, other) for other in fits)]
    kept = kept or fits  # (schemas explaining each other round a circle: none is dropped)
    parts: dict[str, list[str]] = {name: [] for name in kept}
    named = list(kept)
    for key, called, owners in held:
        for name in kept:
            if name in owners and not any(key in _DECLARED[other] for other in kept if other != name):
                parts[name].append(called)
        if not any(key in _DECLARED[name] for name in kept):
            parts.setdefault(_owner(owners), []).append(called)
            named += [name for name in owners if name not in named]
    if len(parts) == 1:
        return _FITS[kept[0]]
    shown = [f"{name} ({' and '.join(called) or 'its shape'})" for name, called in parts.items()]
    return Detection(
        None,
        f"ambiguous shape: fits {', '.join(shown[:-1])} and {shown[-1]}{ADVICE}",
        tuple(sorted(named, key=_ORDER.__getitem__)),
    )


def _owner(owners: tuple[str, ...]) -> str:
    """The schema a mark names, or the API whose every answer holds it (``requestId``: AIHC's)."""
    return owners[0] if len(owners) == 1 else "an AIHC answer"
