"""``jobschema diff --history``: consecutive snapshots of a job, change by change in order.

A file of one job's snapshots is one history. A file that holds several jobs (``jobschema record``
writes the jobs of one run into one file) is followed job by job: the snapshots are grouped by the
job id each names (Run:ai ``workloadId``, AIHC ``result.jobId``), in the order the jobs first
appear, and each job's snapshots are compared in file order; the result's ``extra["jobs"]`` lists
the jobs (id, schema, snapshots) and each comparison names its job.

A HAR (``record --har``) is a history too: the job answers (2xx bodies of the job endpoints) in the
order of its entries; its other entries (other endpoints, error answers) are passed over. A
snapshot that cannot be read (an NDJSON line that is not JSON, a recording cut off mid-line, a HAR
body that is empty, truncated or not JSON) is named in one line; ``read_history(...,
skip_unreadable=True)`` leaves it out instead, and :func:`diff_history` then names it among the
result's warnings and still compares the others. A snapshot that is an error answer (a poller wrote
the API's 503 among the job's answers) is named among the warnings too (``passed_over``) and left
out: the history goes on past it. A job's AIHC v1 and v2 answers are one history, a v1 against a
v2 answer compared across (:mod:`jobschema.diff.across`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from jobschema.apis import aihc, runai
from jobschema.apis.aihc_v2 import answer_job_id
from jobschema.diff.compare import compare, finish, plan_of, schema_of
from jobschema.diff.documents import DiffInputError, document_value, parse_document, read_document_bytes
from jobschema.diff.engine import At
from jobschema.diff.result import Change, DiffOptions, DiffResult, Pair
from jobschema.inputs.files import named
from jobschema.secrets.policy import masked_token

Snapshot = tuple[str, Any]


def diff_history(
    snapshots: Iterable[Snapshot], *, schema: str | None = None, options: DiffOptions | None = None
) -> DiffResult:
    """Compare each ``(label, document)`` snapshot with the one before it of the same job.

    Snapshots of one job must share one schema; with several jobs, each snapshot must name its job.
    """
    options = options or DiffOptions()
    unreadable = tuple(getattr(snapshots, "unreadable", ()))
    items = list(snapshots)
    if schema is None:  # a snapshot no schema fits is named as one that cannot be read is
        items, unfit = _fitting(items)
        unreadable += unfit
        if unfit and len(items) < 2:
            raise DiffInputError(unreadable[0])
    items, answered = _error_answers(items, schema)
    if answered and len(items) < 2:
        raise DiffInputError(f"{answered[0]}; --history needs at least two snapshots, got {len(items)}")
    warnings = unreadable + answered
    jobs = _jobs(items)
    if len(jobs) > 1:
        return _several(jobs, schema, options, warnings, answered)
    if len(items) < 2:
        raise DiffInputError(f"--history needs at least two snapshots, got {len(items)}")
    name, steps = _one(items, schema, options)
    return DiffResult(name, _union(steps), "history", tuple(steps), warnings=warnings, passed_over=answered)


#: The schemas of error answers: what a poller wrote when the API answered with an error (a 503, a
#: 404 once the job was deleted); no snapshot of the job.
ERROR_SCHEMAS = frozenset({"runai-error", "aihc-error"})


def _error_answers(items: Sequence[Snapshot], schema: str | None) -> tuple[list[Snapshot], tuple[str, ...]]:
    """The snapshots that are not error answers, and one line naming each error answer (``FILE:LINE:
    an error answer (code 503, "upstream unavailable"), not a snapshot of the job: passed over``):
    a history goes on past them, as it goes past a HAR's error entries. A history forced to an error
    schema (``--schema runai-error``) is a history of error answers, compared as any other."""
    from jobschema.schemas.detect import detect

    if schema is not None and schema in ERROR_SCHEMAS:
        return list(items), ()
    kept: list[Snapshot] = []
    named_lines: list[str] = []
    for label, value in items:
        if detect(value).schema in ERROR_SCHEMAS:
            named_lines.append(
                f"{label}: an error answer ({_said(value)}), not a snapshot of the job: passed over"
            )
        else:
            kept.append((label, value))
    return kept, tuple(named_lines)


def _said(answer: dict[str, Any]) -> str:
    """An error answer's code and message, one line (``code 503, "upstream unavailable"``)."""
    from jobschema.secrets.policy import masked
    from jobschema.text import compact, visible

    # (each read whole by the secret policy before it is cut: a token cut is no token's shape)
    code = answer.get("code")
    shown = f"code {code}" if isinstance(code, int) else visible(masked(str(code)))[:100]
    message = answer.get("message")
    return shown if message is None else f"{shown}, {compact(masked(message), 100)}"


def _fitting(items: Sequence[Snapshot]) -> tuple[list[Snapshot], tuple[str, ...]]:
    """The snapshots a bundled schema fits, and one line naming each of the others (``FILE:LINE:
    top level is an array, ...``): they are left out, and the others compared."""
    from jobschema.schemas.detect import detect

    kept: list[Snapshot] = []
    unfit: list[str] = []
    for label, value in items:
        found = detect(value)
        if found.schema is None:
            unfit.append(f"{label}: {found.reason}")
        else:
            kept.append((label, value))
    return kept, tuple(unfit)


class Snapshots(list[Snapshot]):
    """The snapshots read from a file, and ``unreadable``: one line naming each snapshot that could
    not be read (``FILE:LINE:COL: problem``), in file order."""

    unreadable: tuple[str, ...] = ()


def _one(
    items: Sequence[Snapshot], schema: str | None, options: DiffOptions, job: str = ""
) -> tuple[str, list[Pair]]:
    """The schema of one job's snapshots and the comparisons of each with the next."""
    from jobschema.diff.across import ACROSS, diff_across

    names = [(label, schema_of(value, schema, label)) for label, value in items]
    first = names[0][1]
    for label, name in names[1:]:
        if name != first and {name, first} != ACROSS:  # (AIHC v1 and v2 answers of a job: compared across)
            raise DiffInputError(f"{label} is {name} but {names[0][0]} is {first}: a history is one job")
    plans = {name: plan_of(name, schema) for name in dict.fromkeys(name for _, name in names)}
    steps = []
    for ((left_label, left), (_, left_name)), ((right_label, right), (_, right_name)) in itertools.pairwise(
        zip(items, names, strict=True)
    ):
        if left_name == right_name:
            changes = finish(compare(left, right, plans[left_name], options, At.root()), options)
        else:
            changes = diff_across(left, right, left_name, options).changes
        steps.append(Pair(left_label, right_label, changes, job=job))
    return " ~ ".join(plans), steps


def _several(
    jobs: dict[str, list[Snapshot]],
    schema: str | None,
    options: DiffOptions,
    warnings: tuple[str, ...] = (),
    passed_over: tuple[str, ...] = (),
) -> DiffResult:
    steps: list[Pair] = []
    listed: list[dict[str, Any]] = []
    for key, items in jobs.items():
        # (a job's id is a payload's value, shown in every heading: read by the policy as one)
        job = key if options.show_secrets else masked_token(key)
        name, pairs = _one(items, schema, options, job)
        steps += pairs
        listed.append({"job": job, "schema": name, "snapshots": len(items)})
    schemas = ", ".join(dict.fromkeys(entry["schema"] for entry in listed))
    extra = {"jobs": listed}
    return DiffResult(
        schemas,
        _union(steps),
        "history",
        tuple(steps),
        warnings=warnings,
        extra=extra,
        passed_over=passed_over,
    )


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
    """The job a snapshot names: a Run:ai ``workloadId``, an AIHC ``result.jobId``, or an AIHC v2
    answer's job id (either shape)."""
    return runai.job_id(value) or aihc.job_id(value) or answer_job_id(value)


def read_history(name: str, stdin: BinaryIO | None = None, *, skip_unreadable: bool = False) -> Snapshots:
    """The snapshots of an NDJSON file or a HAR (``-``: standard input), labelled ``FILE:LINE`` (a
    HAR's ``FILE#ENTRY``). A snapshot that cannot be read raises :class:`DiffInputError` naming it;
    with ``skip_unreadable`` it is named in ``unreadable`` (one line each) and left out, and the
    error is raised only when fewer than two snapshots can be read."""
    folder = name != "-" and Path(name).is_dir()
    if folder:
        found, data, har = _folder(name), b"", None
    else:
        data = read_document_bytes(name, stdin)
        har = _har_entries(name, data)
        found = har if har is not None else _lines(name, data)
    snapshots = Snapshots(item for item in found if not isinstance(item, str))
    snapshots.unreadable = tuple(item for item in found if isinstance(item, str))
    if not folder and har is None and (snapshots.unreadable or len(snapshots) < 2):
        whole = _one_document(name, data)  # (its lines read one by one: the first one's error misleads)
        if whole is not None:
            raise DiffInputError(whole)
    if snapshots.unreadable and not skip_unreadable:
        raise DiffInputError(snapshots.unreadable[0])
    if len(snapshots) < 2:  # (named here: the comparison itself knows no file)
        if snapshots.unreadable:
            raise DiffInputError(snapshots.unreadable[0])
        held = (
            "folder holds one snapshot"
            if folder
            else "file is empty"
            if not data.strip()
            else "file holds one snapshot"
        )
        raise DiffInputError(f"{named(name)}: {held}; --history needs at least two snapshots")
    return snapshots


def _folder(name: str) -> list[Snapshot | str]:
    """The snapshots of the payload files in folder ``name`` (and below), in natural name order
    (``snap-2`` before ``snap-10``): a JSON file is one snapshot, an NDJSON file one a line, a HAR
    its job answers; or the line naming what cannot be read."""
    from jobschema.errors import InputNotFound
    from jobschema.inputs.files import expand

    try:
        files = expand([name]).files
    except InputNotFound as err:
        raise DiffInputError(str(err)) from None
    found: list[Snapshot | str] = []
    for path in sorted(files, key=_natural):
        try:
            data = read_document_bytes(path)
        except DiffInputError as err:
            found.append(str(err))
            continue
        har = _har_entries(path, data)
        if har is not None:
            found += har
        elif path.endswith((".ndjson", ".jsonl")):
            found += _lines(path, data)
        else:
            try:
                found.append((named(path), parse_document(path, data)))
            except DiffInputError as err:
                found.append(str(err))
    return found


def _natural(path: str) -> list[tuple[int, int | str]]:
    """A path's sort key: its runs of digits read as numbers, the rest as text."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", path) if part]


def _one_document(name: str, data: bytes) -> str | None:
    """The line naming a file that is one JSON object or array written over several lines (a capture
    pretty-printed, ``jq -s`` of snapshots), not NDJSON; None for anything else."""
    if sum(1 for line in data.splitlines() if line.strip()) < 2:
        return None
    try:
        value = parse_document(name, data)
    except DiffInputError:
        return None
    if isinstance(value, dict):
        return (
            f"{named(name)}: is one JSON document written over several lines, not NDJSON "
            "(one snapshot a line)"
        )
    if isinstance(value, list):
        return (
            f"{named(name)}: is a JSON array written over several lines, not NDJSON (one snapshot a line): "
            f"jq -c '.[]' {named(name)} writes it so"
        )
    return None


def _lines(name: str, data: bytes) -> list[Snapshot | str]:
    """Each non-blank line's snapshot, or the one line naming why it cannot be read."""
    found: list[Snapshot | str] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            try:
                found.append((f"{named(name)}:{number}", parse_document(name, line, number)))
            except DiffInputError as err:
                found.append(str(err))
    return found


def _har_entries(name: str, data: bytes) -> list[Snapshot | str] | None:
    """The job answers of a HAR in entry order (or the line naming one that cannot be read); None
    when ``data`` is not a HAR."""
    if _OBJECT.match(data) is None:
        return None
    try:
        value = document_value(data)
    except (ValueError, RecursionError):
        return None
    log = value.get("log") if isinstance(value, dict) else None
    if not isinstance(log, dict) or not isinstance(log.get("entries"), list):
        return None
    from jobschema.inputs.har import har_payloads
    from jobschema.inputs.payload import Payload

    found: list[Snapshot | str] = []
    for item in har_payloads(name, data):
        if not isinstance(item, Payload) or item.schema not in _JOB_SCHEMAS:
            continue  # another endpoint, an error answer: not a snapshot of the job
        entry = item.source[len(name) :].split(" ", 1)[0]  # "#3" of "FILE#3 GET URL"
        if item.parsed:  # (a repeated key only warns: its last value is read, as everywhere)
            found.append((named(name) + entry, item.value))
        else:
            found.append(f"{named(name)}{entry}: {item.problems[0].message}")
    return found


_OBJECT = re.compile(rb"(?:\xef\xbb\xbf)?\s*\{")  # (a byte-order mark first, as Windows tools write)
#: The schemas of the job answers a HAR's entries hold (error answers are no snapshot of a job).
_JOB_SCHEMAS = frozenset({runai.WORKLOAD_SCHEMA, aihc.JOB_SCHEMA, "aihc-v2-job"})
