"""Timing helpers: whole child processes (wall and CPU time, peak RSS, exit code), contenders run
side by side in interleaved rounds, in-process loops, and what the machine offers (CPUs, quota, load)."""

from __future__ import annotations

import contextlib
import os
import pty
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

#: GNU time reports the peak RSS of the command it runs. Without it, the rusage of our own child is
#: used, which Linux floors at this process's RSS (the child was forked from it before exec).
GNU_TIME = Path("/usr/bin/time")
#: What a child's stdout and stderr keep (their tail): enough for every summary line we read.
KEEP = 1 << 20


@dataclass(frozen=True)
class Run:
    """One child process (or several run one after the other and summed): wall seconds, CPU seconds
    (user + system, its own children included), peak resident memory (MiB; 0 when not asked for),
    exit code, whether it was killed at the time limit, and the tail of what it printed."""

    seconds: float
    max_rss_mib: float
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str
    cpu_seconds: float = 0.0
    stdout_bytes: int = 0
    stderr_bytes: int = 0


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
    cmd: Sequence[str],
    timeout: float | None = None,
    rss: bool = False,
    env: dict[str, str] | None = None,
    memory_cap: int | None = None,
    stderr_pty: bool = False,
) -> Run:
    """Run ``cmd`` once (in its own process group, killed whole at ``timeout``); stdout and stderr go to
    temporary files so a large report never blocks it. ``rss`` measures peak memory (through GNU time
    when installed, which adds a millisecond or two). ``memory_cap`` bounds the address space of the
    child and its children (bytes), so a runaway input fails alone instead of exhausting the machine.
    ``stderr_pty`` gives the child a pseudo-terminal as stderr (as a person at a terminal has), drained
    by a thread."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile() as peak,
        _stderr(err, stderr_pty) as (stderr, drained),
    ):
        wrapped = list(cmd)
        if rss and GNU_TIME.is_file():
            wrapped = [str(GNU_TIME), "-f", "%M", "-o", peak.name, *wrapped]
        start = time.perf_counter()
        proc = subprocess.Popen(
            wrapped,
            stdout=out,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            preexec_fn=None if memory_cap is None else _cap(memory_cap),  # noqa: PLW1509 - only setrlimit
        )
        killed = threading.Event()
        timer = None
        if timeout is not None:
            timer = threading.Timer(timeout, _kill, (proc, killed))
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        if timer is not None:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        error_text, error_bytes = drained() if stderr_pty else _tail(err)
        output, output_bytes = _tail(out)
        return Run(
            took,
            _peak_mib(peak.name, usage.ru_maxrss) if rss else 0.0,
            proc.returncode,
            killed.is_set(),
            output,
            error_text,
            usage.ru_utime + usage.ru_stime,
            output_bytes,
            error_bytes,
        )


def _cap(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


@contextlib.contextmanager
def _stderr(err: IO[bytes], use_pty: bool) -> Iterator[tuple[int | IO[bytes], Callable[[], tuple[str, int]]]]:
    """The child's stderr: the temporary file, or the slave side of a new pseudo-terminal whose
    master is read by a thread (the text and byte count come from ``drained()`` once it has ended)."""
    if not use_pty:
        yield err, lambda: ("", 0)
        return
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    chunks: list[bytes] = []
    counts = {"total": 0, "kept": 0}
    slave_open = [True]

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                return
            if not chunk:
                return
            counts["total"] += len(chunk)
            counts["kept"] += len(chunk)
            chunks.append(chunk)
            while counts["kept"] > KEEP and len(chunks) > 1:
                counts["kept"] -= len(chunks.pop(0))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()

    def close_slave() -> None:
        if slave_open[0]:
            slave_open[0] = False
            os.close(slave)

    def drained() -> tuple[str, int]:
        close_slave()
        reader.join(timeout=10)
        return b"".join(chunks).decode("utf-8", "replace"), counts["total"]

    try:
        yield slave, drained
    finally:
        close_slave()
        reader.join(timeout=10)
        os.close(master)


def _tail(handle: IO[bytes]) -> tuple[str, int]:
    """The last :data:`KEEP` bytes of a child's output file, and its whole size."""
    size = handle.seek(0, os.SEEK_END)
    handle.seek(max(0, size - KEEP))
    return handle.read().decode("utf-8", "replace"), size


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


# Contenders side by side ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Contender:
    """A command measured against others. ``cmds`` holds one command, or several run one after the
    other and summed as one measurement (check-jsonschema and ajv-cli take one schema per run);
    ``None`` when the tool is not available here, ``note`` saying why. ``rounds`` caps how many
    rounds it takes part in (a slow anchor); ``expect`` the exit codes that mean it worked."""

    key: str
    label: str
    cmds: tuple[tuple[str, ...], ...] | None
    note: str = ""
    rounds: int | None = None
    rss: bool = False
    env: dict[str, str] | None = None
    expect: tuple[int, ...] = (0,)
    stderr_pty: bool = False
    memory_cap: int | None = None

    @property
    def available(self) -> bool:
        """Whether it can run here."""
        return self.cmds is not None


def contender(key: str, label: str, *cmds: Sequence[str], **options: object) -> Contender:
    """A :class:`Contender` of one or more commands."""
    return Contender(key, label, tuple(tuple(cmd) for cmd in cmds), **options)  # type: ignore[arg-type]


def measure_once(item: Contender, timeout: float | None) -> Run:
    """One measurement of ``item``: its commands one after the other, summed."""
    assert item.cmds is not None
    runs = []
    for cmd in item.cmds:
        runs.append(
            run_process(
                cmd, timeout, item.rss, item.env, memory_cap=item.memory_cap, stderr_pty=item.stderr_pty
            )
        )
        if runs[-1].timed_out:
            break
    return Run(
        sum(r.seconds for r in runs),
        max(r.max_rss_mib for r in runs),
        _worst(r.returncode for r in runs),
        any(r.timed_out for r in runs),
        "".join(r.stdout for r in runs)[-KEEP:],
        "".join(r.stderr for r in runs)[-KEEP:],
        sum(r.cpu_seconds for r in runs),
        sum(r.stdout_bytes for r in runs),
        sum(r.stderr_bytes for r in runs),
    )


def _worst(codes: Iterable[int]) -> int:
    """The exit code that says most: a signal (negative) first, else the highest."""
    seen = list(codes)
    return min(seen) if min(seen) < 0 else max(seen)


@dataclass
class Results:
    """The runs of each contender, by key; ``failed`` holds why a contender has none."""

    runs: dict[str, list[Run]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    def times(self, key: str) -> list[float]:
        """Wall seconds of the runs of ``key`` (empty when it did not run or timed out)."""
        return [run.seconds for run in self.runs.get(key, []) if not run.timed_out]

    def median(self, key: str) -> float | None:
        """The median wall time of ``key``, or None."""
        values = self.times(key)
        return statistics.median(values) if values else None

    def peak(self, key: str) -> float:
        """The largest peak RSS of ``key``'s runs (MiB)."""
        return max((run.max_rss_mib for run in self.runs.get(key, [])), default=0.0)

    def codes(self, key: str) -> str:
        """The exit codes seen, e.g. ``0`` or ``0,1``."""
        return ",".join(sorted({str(run.returncode) for run in self.runs.get(key, [])}))


def interleave(
    items: Sequence[Contender],
    rounds: int,
    timeout: float | None = None,
    warmup: bool = True,
    on_round: Callable[[int], None] | None = None,
) -> Results:
    """Every available contender once per round, A B C, B C A, C A B, … (the order rotates so no
    contender always runs after the same one), after one untimed run of each when ``warmup``.
    A contender that times out or exits with an unexpected code stops taking part."""
    results = Results()
    active = [item for item in items if item.available]
    for item in items:
        if not item.available:
            results.failed[item.key] = item.note or "not available"
    if warmup:
        for item in active:
            run = measure_once(item, timeout)
            _judge(item, run, results, timeout)
        active = [item for item in active if item.key not in results.failed]
    for number in range(rounds):
        if on_round is not None:
            on_round(number)
        shift = number % len(active) if active else 0
        for item in active[shift:] + active[:shift]:
            if item.key in results.failed or (item.rounds is not None and number >= item.rounds):
                continue
            run = measure_once(item, timeout)
            results.runs.setdefault(item.key, []).append(run)
            _judge(item, run, results, timeout)
    return results


def _judge(item: Contender, run: Run, results: Results, timeout: float | None) -> None:
    if run.timed_out:
        results.failed[item.key] = f"did not finish in {timeout:.0f} s"
    elif run.returncode not in item.expect:
        last = (run.stderr.strip() or run.stdout.strip()).splitlines()[-1:] or [""]
        results.failed[item.key] = (
            f"exit {run.returncode} (expected {','.join(map(str, item.expect))}): {last[0][:160]}"
        )


# The machine ----------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Cpus:
    """The CPUs a process here may use: logical CPUs, the affinity mask, the cgroup CPU quota."""

    logical: int
    affinity: int
    quota: float | None
    quota_source: str

    @property
    def usable(self) -> float:
        """The CPUs' worth of time a process group here may use at most."""
        return min(self.affinity, self.quota) if self.quota is not None else float(self.affinity)

    def describe(self) -> str:
        """One line for the report."""
        quota = (
            f"cgroup quota {self.quota:g} CPUs ({self.quota_source})"
            if self.quota is not None
            else f"no cgroup CPU quota ({self.quota_source})"
        )
        return f"{self.logical} logical, {self.affinity} in this process's affinity mask, {quota}"


def cpus(root: Path = Path("/sys/fs/cgroup"), cgroup_file: Path = Path("/proc/self/cgroup")) -> Cpus:
    """What :class:`Cpus` says about this process (cgroup v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us``)."""
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        affinity = os.cpu_count() or 1
    quota, source = cgroup_quota(root, cgroup_file)
    return Cpus(os.cpu_count() or 1, affinity, quota, source)


def cgroup_quota(root: Path, cgroup_file: Path) -> tuple[float | None, str]:
    """The CPU quota of this process's cgroup in CPUs (None: unlimited or unknown), and where it was read."""
    try:
        lines = cgroup_file.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None, "no /proc/self/cgroup"
    for line in lines:
        number, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if number == "0" and controllers == "":
            found = _read(root / relative / "cpu.max") or _read(root / "cpu.max")
            if found is not None:
                limit, _, period = found.partition(" ")
                where = "cgroup v2 cpu.max"
                return (None if limit == "max" else int(limit) / int(period or 100000)), where
        elif "cpu" in controllers.split(","):
            folder = root / "cpu" if (root / "cpu").is_dir() else root / controllers
            quota = _read(folder / relative / "cpu.cfs_quota_us") or _read(folder / "cpu.cfs_quota_us")
            period = _read(folder / relative / "cpu.cfs_period_us") or _read(folder / "cpu.cfs_period_us")
            if quota is not None:
                where = "cgroup v1 cpu.cfs_quota_us"
                return (None if int(quota) < 0 else int(quota) / int(period or 100000)), where
    return None, "no cgroup CPU controller found"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


BURN = (
    "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    pass\n"
)


@contextlib.contextmanager
def burner(count: int, limit: float) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` background processes that keep a CPU busy each, for at most ``limit`` seconds (they
    end by themselves then, and are killed when the block ends)."""
    procs = [
        subprocess.Popen([sys.executable, "-c", BURN, str(limit)], start_new_session=True)
        for _ in range(count)
    ]
    try:
        yield procs
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def memory_total() -> int:
    """Bytes of RAM on this machine (0 when unknown)."""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


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
