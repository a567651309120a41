"""``jobschema diff --history``: consecutive snapshots of one job, change by change in order."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, BinaryIO

from jobschema.diff.compare import compare, finish, plan_of, schema_of
from jobschema.diff.documents import DiffInputError, parse_document, read_document_bytes
from jobschema.diff.engine import At
from jobschema.diff.result import Change, DiffOptions, DiffResult, Pair
from jobschema.inputs.files import shown


def diff_history(
    snapshots: Iterable[tuple[str, Any]], *, schema: str | None = None, options: DiffOptions | None = None
) -> DiffResult:
    """Compare each ``(label, document)`` snapshot with the one before it; all must share one schema."""
    options = options or DiffOptions()
    items = list(snapshots)
    if len(items) < 2:
        raise DiffInputError(f"--history needs at least two snapshots, got {len(items)}")
    names = [(label, schema_of(value, schema, label)) for label, value in items]
    first = names[0][1]
    for label, name in names[1:]:
        if name != first:
            raise DiffInputError(f"{label} is {name} but {names[0][0]} is {first}: a history is one job")
    plan = plan_of(first, schema)
    steps = []
    for (left_label, left), (right_label, right) in itertools.pairwise(items):
        steps.append(
            Pair(left_label, right_label, finish(compare(left, right, plan, options, At.root()), options))
        )
    changes = tuple(sorted((change for step in steps for change in step.changes), key=Change.sort_key))
    return DiffResult(first, changes, "history", tuple(steps))


def read_history(name: str, stdin: BinaryIO | None = None) -> list[tuple[str, Any]]:
    """The snapshots of an NDJSON file (``-``: standard input), labelled ``FILE:LINE``; raises
    :class:`DiffInputError` naming the file and line of the first that cannot be read or parsed."""
    data = read_document_bytes(name, stdin)
    return [
        (f"{shown(name)}:{number}", parse_document(name, line, number))
        for number, line in enumerate(data.splitlines(), start=1)
        if line.strip()
    ]
