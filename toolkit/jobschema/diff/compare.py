"""Comparing two documents of one API under their schema's diff plan: the operations every diff
mode shares (snapshots here; roles and history build on them)."""

from __future__ import annotations

from typing import Any

from jobschema.diff.documents import DiffInputError
from jobschema.diff.ops import compare, finish
from jobschema.diff.plan import Plan, bundled_plan, plan_for
from jobschema.diff.result import DiffOptions, DiffResult
from jobschema.schemas import registry
from jobschema.schemas.detect import detect


def schema_of(value: Any, forced: str | None = None, name: str = "document") -> str:
    """The schema name of a document: ``forced``, or detected from its shape."""
    if forced:
        return registry.load(forced).name
    if _is_har(value):
        raise DiffInputError(
            f"{name}: a HAR file, not one snapshot: diff --history {name} compares its job answers in order"
        )
    found = detect(value)
    if found.schema is None:
        raise DiffInputError(f"{name}: {found.reason}")
    return found.schema


def _is_har(value: Any) -> bool:
    """True for a HAR document (``log.entries``): a recording of many answers, no job's snapshot."""
    log = value.get("log") if isinstance(value, dict) else None
    return isinstance(log, dict) and isinstance(log.get("entries"), list)


def plan_of(schema: str, forced: str | None) -> Plan:
    """The diff plan of a bundled schema, or of the forced schema file."""
    if forced and schema not in registry.BUNDLED:
        return plan_for(registry.load(forced).document)
    return bundled_plan(schema)


def diff_documents(
    left: Any,
    right: Any,
    *,
    schema: str | None = None,
    options: DiffOptions | None = None,
    labels: tuple[str, str] = ("left", "right"),
) -> DiffResult:
    """Compare two snapshots of one job (two parsed payloads of the same API); ``labels`` name the
    two in errors (the CLI gives their files)."""
    options = options or DiffOptions()
    left_schema = schema_of(left, schema, labels[0])
    right_schema = schema_of(right, schema, labels[1])
    if left_schema != right_schema:
        from jobschema.diff.across import ACROSS, diff_across

        if {left_schema, right_schema} == ACROSS:
            return diff_across(left, right, left_schema, options)
        raise DiffInputError(
            f"{labels[0]} is {left_schema} but {labels[1]} is {right_schema}: they cannot be compared"
        )
    plan = plan_of(left_schema, schema)
    changes = compare(left, right, plan, options)
    return DiffResult(left_schema, finish(changes, options))
