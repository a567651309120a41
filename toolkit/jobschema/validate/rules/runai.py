"""Semantic rules for Run:ai ``GET /api/v1/workloads/distributed/{workloadId}`` bodies.

Every check reads the payload loosely: a field of an unexpected type is skipped, never an error here
(the schema reports it). Booleans are not numbers, although Python makes ``bool`` an ``int``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from jobschema.apis.runai import (
    MPI_ONLY_FIELDS,
    NUMBER_LIMITS,
    PYTORCH_ONLY_FIELDS,
    QUANTITY_LIMITS,
    WORKER_ONLY_FIELDS,
)
from jobschema.apis.runai import WORKLOAD_SCHEMA as SCHEMA
from jobschema.pointer import Tokens
from jobschema.validate.rules import number, quiet, rule, short

if TYPE_CHECKING:  # jobschema.quantity is loaded when a quantity is read
    from decimal import Decimal

Findings = Iterator[tuple[Tokens, str]]

SPEC_SECTIONS = ("spec", "masterSpec")
GPU_PORTION_FIELDS = ("gpuPortionRequest", "gpuPortionLimit")


def _object(value: Any) -> dict[str, Any] | None:
    """``value`` when it is a JSON object, else ``None``."""
    return value if isinstance(value, dict) else None


def _quantity(value: Any) -> Decimal | None:
    """The exact value of a Kubernetes quantity string, or ``None`` when it is not one (too long, or
    an exponent too large to expand: :func:`jobschema.quantity.parse_quantity`)."""
    return _quantities()(value) if isinstance(value, str) else None


@cache
def _quantities() -> Callable[[str], Decimal | None]:
    """:func:`jobschema.quantity.parse_quantity`, imported on first use (it loads ``decimal``)."""
    from jobschema.quantity import parse_quantity

    return parse_quantity


def _timestamp(value: Any) -> datetime | None:
    """An RFC 3339 string as a datetime (a trailing ``Z`` is UTC), or ``None`` when unparsable."""
    if not isinstance(value, str):
        return None
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        return datetime.fromisoformat(text)
    except (ValueError, OverflowError):
        return None


def _framework(spec: dict[str, Any]) -> str | None:
    """The spec's ``distributedFramework`` when it is a non-empty string."""
    framework = spec.get("distributedFramework")
    return framework if isinstance(framework, str) and framework else None


@rule(
    "runai-master-spec-with-same-as-worker",
    SCHEMA,
    "warning",
    "masterSpec should be absent or null when masterSpecSameAsWorker is true",
)
def master_spec_with_same_as_worker(payload: dict[str, Any]) -> Findings:
    if payload.get("masterSpecSameAsWorker") is True and payload.get("masterSpec") is not None:
        yield ("masterSpec",), "masterSpec is set although masterSpecSameAsWorker is true"


@rule(
    "runai-worker-only-field-in-master",
    SCHEMA,
    "warning",
    "Worker-only fields (distributedFramework, numWorkers, …) belong in spec, not masterSpec",
)
def worker_only_field_in_master(payload: dict[str, Any]) -> Findings:
    master = _object(payload.get("masterSpec"))
    if master is None:
        return
    for field in WORKER_ONLY_FIELDS:
        value = master.get(field)
        if value is not None:
            yield (
                ("masterSpec", field),
                f"worker-only field {field} {short(value)} is in masterSpec",
            )


@rule("runai-max-replicas-below-min", SCHEMA, "error", "maxReplicas must not be below minReplicas")
def max_replicas_below_min(payload: dict[str, Any]) -> Findings:
    spec = _object(payload.get("spec")) or {}
    low, high = number(spec.get("minReplicas")), number(spec.get("maxReplicas"))
    if low is not None and high is not None and high < low:
        yield ("spec", "maxReplicas"), f"maxReplicas {short(high)} is below minReplicas {short(low)}"


def _fields_for_other_framework(payload: dict[str, Any], fields: tuple[str, ...], owner: str) -> Findings:
    """Each of ``fields`` set in ``spec`` while ``distributedFramework`` is set to other than ``owner``."""
    spec = _object(payload.get("spec")) or {}
    framework = _framework(spec)
    if framework is None or framework == owner:
        return
    for field in fields:
        value = spec.get(field)
        if value is not None:
            shown = f"{field} {short(value)}"
            message = f"{shown} applies only to {owner}, not distributedFramework {short(framework)}"
            yield ("spec", field), message


@rule(
    "runai-mpi-field-with-other-framework",
    SCHEMA,
    "warning",
    "slotsPerWorker, sshAuthMountPath and mpiLauncherCreationPolicy apply only to the MPI framework",
)
def mpi_field_with_other_framework(payload: dict[str, Any]) -> Findings:
    yield from _fields_for_other_framework(payload, MPI_ONLY_FIELDS, "MPI")


@rule(
    "runai-pytorch-field-with-other-framework",
    SCHEMA,
    "warning",
    "minReplicas and maxReplicas apply only to the PyTorch framework",
)
def pytorch_field_with_other_framework(payload: dict[str, Any]) -> Findings:
    yield from _fields_for_other_framework(payload, PYTORCH_ONLY_FIELDS, "PyTorch")


def _computes(payload: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(section, compute)`` for the ``compute`` objects of ``spec`` and ``masterSpec``."""
    for section in SPEC_SECTIONS:
        compute = _object((_object(payload.get(section)) or {}).get("compute"))
        if compute is not None:
            yield section, compute


@rule("runai-gpu-portion-above-one", SCHEMA, "error", "GPU portions are per-device fractions, at most 1")
def gpu_portion_above_one(payload: dict[str, Any]) -> Findings:
    for section, compute in _computes(payload):
        for field in GPU_PORTION_FIELDS:
            value = number(compute.get(field))
            if value is not None and value > 1:
                yield (section, "compute", field), f"{field} {short(value)} is above 1"


#: ``(request field, limit field, how to read their values)``.
_LIMITS: tuple[tuple[str, str, Callable[[Any], Decimal | float | None]], ...] = (
    *((request, limit, number) for request, limit in NUMBER_LIMITS),
    *((request, limit, _quantity) for request, limit in QUANTITY_LIMITS),
)


def _requests_above_limits(compute: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(request field, message)`` for each request in ``compute`` above its limit."""
    for request_field, limit_field, parse in _LIMITS:
        request, limit = compute.get(request_field), compute.get(limit_field)
        if request is None or limit is None:
            continue
        request_value, limit_value = parse(request), parse(limit)
        if request_value is not None and limit_value is not None and request_value > limit_value:
            yield request_field, f"{request_field} {short(request)} is above {limit_field} {short(limit)}"


@rule("runai-request-above-limit", SCHEMA, "error", "A compute request must not exceed its limit")
def request_above_limit(payload: dict[str, Any]) -> Findings:
    for section, compute in _computes(payload):
        for field, message in _requests_above_limits(compute):
            yield (section, "compute", field), message


@rule("runai-deleted-before-created", SCHEMA, "error", "deletedAt must not be earlier than createdAt")
def deleted_before_created(payload: dict[str, Any]) -> Findings:
    deleted = _timestamp(payload.get("deletedAt"))
    created = None if deleted is None else _timestamp(payload.get("createdAt"))
    if created is None or deleted is None or (created.tzinfo is None) != (deleted.tzinfo is None):
        return
    if deleted < created:
        shown = f"deletedAt {short(payload['deletedAt'])}"
        yield ("deletedAt",), f"{shown} is earlier than createdAt {short(payload['createdAt'])}"


@rule(
    "runai-name-not-from-requested-name",
    SCHEMA,
    "warning",
    "name should be requestedName, possibly followed by a generated suffix",
)
def name_not_from_requested_name(payload: dict[str, Any]) -> Findings:
    name, requested = payload.get("name"), payload.get("requestedName")
    if isinstance(name, str) and isinstance(requested, str) and not name.startswith(requested):
        yield ("name",), f"name {short(name)} does not start with requestedName {short(requested)}"


@quiet(
    SCHEMA,
    covers=(
        "runai-master-spec-with-same-as-worker",
        "runai-worker-only-field-in-master",
        "runai-max-replicas-below-min",
        "runai-mpi-field-with-other-framework",
        "runai-pytorch-field-with-other-framework",
        "runai-gpu-portion-above-one",
        "runai-request-above-limit",
        "runai-deleted-before-created",
        "runai-name-not-from-requested-name",
    ),
)
def workload_quiet(payload: dict[str, Any]) -> bool:
    """True when no rule above finds anything in ``payload`` (read once; :mod:`jobschema.validate.rules`)."""
    if payload.get("masterSpecSameAsWorker") is True and payload.get("masterSpec") is not None:
        return False
    name, requested = payload.get("name"), payload.get("requestedName")
    if isinstance(name, str) and isinstance(requested, str) and not name.startswith(requested):
        return False
    # (a deletion time: the rule compares it)
    return payload.get("deletedAt") is None and _specs_quiet(payload) and _computes_quiet(payload)


def _specs_quiet(payload: dict[str, Any]) -> bool:
    master = _object(payload.get("masterSpec"))
    if master is not None and any(master.get(field) is not None for field in WORKER_ONLY_FIELDS):
        return False
    spec = _object(payload.get("spec")) or {}
    low, high = number(spec.get("minReplicas")), number(spec.get("maxReplicas"))
    if low is not None and high is not None and high < low:
        return False
    framework = _framework(spec)
    return framework is None or not any(
        framework != owner and any(spec.get(field) is not None for field in fields)
        for owner, fields in (("MPI", MPI_ONLY_FIELDS), ("PyTorch", PYTORCH_ONLY_FIELDS))
    )


def _computes_quiet(payload: dict[str, Any]) -> bool:
    for _, compute in _computes(payload):
        for field in GPU_PORTION_FIELDS:
            value = number(compute.get(field))
            if value is not None and value > 1:
                return False
        if next(_requests_above_limits(compute), None) is not None:
            return False
    return True
