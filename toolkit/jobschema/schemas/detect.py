"""Pick the bundled schema a payload is an instance of, by its shape.

Detection looks only at the top-level keys, so it is cheap and predictable. A payload that fits
nothing gets a reason per candidate; AIHC's v2 (flattened) job shape is recognised and reported as
not supported yet rather than as garbage.
"""

from __future__ import annotations

from collections.abc import Callable
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
        lambda p: isinstance(p.get("jobSpec"), dict) and "name" in p and "result" not in p,
        "no 'jobSpec' object with a 'name'",
    ),
)
#: What :func:`detect` returns for a payload that fits one schema (one object per schema).
_FITS = {name: Detection(name) for name, _fits, _why in _CANDIDATES}


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
    fits = [name for name, fit, _why in _CANDIDATES if fit(payload)]
    if len(fits) == 1:
        return _FITS[fits[0]]
    if fits:
        return Detection(None, f"ambiguous shape: fits {', '.join(fits)}; pass --schema")
    why = "; ".join(f"{name}: {reason}" for name, _fit, reason in _CANDIDATES)
    return Detection(None, f"no bundled schema fits ({why}); pass --schema")
