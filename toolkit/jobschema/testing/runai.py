"""Run:ai fix-ups: turn schema-valid drafts into distributed workloads that pass every semantic rule.

``name`` starts with ``requestedName``; ``desiredPhase`` is what leads to ``actualPhase`` (Stopped for
Stopping, Deleted for Terminating, …); ``deletedAt`` is set only for a deleted workload and never
before ``createdAt``; requests stay at or below their limits and
GPU portions at or below 1; PyTorch-only fields appear only with PyTorch and MPI-only ones only with
MPI, ``minReplicas`` <= ``maxReplicas``; ``masterSpec`` is absent when ``masterSpecSameAsWorker``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, TypeGuard

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from jobschema.apis.runai import MPI_ONLY_FIELDS as MPI_ONLY
from jobschema.apis.runai import NUMBER_LIMITS, QUANTITY_LIMITS
from jobschema.apis.runai import PYTORCH_ONLY_FIELDS as PYTORCH_ONLY
from jobschema.quantity import parse_quantity
from jobschema.testing import values

#: actualPhase -> the desiredPhase that leads to it (any other phase: Running)
DESIRED = {"Stopped": "Stopped", "Stopping": "Stopped", "Deleting": "Deleted", "Terminating": "Deleted"}
SUFFIX = st.sampled_from(("", "", "-x7k2p", "-4fz9q", "-0"))


MASTER_SPEC = "#/properties/masterSpec"
ALWAYS = frozenset(
    {
        "#/properties/actualPhase",
        "#/properties/spec",
        "#/$defs/WorkerSpec/properties/compute",
        "#/$defs/MasterSpec/properties/compute",
    }
)


def workloads(
    base: SearchStrategy[dict[str, Any]], master: SearchStrategy[Any], mig: SearchStrategy[Any]
) -> SearchStrategy[dict[str, Any]]:
    """Distributed workloads: ``base`` drafts (without ``masterSpec``) with the cross-field rules
    applied; ``master`` draws a master spec when it differs from the worker's, ``mig`` a MIG profile."""
    return _workload(base, master, mig)


@st.composite
def _workload(draw: Any, base: Any, master: Any, mig: Any) -> dict[str, Any]:
    payload = draw(base)
    payload.pop("masterSpec", None)
    if payload.get("masterSpecSameAsWorker") is not True and draw(st.booleans()):
        payload["masterSpec"] = draw(master)
    payload["name"] = payload["requestedName"] + draw(SUFFIX)
    if not payload["name"]:
        payload["name"] = draw(values.kube_name())
        payload["requestedName"] = payload["name"]
    created = draw(values.moments())
    payload["createdAt"] = values.rfc3339(created, draw(st.sampled_from((0, 1))))
    payload["desiredPhase"] = DESIRED.get(payload["actualPhase"], "Running")
    deleted = payload["desiredPhase"] == "Deleted"
    if "deletedAt" in payload:
        later = created + timedelta(seconds=draw(st.integers(0, 30 * 86400)))
        payload["deletedAt"] = values.rfc3339(later, 1) if deleted else None
    if isinstance(payload.get("spec"), dict):
        _fix_worker(payload["spec"])
    for section in ("spec", "masterSpec"):
        if isinstance(payload.get(section), dict):
            _fix_compute(payload[section].get("compute"), draw, mig)
    return payload


def _fix_worker(spec: dict[str, Any]) -> None:
    framework = spec.get("distributedFramework")
    for field in MPI_ONLY if framework != "MPI" else ():
        spec.pop(field, None)
    for field in PYTORCH_ONLY if framework != "PyTorch" else ():
        spec.pop(field, None)
    low, high = spec.get("minReplicas"), spec.get("maxReplicas")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        spec["minReplicas"], spec["maxReplicas"] = high, low


def _fix_compute(compute: Any, draw: Any, mig: Any) -> None:
    """Swap each request above its limit (numbers, and quantities by value); a MIG request names its
    (deprecated) profile."""
    if not isinstance(compute, dict):
        return
    if compute.get("gpuRequestType") == "migProfile":
        compute["migProfile"] = draw(mig)
    for request, limit in NUMBER_LIMITS:
        low, high = compute.get(request), compute.get(limit)
        if _number(low) and _number(high) and low > high:
            compute[request], compute[limit] = high, low
    for request, limit in QUANTITY_LIMITS:
        low, high = _quantity(compute.get(request)), _quantity(compute.get(limit))
        if low is not None and high is not None and low > high:
            compute[request], compute[limit] = compute[limit], compute[request]


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _quantity(value: Any) -> Any:
    return parse_quantity(value) if isinstance(value, str) else None
