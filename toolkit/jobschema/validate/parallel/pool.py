"""Checking files in several processes: how many pay off, and running them so that they stop with
the main process (Ctrl-C, SIGTERM, or the main process killed)."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from jobschema.inputs.read import NDJSON_SUFFIXES
from jobschema.secrets.mask import mask_key as secrets_mask_key
from jobschema.secrets.mask import use_mask_key

T = TypeVar("T")
R = TypeVar("R")

#: Input bytes each extra process must have to check for it to pay off (a process costs ~0.1 s to
#: start and feed; checking runs at roughly 30-60 MB/s per process).
BYTES_PER_JOB = 4 * 2**20

#: What starting a process pool raises where processes or their semaphores are not available.
_NO_POOL = (NotImplementedError, PermissionError, ImportError, OSError)


def usable_cpus() -> int:
    """The CPUs this process may use (``--jobs 0``): its CPU affinity, capped by a cgroup CPU quota."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    quota = cgroup_quota()
    return max(1, min(cpus, math.ceil(quota))) if quota else cpus


def idle_cpus(cpus: int, loadavg: Path = Path("/proc/loadavg"), samples: int = 3) -> int:
    """Of ``cpus``, how many no other process is running on now (at least one): ``cpus`` less the
    runnable tasks of ``/proc/loadavg`` other than this one (the least of a few reads a millisecond
    apart, so a task that just woke up does not count; one read when it finds none). ``cpus`` where
    that file is not there."""
    busy = None
    for sample in range(samples):
        try:
            running = int(loadavg.read_text().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return cpus
        busy = running - 1 if busy is None else min(busy, running - 1)
        if busy <= 0:
            break
        if sample + 1 < samples:
            time.sleep(0.001)
    return max(1, cpus - max(0, busy or 0))


def cgroup_quota(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPUs a cgroup quota allows (``cpu.max`` of cgroup v2, ``cpu.cfs_*`` of v1), or None."""
    with contextlib.suppress(OSError, ValueError):
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    with contextlib.suppress(OSError, ValueError):
        microseconds = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        per = int((root / "cpu" / "cpu.cfs_period_us").read_text())
        return None if microseconds <= 0 else microseconds / per
    return None


def worth_running(jobs: int, files: Sequence[str]) -> int:
    """How many of ``jobs`` processes pay off for ``files``: fewer for small inputs, one for stdin.
    A large NDJSON file counts as the parts it is cut into (:mod:`jobschema.inputs.split`)."""
    if jobs <= 1 or "-" in files or (len(files) == 1 and not files[0].lower().endswith(NDJSON_SUFFIXES)):
        return 1  # (one JSON or HAR document is parsed whole, in one process)
    from jobschema.inputs import split

    total = pieces = 0
    for name in files:
        size = 0
        with contextlib.suppress(OSError):
            size = os.stat(name).st_size  # noqa: PTH116 - no Path object per file
        total += size
        pieces += max(1, size // split.SMALLEST_PART) if name.lower().endswith(NDJSON_SUFFIXES) else 1
        if total >= jobs * BYTES_PER_JOB and pieces >= 2 * jobs:
            return jobs
    return max(1, min(jobs, pieces // 2, total // BYTES_PER_JOB))


def _worker_start(mask_key: bytes) -> None:
    """In each worker: :func:`follow_main_process`; secrets are masked with the main process's key
    (the same secret gets the same mask in every worker)."""
    use_mask_key(mask_key)
    follow_main_process()


def follow_main_process() -> None:
    """In a worker process: Ctrl-C is the main process's to handle (it stops the workers), and a
    worker whose main process dies is stopped too (Linux: the parent-death signal)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(Exception):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def run_in_processes(work: Callable[[T], R], items: Iterable[T], jobs: int) -> Iterator[R] | None:
    """``work(item)`` for each item in ``jobs`` processes, results in order; ``None`` when this
    system cannot start a process pool. The workers end with the main process, however it ends."""
    import multiprocessing

    try:
        pool = multiprocessing.Pool(jobs, initializer=_worker_start, initargs=(secrets_mask_key(),))
    except _NO_POOL:  # no sem_open, a sandbox: the caller checks in one process
        return None
    return _results(pool, work, items)


def _results(pool: Any, work: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
    try:
        yield from pool.imap(work, items)
        pool.close()
    finally:
        pool.terminate()  # on any exit: Ctrl-C, SIGTERM (raised as SystemExit), an error
        pool.join()
