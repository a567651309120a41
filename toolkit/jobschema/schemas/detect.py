"""Pick the bundled schema a payload is an instance of, by its shape.

Detection looks only at the top-level keys, so it is cheap and predictable. A payload that fits
nothing gets a reason per candidate; AIHC's v2 (flattened) job shape is recognised and reported as
not supported yet rather than as garbage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AIHC_V2 = "aihc-v2-job"


@dataclass(frozen=True)
class Detection:
    """The schema name chosen, or ``None`` with a one-line explanation."""

    schema: str | None
    reason: str = ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _why_not(payload: dict[str, Any]) -> dict[str, str]:
    """Why each candidate does not fit (empty string: it fits)."""
    result = payload.get("result")
    return {
        "runai-distributed-workload": ""
        if "workloadId" in payload or ("desiredPhase" in payload and ("spec" in payload or "name" in payload))
        else "no 'workloadId' or 'desiredPhase'",
        "runai-error": ""
        if _is_int(payload.get("code")) and "message" in payload and "requestId" not in payload
        else "no integer 'code' with a 'message'",
        "aihc-job-detail": ""
        if isinstance(result, dict) and ("jobId" in result or "podList" in result)
        else "no 'result' object with 'jobId' or 'podList'",
        "aihc-error": ""
        if isinstance(payload.get("code"), str) and "requestId" in payload and "result" not in payload
        else "no string 'code' with a 'requestId'",
        "aihc-raw-request": ""
        if isinstance(payload.get("jobSpec"), dict) and "name" in payload and "result" not in payload
        else "no 'jobSpec' object with a 'name'",
    }


def _is_aihc_v2(payload: dict[str, Any]) -> bool:
    if "result" in payload or "requestId" not in payload:
        return False
    pods = payload.get("pods")
    has_v2_pod = isinstance(pods, list) and any(isinstance(p, dict) and "podIP" in p for p in pods)
    return "jobId" in payload or has_v2_pod


def detect(payload: Any) -> Detection:
    """The schema that fits ``payload``, or why none does."""
    if not isinstance(payload, dict):
        kind = "an array" if isinstance(payload, list) else f"a {type(payload).__name__} value"
        return Detection(None, f"top level is {kind}, not a JSON object; no schema fits")
    if _is_aihc_v2(payload):
        return Detection(
            AIHC_V2,
            "AIHC v2 job shape (fields beside 'requestId', no 'result', pods with 'podIP') is not supported "
            "yet; only the v1 GET /api/v1/aijobs/{jobId} response is",
        )
    reasons = _why_not(payload)
    fits = [name for name, reason in reasons.items() if not reason]
    if len(fits) == 1:
        return Detection(fits[0])
    if fits:
        return Detection(None, f"ambiguous shape: fits {', '.join(fits)}; pass --schema")
    why = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
    return Detection(None, f"no bundled schema fits ({why}); pass --schema")
