"""Validation on Dask: the workers of a Dask cluster check a bag of payloads or of file paths, and the
client gets the same results and report as a local run over the same inputs.

Needs the optional extra ``pip install 'jobschema[dask]'`` (``dask[bag]`` and ``distributed``); this
module imports Dask only when one of its functions runs. Every worker needs the same jobschema
version (checked: a worker of another version fails the run), and file paths (and a ``schema`` file)
are opened by the workers, so they must see them at the same paths (a shared file system, a mounted
bucket). ::

    import dask.bag as db
    from jobschema.validate.parallel.dask import connect, validate_bag, validate_files

    client = connect("tcp://scheduler:8786")
    report = validate_files(["captures/"], client=client)  # as `jobschema validate captures/`
    lines = db.read_text("captures/*.ndjson", include_path=True).map(lambda pair: (pair[1], pair[0]))
    report = validate_bag(lines, client=client)  # each line a payload named by its file

How the results match a local run:

- Order: a bag's partitions are checked in parallel and their tallies joined in partition order, so
  results come in bag order; a bag of paths built by :func:`validate_files` holds the files in the
  order the CLI reads them (folders walked and sorted, globs expanded, duplicates dropped).
- Checks: each task runs the local checker (:func:`~jobschema.validate.tally.tally_payloads`, the loop of
  every local run) over its partition; nothing is checked differently.
- Secrets: each task masks under the client's mask key (:func:`~jobschema.secrets.mask.mask_key`,
  ``JOBSCHEMA_MASK_KEY`` or the run's random key), in force for that task's thread only, so the same
  secret gets the same mask as locally, whatever key the worker's own environment holds. The key
  travels in the task graph: use a ``tls://`` scheduler address where the network is not trusted.
- Checkers are built once per worker thread, run and key (threads never share one), and reused by
  the thread's later tasks. Checking is CPU-bound Python: run workers with one thread each and as
  many processes as CPUs (``dask worker ADDRESS --nworkers N --nthreads 1``).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jobschema import __version__
from jobschema.errors import ToolkitError, require_extra
from jobschema.findings import Report
from jobschema.inputs.files import STDIN, expand
from jobschema.inputs.read import read_payloads
from jobschema.inputs.split import Part
from jobschema.secrets.mask import mask_key, scoped_mask_key
from jobschema.validate.parallel.tickets import batches
from jobschema.validate.payloads import UNNAMED, check_items
from jobschema.validate.run import input_names
from jobschema.validate.session import Session, Settings
from jobschema.validate.tally import Tally, tally_payloads

if TYPE_CHECKING:
    from distributed import Client

__all__ = [
    "CONNECT_TIMEOUT",
    "DaskError",
    "connect",
    "validate_bag",
    "validate_dataframe",
    "validate_expanded",
    "validate_files",
    "validate_path_bag",
]

#: Seconds :func:`connect` waits for the scheduler, and then for its first worker.
CONNECT_TIMEOUT = 10.0
#: Files per task at most (a task's result travels back whole; smaller tasks balance better).
MAX_FILES_PER_TASK = 256
#: Tasks per worker thread a file list is cut into, so a slow file does not hold up the end.
TASKS_PER_THREAD = 4
#: Checkers kept per worker thread (one per run settings and mask key; the oldest is dropped).
SESSIONS_PER_THREAD = 4


class DaskError(ToolkitError):
    """Dask is not installed, the scheduler cannot be reached, or a worker cannot run jobschema."""


def _require_dask() -> None:
    require_extra("dask", "Dask", ("dask.bag", "distributed"), DaskError)


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Client:
    """A client of the Dask scheduler at ``address`` (``tcp://host:port``) that has a worker.

    Waits ``timeout`` seconds at most (a finite number above 0) for the scheduler, then as long again
    for a first worker; raises :class:`DaskError` (exit 2) when Dask is not installed or either does
    not come, and a ``TypeError`` for an address that is not a str or a timeout that is not a number.
    The client is not made the default of this process (pass it as ``client=``); close it when done.
    """
    if not isinstance(address, str):
        raise TypeError(f"address: expected a str such as 'tcp://HOST:PORT', not {type(address).__name__}")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise TypeError(f"timeout: expected a number of seconds, not {type(timeout).__name__}")
    if not 0 < timeout < math.inf:  # (nan and inf bound no wait; the command line's --dask-timeout too)
        raise DaskError(f"the Dask timeout must be a number of seconds above 0, not {timeout!r}")
    _require_dask()
    from distributed import Client
    from distributed.comm import get_address_host_port, parse_address

    try:
        scheme, _ = parse_address(address, strict=True)
        if scheme != "inproc":  # (an in-process scheduler's address has no port)
            get_address_host_port(address)
    except ValueError as err:
        raise DaskError(
            f"{address!r} is not a Dask scheduler address (tcp://HOST:PORT): {_one_line(err)}"
        ) from None
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise DaskError(f"cannot reach the Dask scheduler at {address}: {_one_line(err)}") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError) as err:
        client.close()
        raise DaskError(f"the Dask scheduler at {address} has no worker: {_one_line(err)}") from None
    return client


def validate_files(
    inputs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    schema: str | os.PathLike[str] | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    keep_clean: bool = True,
    api_versions: Mapping[str, str] | None = None,
    client: Client | None = None,
    files_per_task: int | None = None,
) -> Report:
    """:func:`~jobschema.validate.validate_paths` on Dask: the inputs (files, folders, quoted globs;
    one path or an iterable of them) are expanded here, and the workers check the files,
    ``files_per_task`` in each task."""
    names = input_names(inputs)
    settings = Settings.of(schema, strict, skip_unknown, keep_clean, api_versions)
    return validate_expanded(expand(names).files, settings, client, files_per_task)


def validate_expanded(
    files: Sequence[str],
    settings: Settings,
    client: Client | None = None,
    files_per_task: int | None = None,
) -> Report:
    """:func:`validate_files` of files already expanded (what ``jobschema validate --dask`` runs);
    ``files_per_task`` None: as many as spread the files over the workers' threads."""
    if STDIN in files:
        raise DaskError("standard input (-) cannot be checked on Dask: the workers do not have it")
    _check_client(client)
    _check_count(files_per_task)
    _require_dask()
    import dask.bag

    size = files_per_task or _files_per_task(len(files), client)
    work = list(batches(files, _threads(client), size))  # a large NDJSON file: parts of its own
    bag = dask.bag.from_sequence(work, partition_size=1) if work else None
    return _run(bag, _check_batches, settings, client, UNNAMED)


def validate_path_bag(
    bag: Any,
    schema: str | os.PathLike[str] | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    keep_clean: bool = True,
    api_versions: Mapping[str, str] | None = None,
    client: Client | None = None,
) -> Report:
    """Check the files a Dask bag of paths names (JSON, NDJSON, JSON Lines, HAR; read by the workers),
    as a local run over the same list of files does; results in bag order."""
    settings = Settings.of(schema, strict, skip_unknown, keep_clean, api_versions)
    return _run(bag, _check_paths, settings, client, UNNAMED)


def validate_bag(
    bag: Any,
    schema: str | os.PathLike[str] | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    keep_clean: bool = True,
    name: str = UNNAMED,
    api_versions: Mapping[str, str] | None = None,
    client: Client | None = None,
) -> Report:
    """Check a Dask bag of payloads, as :func:`~jobschema.validate.payloads.validate_payloads` does over
    the same items locally: each a parsed value, JSON text (``str`` or ``bytes``), or a
    ``(source, payload)`` pair naming it (unnamed ones are named ``name``); results in bag order."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected a str naming unnamed payloads, not {type(name).__name__}")
    settings = Settings.of(schema, strict, skip_unknown, keep_clean, api_versions)
    return _run(bag, _check_payloads, settings, client, name)


def validate_dataframe(
    frame: Any,
    column: str,
    source: str | None = None,
    schema: str | os.PathLike[str] | None = None,
    *,
    strict: bool = False,
    skip_unknown: bool = False,
    keep_clean: bool = True,
    api_versions: Mapping[str, str] | None = None,
    client: Client | None = None,
) -> Report:
    """Check the payloads in ``column`` of a Dask dataframe (JSON text or parsed values), each named
    by its row's ``source`` column (by its index when ``source`` is None); results in row order."""
    settings = Settings.of(schema, strict, skip_unknown, keep_clean, api_versions)
    _check_collection(frame, "frame", "a Dask dataframe", "to_bag")
    for label, value in (("column", column), ("source", source)):
        if value is not None and value not in frame.columns:
            raise ValueError(f"{label}: {value!r} is not a column of the frame")
    columns = [column] if source is None else [source, column]
    rows = frame[columns].to_bag(index=source is None)
    return _run(rows.map(_named_row), _check_payloads, settings, client, UNNAMED)


def _named_row(row: tuple[Any, Any]) -> tuple[str, Any]:
    return str(row[0]), row[1]


def _threads(client: Client | None) -> int:
    return max(1, sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1)


def _files_per_task(count: int, client: Client | None) -> int:
    return max(1, min(MAX_FILES_PER_TASK, math.ceil(count / (_threads(client) * TASKS_PER_THREAD))))


def _run(bag: Any, work: Any, settings: Settings, client: Client | None, name: str) -> Report:
    """One task per partition of ``bag`` (``work(partition, settings, key, name)``), the tallies joined
    in partition order. A forced schema is built here first, so a bad one fails before any task."""
    Session(settings).forced()
    _check_client(client)
    if bag is None:
        return Tally().report()
    _check_collection(bag, "bag", "a Dask bag (dask.bag.from_sequence(items))", "to_delayed")
    _require_dask()
    import dask
    from dask import delayed

    key = mask_key()
    tasks = [delayed(work, pure=False)(part, settings, key, name) for part in bag.to_delayed()]
    try:
        parts = dask.compute(*tasks, scheduler=client) if client is not None else dask.compute(*tasks)
    except ModuleNotFoundError as err:
        raise DaskError(
            f"a Dask worker cannot run jobschema ({err}); install jobschema on every worker"
        ) from None
    except _lost() as err:
        raise DaskError(f"the Dask run failed: {type(err).__name__}: {_one_line(err)}") from None
    tally = Tally()
    for version, part in parts:
        if version != __version__:
            raise DaskError(
                f"a Dask worker runs jobschema {version}, this client {__version__}: install one version"
            )
        tally.add(part)
    return tally.report()


def _check_client(client: Any) -> None:
    """``client`` must be a ``distributed.Client`` (or None); an address is :func:`connect`'s."""
    if client is not None and not callable(getattr(client, "nthreads", None)):
        hint = " (connect(address) gives one)" if isinstance(client, str) else ""
        raise TypeError(f"client: expected a distributed.Client or None, not {type(client).__name__}{hint}")


def _check_count(files_per_task: int | None) -> None:
    """``files_per_task`` must be None (as many as spread the files over the workers) or 1 or more."""
    if files_per_task is not None and not isinstance(files_per_task, int):
        raise TypeError(f"files_per_task: expected an int or None, not {type(files_per_task).__name__}")
    if files_per_task is not None and files_per_task < 1:
        raise ValueError(f"files_per_task: expected 1 or more, not {files_per_task}")


def _check_collection(value: Any, label: str, expected: str, method: str) -> None:
    """``value`` must be the Dask collection a function takes (it has ``method``)."""
    if not callable(getattr(value, method, None)):
        raise TypeError(f"{label}: expected {expected}, not {type(value).__name__}")


def _lost() -> tuple[type[BaseException], ...]:
    """What a run raises when the cluster fails it (a worker killed, the connection lost, the run
    cancelled), not this code: reading and checking turn bad data into findings, never exceptions."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    return (OSError, TimeoutError, CancelledError, KilledWorker)


def _check_paths(
    files: Iterable[str | Part], settings: Settings, key: bytes, _name: str
) -> tuple[str, Tally]:
    """One task: the files of a partition, read and checked by the worker."""
    with scoped_mask_key(key):
        return __version__, tally_payloads(_session(settings, key), read_payloads(list(files)))


def _check_batches(
    work: Iterable[list[str | Part]], settings: Settings, key: bytes, name: str
) -> tuple[str, Tally]:
    """One task: a batch of files, or one part of a large NDJSON file, made by :func:`validate_expanded`."""
    return _check_paths([item for batch in work for item in batch], settings, key, name)


def _check_payloads(items: Iterable[Any], settings: Settings, key: bytes, name: str) -> tuple[str, Tally]:
    """One task: the payloads of a partition."""
    with scoped_mask_key(key):
        return __version__, check_items(_session(settings, key), items, name)


_THREAD = threading.local()


def _session(settings: Settings, key: bytes) -> Session:
    """This thread's session of ``settings`` under ``key`` (a checker's caches are not shared between
    threads, and its embedded findings hold masks made with its key)."""
    sessions: dict[tuple[Settings, bytes], Session] | None = getattr(_THREAD, "sessions", None)
    if sessions is None:
        sessions = _THREAD.sessions = {}
    if (settings, key) not in sessions:
        while len(sessions) >= SESSIONS_PER_THREAD:
            del sessions[next(iter(sessions))]
        sessions[settings, key] = Session(settings)
    return sessions[settings, key]


def _one_line(err: BaseException) -> str:
    """The first line of a worker's or the cluster's error, through the secret policy (an ``OSError``
    quotes a file's path, whose folder may be named ``--password X``)."""
    from jobschema.secrets.reading import scrub_path

    text = str(err).strip()
    return scrub_path(text.splitlines()[0]) if text else type(err).__name__
