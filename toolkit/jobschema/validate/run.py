"""Validate payloads: one parsed value, or every payload behind a list of paths.

>>> from jobschema.validate import validate_payload
>>> validate_payload({"code": 404, "message": "Resource id not found."}).valid
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

from jobschema.findings import PayloadResult, Report
from jobschema.inputs.files import expand
from jobschema.inputs.payload import Payload, Skipped
from jobschema.inputs.read import NDJSON_SUFFIXES, read_payloads
from jobschema.schemas.versions import as_pins
from jobschema.validate.pool import idle_cpus, run_in_processes, usable_cpus, worth_running
from jobschema.validate.session import (
    Session,
    Settings,
    check_payload,
    payload_findings,
    payload_result,
    unrecognised,
)

if TYPE_CHECKING:  # cutting NDJSON files and forking are loaded by the runs that use several processes
    from jobschema.inputs.split import Part
    from jobschema.validate.fork import Ticket

Progress = Callable[[int], None]


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


@dataclass
class Tally:
    """What checking some files gave: the kept results, and counts of skipped and clean payloads."""

    results: list[PayloadResult] = field(default_factory=list)
    skipped: int = 0
    clean: int = 0

    def add(self, other: Tally) -> None:
        self.results += other.results
        self.skipped += other.skipped
        self.clean += other.clean

    @property
    def done(self) -> int:
        return len(self.results) + self.clean + self.skipped

    def report(self) -> Report:
        return Report(tuple(self.results), self.skipped, self.clean)


def _check_files(
    session: Session, files: Sequence[str | Part], stdin: BinaryIO | None, progress: Progress | None
) -> Tally:
    return tally_payloads(session, read_payloads(files, stdin), progress)


def tally_payloads(
    session: Session, items: Iterable[Payload | Skipped], progress: Progress | None = None
) -> Tally:
    """Check loaded payloads in order, keeping results as the session's settings say (the one loop of
    every run: local, in a process pool, in a Dask task)."""
    tally = Tally()
    settings = session.settings
    for item in items:
        if isinstance(item, Skipped):
            tally.skipped += 1
            continue
        name, findings = payload_findings(session, item)
        if name and not findings and not settings.keep_clean:
            tally.clean += 1  # (no result built: it would be counted only)
        else:
            _keep(tally, settings, payload_result(session, item, name, findings))
        if progress is not None:
            progress(tally.done)
    return tally


def _keep(tally: Tally, settings: Settings, result: PayloadResult) -> None:
    if settings.skip_unknown and unrecognised(result):
        tally.skipped += 1
    elif settings.keep_clean or result.findings:
        tally.results.append(result)
    else:
        tally.clean += 1


Task = tuple[Settings, list["str | Part"]]


def _worker(task: Task) -> Tally:
    settings, files = task
    return _check_files(_session(settings), files, None, None)


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
    at the start, :func:`~jobschema.validate.pool.idle_cpus`); fewer when the input is too small
    to pay for them (:data:`~jobschema.validate.pool.BYTES_PER_JOB`). ``skip_unknown`` counts
    payloads no bundled schema fits as skipped. ``keep_clean=False`` counts payloads without findings
    instead of keeping their results, so a run over millions of NDJSON lines needs memory for its
    findings only. ``api_versions`` (``{"runai": "2.19"}``) checks an API's payloads against one of
    its versions, as ``--api-version`` does.
    """
    files = expand(list(inputs)).files
    settings = Settings(schema, strict, skip_unknown, keep_clean, as_pins(api_versions))
    return check_files(files, settings, jobs, stdin, progress)


def check_files(
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
        tally = _check_files(session, files, stdin, progress)
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
    from jobschema.validate import fork

    size = max(1, min(256, len(files) // (jobs * 32)))
    if fork.can_fork():
        checking = session or _session(settings)

        def work(ticket: Ticket) -> Tally:
            return _check_files(checking, batch_of(files, ticket), None, None)

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


def batches(files: Sequence[str], jobs: int, size: int) -> Iterator[list[str | Part]]:
    """The work of ``jobs`` processes (or Dask threads), in input order: files in batches of
    ``size``, a large NDJSON file in parts of its own, cut lazily (:mod:`jobschema.inputs.split`)."""
    return (batch_of(files, ticket) for ticket in tickets(files, jobs, size))


#: How many files the first batch of a forked run holds at most (:func:`tickets`).
LEAD_FILES = 4


def tickets(files: Sequence[str], jobs: int, size: int, lead: int | None = None) -> Iterator[Ticket]:
    """:func:`batches` as tickets of five integers into ``files``: ``(first, count, 0, 0, 0)`` for
    ``count`` files from ``files[first]``, ``(file, 0, start, end, line)`` for a part of an NDJSON
    file (``end`` -1: to the end of the file). The first batch holds at most ``lead`` files."""
    begin = count = 0
    limit = min(size, lead or size)
    for index, name in enumerate(files):
        pieces = _pieces(name, jobs)
        first = next(pieces)
        if isinstance(first, str):
            begin, count = (index, 1) if not count else (begin, count + 1)
            if count < limit:
                continue
        if count:
            yield (begin, count, 0, 0, 0)
            count = 0
        if not isinstance(first, str):
            for part in (first, *pieces):  # (a file is cut into parts, or not at all)
                if not isinstance(part, str):
                    yield (index, 0, part.start, -1 if part.end is None else part.end, part.first_line)
        limit = size
    if count:
        yield (begin, count, 0, 0, 0)


def batch_of(files: Sequence[str], ticket: Ticket) -> list[str | Part]:
    """The files (or the NDJSON part) of one of :func:`tickets`."""
    first, count, start, end, line = ticket
    if count:
        return list(files[first : first + count])
    from jobschema.inputs.split import Part

    return [Part(files[first], start, None if end < 0 else end, line)]


def _pieces(name: str, jobs: int) -> Iterator[str | Part]:
    if name.lower().endswith(NDJSON_SUFFIXES):
        from jobschema.inputs.split import split_ndjson

        return split_ndjson(name, jobs)
    return iter((name,))
