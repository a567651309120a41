"""The two operations every diff mode shares: the raw changes between two values under a plan
(``--ignore``/``--only`` applied), and the changes sorted."""

from __future__ import annotations

from typing import Any

from jobschema.diff.engine import At, Differ
from jobschema.diff.plan import Plan
from jobschema.diff.result import Change, DiffOptions


def finish(changes: list[Change], options: DiffOptions) -> tuple[Change, ...]:
    """Sort by path (``--ignore``/``--only`` were applied as the changes were found, to the pointers
    as the documents spell them: the changes' own pointers show secret keys masked)."""
    return tuple(sorted(changes, key=Change.sort_key))


def compare(left: Any, right: Any, plan: Plan, options: DiffOptions, at: At | None = None) -> list[Change]:
    """The raw changes between two (prepared) values under ``plan``."""
    return Differ(options).diff(left, right, plan, at)
