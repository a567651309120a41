"""The two operations every diff mode shares: the raw changes between two values under a plan, and
the changes kept (``--ignore``/``--only``) and sorted."""

from __future__ import annotations

from typing import Any

from jobschema.diff.engine import At, Differ
from jobschema.diff.plan import Plan
from jobschema.diff.result import Change, DiffOptions
from jobschema.diff.select import keep


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
