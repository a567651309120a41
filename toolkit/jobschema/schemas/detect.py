"""Pick the bundled schema a payload is an instance of, by its shape.

Detection looks only at the top-level keys (and, for AIHC v2, whether ``job`` is an object), so it is
cheap and predictable. A payload that fits nothing gets a reason per candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from jobschema.text import json_type


@dataclass(frozen=True)
class Detection:
    """The schema name chosen, or ``None`` with a one-line explanation."""

    schema: str | None
    reason: str = ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_aihc_v2_job(payload: dict[str, Any]) -> bool:
    """An AIHC v2 DescribeJob answer: the SDKs' wrapped ``{requestId, job: {...}}``, or the
    documentation's flattened shape (the job's id with its status or spec beside ``requestId``)."""
    if "requestId" not in payload or "result" in payload or isinstance(payload.get("code"), str):
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
        lambda p: _is_int(p.get("code")) and "message" in p and "requestId" not in p,
        "no integer 'code' with a 'message'",
    ),
    (
        "aihc-job-detail",
        lambda p: isinstance(result := p.get("result"), dict) and ("jobId" in result or "podList" in result),
        "no 'result' object with 'jobId' or 'podList'",
    ),
    (
        "aihc-error",
        lambda p: isinstance(p.get("code"), str) and "requestId" in p and "result" not in p,
        "no string 'code' with a 'requestId'",
    ),
    (
        "aihc-raw-request",
        lambda p: (
            isinstance(p.get("jobSpec"), dict) and "name" in p and "result" not in p and "requestId" not in p
        ),
        "no 'jobSpec' object with a 'name'",
    ),
    (
        "aihc-v2-job",
        _is_aihc_v2_job,
        "no 'job' object beside 'requestId', nor a 'jobId'/'jobid' with 'status' or 'jobSpec' beside it",
    ),
)
#: What :func:`detect` returns for a payload that fits one schema (one object per schema).
_FITS = {name: Detection(name) for name, _fits, _why in _CANDIDATES}


#: What :func:`detect` returns for an object no schema fits: one object, its long reason shared by
#: every such payload (a corpus of them keeps one copy of the text, not one per payload).
_WHY_NONE = "; ".join(f"{name}: {why}" for name, _fit, why in _CANDIDATES)
_NONE_FITS = Detection(None, f"no bundled schema fits ({_WHY_NONE}); pass --schema")


@cache
def _not_an_object(kind: str) -> Detection:
    """Why a top-level value of JSON type ``kind`` fits no schema (``an array``, ``a string``, ``null``)."""
    noun = kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    return Detection(None, f"top level is {noun}, not a JSON object; no schema fits")


def detect(payload: Any) -> Detection:
    """The schema that fits ``payload``, or why none does."""
    if not isinstance(payload, dict):
        return _not_an_object(json_type(payload))
    fits = [name for name, fit, _why in _CANDIDATES if fit(payload)]
    if len(fits) == 1:
        return _FITS[fits[0]]
    if fits:
        return Detection(None, f"ambiguous shape: fits {', '.join(fits)}; pass --schema")
    return _NONE_FITS
