"""Validate payloads: one parsed value, or every payload behind a list of paths.

>>> from jobschema.validate import validate_payload
>>> validate_payload({"code": 404, "message": "Resource id not found."}).valid
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, BinaryIO

from jobschema.findings import PayloadResult, Report
from jobschema.inputs.files import expand
from jobschema.inputs.payload import Payload
from jobschema.schemas.versions import as_pins
from jobschema.validate.parallel.pool import idle_cpus, run_in_processes, usable_cpus, worth_running
from jobschema.validate.parallel.tickets import LEAD_FILES, Ticket, batch_of, batches, tickets
from jobschema.validate.session import Session, Settings, check_payload
from jobschema.validate.tally import Progress, Tally, tally_files


def validate_payload(
    value: Any,
    schema: str | None = None,
    *,
    strict: bool = False,
    source: str = "<payload>",
    api_versions: Mapping[str, str] | None = None,
) -> PayloadResult:
    """Check one parsed payload against ``schema`` (a name or path), auto-detected when None;
    ``api_versions`` (``{"runai": "2.19"}``) checks against one version of an API (``--api-version``).

    Validators are built once per ``(schema, strict, api_versions)`` and reused by later calls.
    """
    settings = Settings(schema, strict, api_versions=as_pins(api_versions))
    return check_payload(_session(settings), Payload(source, None, value=value))


Task = tuple[Settings, list[Any]]


def _worker(task: Task) -> Tally:
    settings, files = task
    return tally_files(_session(settings), files)


_SESSIONS: dict[Settings, Session] = {}


def _session(settings: Settings) -> Session:
    """The session of ``settings``, built once per process (its checkers are reused)."""
    return _SESSIONS.setdefault(settings, Session(settings))


def validate_paths(
    inputs: Iterable[str],
    schema: str | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
    keep_clean: bool = True,
    api_versions: Mapping[str, str] | None = None,
) -> Report:
    """Check every payload behind ``inputs`` (files, folders, quoted globs, ``-``); results in input order.

    ``jobs`` processes check the files (``0``: one per usable CPU that no other process is running on
    at the start, :func:`~jobschema.validate.parallel.pool.idle_cpus`); fewer when the input is too small
    to pay for them (:data:`~jobschema.validate.parallel.pool.BYTES_PER_JOB`). ``skip_unknown`` counts
    payloads no bundled schema fits as skipped. ``keep_clean=False`` counts payloads without findings
    instead of keeping their results, so a run over millions of NDJSON lines needs memory for its
    findings only. ``api_versions`` (``{"runai": "2.19"}``) checks an API's payloads against one of
    its versions, as ``--api-version`` does.
    """
    files = expand(list(inputs)).files
    settings = Settings(schema, strict, skip_unknown, keep_clean, as_pins(api_versions))
    return validate_expanded(files, settings, jobs, stdin, progress)


def validate_expanded(
    files: Sequence[str],
    settings: Settings,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
) -> Report:
    """:func:`validate_paths` of files already expanded."""
    session = Session(settings)
    session.forced()
    picked = worth_running(jobs or usable_cpus(), files)
    jobs = idle_cpus(picked) if picked > 1 and not jobs else picked  # (never more than picked)
    tally = _parallel(files, settings, jobs, progress, session) if jobs > 1 else None
    if tally is None:
        tally = tally_files(session, files, stdin, progress)
    return tally.report()


def _parallel(
    files: list[str] | Sequence[str],
    settings: Settings,
    jobs: int,
    progress: Progress | None,
    session: Session | None = None,
) -> Tally | None:
    """The tally of ``jobs`` processes (this one and forked children on Linux, a process pool
    elsewhere), or ``None`` when no process pool can start here."""
    from jobschema.validate.parallel import fork

    size = max(1, min(256, len(files) // (jobs * 32)))
    if fork.can_fork():
        checking = session or _session(settings)

        def work(ticket: Ticket) -> Tally:
            return tally_files(checking, batch_of(files, ticket))

        tally = Tally()
        # (the first ticket is checked here alone, before the fork: a few files build the validators)
        for part in fork.run_forked(work, tickets(files, jobs, size, LEAD_FILES), jobs, _done, progress):
            tally.add(part)
        return tally
    parts = run_in_processes(_worker, ((settings, batch) for batch in batches(files, jobs, size)), jobs)
    if parts is None:
        return None
    tally = Tally()
    for part in parts:
        tally.add(part)
        if progress is not None:
            progress(tally.done)
    return tally


def _done(tally: Tally) -> int:
    return tally.done
