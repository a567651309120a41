"""Validate payloads: one parsed value, or every payload behind a list of paths.

>>> from jobschema.validate import validate_payload
>>> validate_payload({"code": 404, "message": "Resource id not found."}).valid
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, BinaryIO, Protocol, TypeVar, cast

from jobschema.findings import PayloadResult, Report
from jobschema.inputs.files import expand
from jobschema.inputs.payload import Payload
from jobschema.schemas.versions import as_pins
from jobschema.validate.checker import UNSHORTENED
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


#: A ticket's tally as it leaves the process that checked it (the tally itself, or its rendered lines).
T = TypeVar("T", bound="Done")


class Done(Protocol):
    """What a process sends back: it tells how many payloads it stands for (for the progress)."""

    @property
    def done(self) -> int: ...


Task = tuple[Settings, list[Any], Callable[[Tally], Done]]


def _worker(task: Task) -> Done:
    settings, files, finish = task
    return finish(tally_files(_session(settings), files))


_SESSIONS: dict[Settings, Session] = {}


def _session(settings: Settings) -> Session:
    """The session of ``settings``, built once per process (its checkers are reused)."""
    return _SESSIONS.setdefault(settings, Session(settings))


def validate_paths(
    inputs: Iterable[str | os.PathLike[str]],
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
    files = expand([os.fspath(name) for name in inputs]).files  # (a Path is a name like any other)
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
    whole = Tally()
    for part in tally_expanded(files, settings, _same, jobs, stdin, progress):
        whole.add(part)
    return whole.report()


def tally_expanded(
    files: Sequence[str],
    settings: Settings,
    finish: Callable[[Tally], T],
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
) -> list[T]:
    """The tallies of consecutive parts of ``files``, in input order, each passed through ``finish``
    in the process that checked it (``jobs`` as for :func:`validate_paths`): what a process sends
    back is what ``finish`` makes of its tally (the report's lines, rendered there, for
    :func:`jobschema.report.render_section`).

    Whatever the job count, ``finish`` must return an object with a ``done`` property (how many
    payloads it stands for: :class:`~jobschema.validate.tally.Tally` and
    :class:`~jobschema.report.Section` have one), and must pickle (a module-level function, or a
    ``functools.partial`` of one): where processes cannot fork (macOS, Windows) a process pool sends it
    to its workers."""
    session = Session(settings, unshortened=UNSHORTENED if len(files) == 1 else 0)
    session.forced()
    picked = worth_running(jobs or usable_cpus(), files)
    jobs = idle_cpus(picked) if picked > 1 and not jobs else picked  # (never more than picked)
    parts = _parallel(files, settings, finish, jobs, progress, session) if jobs > 1 else None
    if parts is None:
        parts = [finish(tally_files(session, files, stdin, progress))]
    return parts


def _same(tally: Tally) -> Tally:
    return tally


def _parallel(
    files: list[str] | Sequence[str],
    settings: Settings,
    finish: Callable[[Tally], T],
    jobs: int,
    progress: Progress | None,
    session: Session,
) -> list[T] | None:
    """What ``finish`` makes of each ticket's tally in ``jobs`` processes (this one and forked
    children on Linux, a process pool elsewhere), or ``None`` when no process pool can start here."""
    from jobschema.validate.parallel import fork

    size = max(1, min(256, len(files) // (jobs * 32)))
    if fork.can_fork():

        def work(ticket: Ticket) -> T:
            return finish(tally_files(session, batch_of(files, ticket)))

        # (the first ticket is checked here alone, before the fork: a few files build the validators)
        return fork.run_forked(work, tickets(files, jobs, size, LEAD_FILES), jobs, _done, progress)
    tasks = ((settings, batch, finish) for batch in batches(files, jobs, size))
    running = run_in_processes(_worker, tasks, jobs)
    if running is None:
        return None
    parts, done = [], 0
    for part in running:
        parts.append(cast(T, part))
        done += part.done
        if progress is not None:
            progress(done)
    return parts


def _done(part: Done) -> int:
    return part.done
