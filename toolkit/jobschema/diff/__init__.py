"""``jobschema diff`` as a library: schema-driven, key-aware comparison of job payloads.

>>> from jobschema.diff import diff_documents
>>> left = {"code": 404, "message": "Resource id not found."}
>>> [c.path for c in diff_documents(left, {**left, "code": 503}).changes]
['code']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jobschema.diff.documents import DiffInputError
from jobschema.diff.engine import At, Differ
from jobschema.diff.model import Change, DiffOptions
from jobschema.diff.plan import Plan, bundled_plan, plan_for
from jobschema.diff.select import keep

__all__ = ["Change", "DiffInputError", "DiffOptions", "DiffResult", "Pair", "diff_documents", "schema_of"]


@dataclass(frozen=True)
class Pair:
    """One comparison inside a role or history diff: its two labels, pointers, and changes."""

    left: str
    right: str
    changes: tuple[Change, ...]
    left_pointer: str = ""
    right_pointer: str = ""
    expected: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class DiffResult:
    """The outcome of a diff: every change sorted by path, and what the mode adds.

    ``pairs`` holds the comparisons of a role or history diff (``changes`` is then their union);
    ``worker_only`` the Run:ai worker-only fields; ``warnings`` what deserves a look but is no change.
    """

    schema: str
    changes: tuple[Change, ...]
    mode: str = "snapshot"
    pairs: tuple[Pair, ...] = ()
    worker_only: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def same(self) -> bool:
        """True when nothing changed."""
        return not self.changes


def schema_of(value: Any, forced: str | None = None, name: str = "document") -> str:
    """The schema name of a document: ``forced``, or detected from its shape."""
    if forced:
        from jobschema.schemas import registry

        return registry.load(forced).name
    from jobschema.schemas.detect import AIHC_V2, detect

    found = detect(value)
    if found.schema is None or found.schema == AIHC_V2:
        raise DiffInputError(f"{name}: {found.reason}")
    return found.schema


def plan_of(schema: str, forced: str | None) -> Plan:
    """The diff plan of a bundled schema, or of the forced schema file."""
    if forced and schema not in _bundled():
        from jobschema.schemas import registry

        return plan_for(registry.load(forced).document)
    return bundled_plan(schema)


def _bundled() -> tuple[str, ...]:
    from jobschema.schemas.registry import BUNDLED

    return BUNDLED


def finish(changes: list[Change], options: DiffOptions) -> tuple[Change, ...]:
    """Apply ``--ignore``/``--only`` and sort by path."""
    kept = (
        [c for c in changes if keep(c, options.ignore, options.only)]
        if options.ignore or options.only
        else changes
    )
    return tuple(sorted(kept, key=Change.sort_key))


def compare(left: Any, right: Any, plan: Plan, options: DiffOptions, at: At | None = None) -> list[Change]:
    """The raw changes between two (prepared) values under ``plan``."""
    return Differ(options).diff(left, right, plan, at)


def diff_documents(
    left: Any, right: Any, *, schema: str | None = None, options: DiffOptions | None = None
) -> DiffResult:
    """Compare two snapshots of one job (two parsed payloads of the same API)."""
    options = options or DiffOptions()
    left_schema = schema_of(left, schema, "left")
    right_schema = schema_of(right, schema, "right")
    if left_schema != right_schema:
        raise DiffInputError(f"left is {left_schema} but right is {right_schema}: they cannot be compared")
    plan = plan_of(left_schema, schema)
    changes = compare(left, right, plan, options)
    return DiffResult(left_schema, finish(changes, options))
