"""Validate payloads: one parsed value (or JSON text), or every payload behind a list of paths.

>>> from jobschema.validate import validate_payload
>>> validate_payload({"code": 404, "message": "Resource id not found."}).valid
True
>>> validate_payload('{"code": 404, "message": "Resource id not found."}').schema
'runai-error'

Bad data is a finding, never an exception; an argument of the wrong type is a ``TypeError`` (a value
out of range a ``ValueError``) that names the argument, raised before anything is read.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, BinaryIO, cast

from jobschema.findings import PayloadResult, Report
from jobschema.inputs.files import expand
from jobschema.inputs.files import input_names as files_input_names
from jobschema.validate.checker import UNSHORTENED
from jobschema.validate.parallel.pool import idle_cpus, run_in_processes, usable_cpus, worth_running
from jobschema.validate.parallel.tickets import LEAD_FILES, Ticket, batch_of, batches, tickets
from jobschema.validate.session import Session, Settings, check_payload
from jobschema.validate.tally import Done, Progress, T, Tally, tally_file_parts, tally_files


def validate_payload(
    value: Any,
    schema: str | os.PathLike[str] | None = None,
    *,
    strict: bool = False,
    source: str = "<payload>",
    api_versions: Mapping[str, str] | None = None,
) -> PayloadResult:
    """Check one payload against ``schema`` (a bundled name or a schema file's path), auto-detected
    when None; ``api_versions`` (``{"runai": "2.19"}``) checks against one version of an API
    (``--api-version``).

    ``value`` is a parsed JSON value (a dict, ...) or JSON text (``str`` or ``bytes``, parsed exactly
    as a ``.json`` file of those bytes: a parse error or a duplicate key is a finding with its line
    and column), as :func:`~jobschema.validate.payloads.validate_payloads` takes its items.
    Validators are built once per ``(schema, strict, api_versions)`` and reused by later calls.
    """
    from jobschema.validate.payloads import as_payload

    if not isinstance(source, str):
        raise TypeError(f"source: expected a str naming the payload, not {type(source).__name__}")
    settings = Settings.of(schema, strict, api_versions=api_versions)
    return check_payload(_session(settings), as_payload((source, value)))


def input_names(inputs: Any) -> list[str]:
    """:func:`jobschema.inputs.files.input_names`, pointing a payload given as ``inputs`` to
    :func:`validate_payload`."""
    return files_input_names(inputs, " (validate_payload checks a payload that is not a file)")


#: A ticket's tally as it leaves the process that checked it (the tally itself, or its rendered
#: lines): a :class:`~jobschema.validate.tally.Done`, as every part of a run is.
Task = tuple[Settings, list[Any], Callable[[Tally], Done]]


def _worker(task: Task) -> Done:
    settings, files, finish = task
    return finish(tally_files(_session(settings), files))


_SESSIONS: dict[Settings, Session] = {}
#: Sessions kept per process (one per settings; the oldest is dropped): memory stays bounded however
#: many schema files or pins a long-lived process checks against.
SESSIONS_KEPT = 16


def _session(settings: Settings) -> Session:
    """The session of ``settings``, built once per process (its checkers are reused)."""
    session = _SESSIONS.get(settings)
    if session is None:
        while len(_SESSIONS) >= SESSIONS_KEPT:
            del _SESSIONS[next(iter(_SESSIONS))]
        session = _SESSIONS[settings] = Session(settings)
    return session


def validate_paths(
    inputs: Iterable[str | bytes | os.PathLike[str]] | str | os.PathLike[str],
    schema: str | os.PathLike[str] | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
    keep_clean: bool = True,
    api_versions: Mapping[str, str] | None = None,
) -> Report:
    """Check every payload behind ``inputs`` (files, folders, quoted globs, ``-``; one path or an
    iterable of them); results in input order. An input that names nothing raises
    :class:`~jobschema.errors.InputNotFound` before any file is read.

    ``jobs`` processes check the files (``0``: one per usable CPU that no other process is running on
    at the start, :func:`~jobschema.validate.parallel.pool.idle_cpus`); fewer when the input is too small
    to pay for them (:data:`~jobschema.validate.parallel.pool.BYTES_PER_JOB`). ``skip_unknown`` counts
    payloads no bundled schema fits as skipped. ``keep_clean=False`` counts payloads without findings
    instead of keeping their results, so a run over millions of NDJSON lines needs memory for its
    findings only. ``api_versions`` (``{"runai": "2.19"}``) checks an API's payloads against one of
    its versions, as ``--api-version`` does.
    """
    names = input_names(inputs)
    settings = Settings.of(schema, strict, skip_unknown, keep_clean, api_versions)
    check_jobs(jobs)
    _check_stdin(stdin)
    return validate_expanded(expand(names).files, settings, jobs, stdin, progress)


def _check_stdin(stdin: Any) -> None:
    """``stdin`` must be a binary stream (what ``-`` reads), or None for this process's standard input."""
    if stdin is not None and (
        isinstance(stdin, io.TextIOBase) or not callable(getattr(stdin, "readline", None))
    ):
        kind = type(stdin).__name__
        raise TypeError(f"stdin: expected a binary stream (io.BytesIO, open(name, 'rb')), not {kind}")


def check_jobs(jobs: int) -> None:
    """``jobs`` must be a count of processes (``0``: one per idle CPU)."""
    if not isinstance(jobs, int) or isinstance(jobs, bool):
        raise TypeError(f"jobs: expected an int (0: one process per CPU), not {type(jobs).__name__}")
    if jobs < 0:
        raise ValueError(f"jobs: expected 0 (one process per CPU) or more, not {jobs}")


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
    check_jobs(jobs)
    session = Session(settings, unshortened=UNSHORTENED if len(files) == 1 else 0)
    session.forced()
    picked = worth_running(jobs or usable_cpus(), files)
    jobs = idle_cpus(picked) if picked > 1 and not jobs else picked  # (never more than picked)
    parts = _parallel(files, settings, finish, jobs, progress, session) if jobs > 1 else None
    if parts is None:
        parts = tally_file_parts(session, files, finish, stdin, progress)
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
