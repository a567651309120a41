"""Timing helpers: whole child processes (wall time, peak RSS, exit code) and in-process loops."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: GNU time reports the peak RSS of the command it runs. Without it, the rusage of our own child is
#: used, which Linux floors at this process's RSS (the child was forked from it before exec).
GNU_TIME = Path("/usr/bin/time")


@dataclass(frozen=True)
class Run:
    """One child process: wall seconds, peak resident memory (MiB; 0 when not asked for), exit code,
    and whether it was killed at the time limit."""

    seconds: float
    max_rss_mib: float
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str


def console_script(name: str) -> list[str]:
    """The command of an installed console script, preferring the one beside this interpreter
    (a pyenv or asdf shim on PATH would add its own start-up to every measurement)."""
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return [str(beside)]
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} is not installed: pip install -e '.[bench]'")
    return [found]


def run_process(
    cmd: Sequence[str], timeout: float | None = None, rss: bool = False, env: dict[str, str] | None = None
) -> Run:
    """Run ``cmd`` once (in its own process group, killed whole at ``timeout``); stdout and stderr go to
    temporary files so a large report never blocks it. ``rss`` measures peak memory (through GNU time
    when installed, which adds a millisecond or two to the wall time)."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile() as peak,
    ):
        wrapped = list(cmd)
        if rss and GNU_TIME.is_file():
            wrapped = [str(GNU_TIME), "-f", "%M", "-o", peak.name, *wrapped]
        start = time.perf_counter()
        proc = subprocess.Popen(
            wrapped, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, start_new_session=True
        )
        killed = threading.Event()
        timer = None
        if timeout is not None:
            timer = threading.Timer(timeout, _kill, (proc, killed))
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if timer is not None:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(
            seconds,
            _peak_mib(peak.name, usage.ru_maxrss) if rss else 0.0,
            proc.returncode,
            killed.is_set(),
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


def _peak_mib(report: str, fallback_kib: int) -> float:
    """GNU time's ``%M`` (KiB, the last line of its report), else the child's own rusage."""
    lines = Path(report).read_text(encoding="utf-8", errors="replace").split()
    return int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else fallback_kib / 1024


def _kill(proc: subprocess.Popen[bytes], killed: threading.Event) -> None:
    killed.set()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def repeat(
    cmd: Sequence[str],
    times: int,
    timeout: float | None = None,
    rss: bool = False,
    env: dict[str, str] | None = None,
    warmup: bool = False,
) -> list[Run]:
    """Run ``cmd`` ``times`` times (stopping early once a run hits the time limit), after one untimed
    run when ``warmup`` (bytecode cache and page cache filled, as on a machine in daily use)."""
    if warmup:
        run_process(cmd, timeout, False, env)
    runs = []
    for _ in range(times):
        runs.append(run_process(cmd, timeout, rss, env))
        if runs[-1].timed_out:
            break
    return runs


def use_bytecode_cache(folder: Path) -> str | None:
    """Let every child write and reuse bytecode, kept under ``folder`` (the source tree is not
    touched); returns the ``PYTHONDONTWRITEBYTECODE`` value this machine had set, if any."""
    before = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    return before


BUSY = "x = 0\nfor i in range(15_000_000):\n    x += i\n"


def parallel_throughput() -> float:
    """How much more CPU-bound work two processes get done than one (2.0 on two free cores): what
    ``--jobs 2`` can gain at best on this machine right now."""
    alone = median([run_process([sys.executable, "-c", BUSY]).seconds for _ in range(2)])
    start = time.perf_counter()
    pair = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
    for proc in pair:
        proc.wait()
    return 2 * alone / (time.perf_counter() - start)


def median(values: Sequence[float]) -> float:
    """The median (the machine is noisy: medians, never means)."""
    return statistics.median(values)


def median_seconds(runs: Sequence[Run]) -> float:
    """The median wall time of ``runs``."""
    return median([run.seconds for run in runs])


def time_loop(work: Callable[[], object], times: int) -> list[float]:
    """Wall seconds of ``times`` calls of ``work`` (after one warm-up call)."""
    work()
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        work()
        samples.append(time.perf_counter() - start)
    return samples
