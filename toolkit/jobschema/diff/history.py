"""``jobschema diff --history``: consecutive snapshots of a job, change by change in order.

A file of one job's snapshots is one history. A file that holds several jobs (``jobschema record``
writes the jobs of one run into one file) is followed job by job: the snapshots are grouped by the
job id each names (Run:ai ``workloadId``, AIHC ``result.jobId``), in the order the jobs first
appear, and each job's snapshots are compared in file order; the result's ``extra["jobs"]`` lists
the jobs (id, schema, snapshots) and each comparison names its job.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

from jobschema.apis import aihc, runai
from jobschema.diff.compare import compare, finish, plan_of, schema_of
from jobschema.diff.documents import DiffInputError, parse_document, read_document_bytes
from jobschema.diff.engine import At
from jobschema.diff.result import Change, DiffOptions, DiffResult, Pair
from jobschema.inputs.files import named, shown

Snapshot = tuple[str, Any]


def diff_history(
    snapshots: Iterable[Snapshot], *, schema: str | None = None, options: DiffOptions | None = None
) -> DiffResult:
    """Compare each ``(label, document)`` snapshot with the one before it of the same job.

    Snapshots of one job must share one schema; with several jobs, each snapshot must name its job.
    """
    options = options or DiffOptions()
    items = list(snapshots)
    jobs = _jobs(items)
    if len(jobs) > 1:
        return _several(jobs, schema, options)
    if len(items) < 2:
        raise DiffInputError(f"--history needs at least two snapshots, got {len(items)}")
    name, steps = _one(items, schema, options)
    return DiffResult(name, _union(steps), "history", tuple(steps))


def _one(
    items: Sequence[Snapshot], schema: str | None, options: DiffOptions, job: str = ""
) -> tuple[str, list[Pair]]:
    """The schema of one job's snapshots and the comparisons of each with the next."""
    names = [(label, schema_of(value, schema, label)) for label, value in items]
    first = names[0][1]
    for label, name in names[1:]:
        if name != first:
            raise DiffInputError(f"{label} is {name} but {names[0][0]} is {first}: a history is one job")
    plan = plan_of(first, schema)
    steps = [
        Pair(
            left_label, right_label, finish(compare(left, right, plan, options, At.root()), options), job=job
        )
        for (left_label, left), (right_label, right) in itertools.pairwise(items)
    ]
    return first, steps


def _several(jobs: dict[str, list[Snapshot]], schema: str | None, options: DiffOptions) -> DiffResult:
    steps: list[Pair] = []
    listed: list[dict[str, Any]] = []
    for job, items in jobs.items():
        name, pairs = _one(items, schema, options, job)
        steps += pairs
        listed.append({"job": job, "schema": name, "snapshots": len(items)})
    schemas = ", ".join(dict.fromkeys(entry["schema"] for entry in listed))
    return DiffResult(schemas, _union(steps), "history", tuple(steps), extra={"jobs": listed})


def _union(steps: Sequence[Pair]) -> tuple[Change, ...]:
    return tuple(sorted((change for step in steps for change in step.changes), key=Change.sort_key))


def _jobs(items: Sequence[Snapshot]) -> dict[str, list[Snapshot]]:
    """The snapshots grouped by the job they name, when they name more than one job; a snapshot that
    names none then is an error. One job (or none named) gives one group: a single history."""
    keys = [job_key(value) for _, value in items]
    named = {key for key in keys if key is not None}
    if len(named) < 2:
        return {"": list(items)}
    groups: dict[str, list[Snapshot]] = {}
    for item, key in zip(items, keys, strict=True):
        if key is None:
            raise DiffInputError(
                f"{item[0]} names no job (workloadId, result.jobId), but the file holds several jobs: "
                "each snapshot must name its job"
            )
        groups.setdefault(key, []).append(item)
    return groups


def job_key(value: Any) -> str | None:
    """The job a snapshot names: a Run:ai ``workloadId`` or an AIHC ``result.jobId``."""
    return runai.job_id(value) or aihc.job_id(value)


def read_history(name: str, stdin: BinaryIO | None = None) -> list[Snapshot]:
    """The snapshots of an NDJSON file (``-``: standard input), labelled ``FILE:LINE``; raises
    :class:`DiffInputError` naming the file and line of the first that cannot be read or parsed."""
    data = read_document_bytes(name, stdin)
    snapshots = [
        (f"{shown(name)}:{number}", parse_document(name, line, number))
        for number, line in enumerate(data.splitlines(), start=1)
        if line.strip()
    ]
    if len(snapshots) < 2:  # (named here: the comparison itself knows no file)
        held = "is empty" if not data.strip() else "holds one snapshot"
        raise DiffInputError(f"{named(name)}: file {held}; --history needs at least two snapshots")
    return snapshots
