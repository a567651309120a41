"""Writing the recording's files so that a kill never leaves half a record.

Each record (an NDJSON line with its newline, a HAR entry with the closing brackets) is one
``write`` of the whole bytes, made with SIGINT and SIGTERM held back, so a signal lands before or
after the write, never inside it (``kill -9`` cannot interrupt a write to a regular file either).
A write that fails part way (a full disk, a quota) is rolled back before the error is reported: the
file is cut back to where the write began and what the write covered restored (the HAR's closing
brackets), so it stays whole and a later run resumes it.
Each file is locked while a recording writes it: a second recorder on the same file is refused.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from jobschema.errors import ToolkitError
from jobschema.inputs.files import named

_HELD = {signal.SIGINT, signal.SIGTERM}


class OutputError(ToolkitError):
    """A recording file that cannot be opened, locked, read or written (exit 2)."""


def open_locked(path: Path, append: bool) -> int:
    """A descriptor of ``path`` for reading and writing (created when missing), locked for this run."""
    flags = os.O_RDWR | os.O_CREAT | (os.O_APPEND if append else 0) | getattr(os, "O_CLOEXEC", 0)
    try:  # (non-blocking: opening a FIFO or a device must not wait; a regular file never does)
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o644)
    except OSError as err:
        raise OutputError(f"{named(path)}: cannot open: {err.strerror or err}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputError(f"{named(path)}: not a regular file (a FIFO, a device or a socket); name a file")
    try:
        _lock(fd)
    except BlockingIOError:
        os.close(fd)
        raise OutputError(f"{named(path)}: another jobschema record is writing this file") from None
    return fd


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks
        return
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM that arrive inside the block take effect when it ends (main thread only).

    For an HTTP request: an exception raised at an arbitrary point inside httpcore's connection pool
    can leave the pool's lock taken, and the pool's own clean-up then waits on it forever. A second
    signal inside the block ends the process at once (exit 128 + signal): the files are complete
    after every record.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def note(signum: int, frame: object) -> None:
        if caught:
            os.write(2, b"interrupted\n")
            os._exit(128 + signum)
        caught.append(signum)

    previous = {signum: signal.signal(signum, note) for signum in _HELD}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if caught:
            signal.raise_signal(caught[0])


#: The system calls a record is written with (a test fills the disk by replacing them).
_write = os.write
_pwrite = os.pwrite


def write_record(fd: int, data: bytes, path: Path, offset: int | None = None, restore: bytes = b"") -> None:
    """Write ``data`` whole (at ``offset``, or appended), signals held; a failure is an OutputError,
    raised once the file is as it was: cut back to where the write began, then ``restore`` (the
    bytes the write was to cover, such as the HAR's closing brackets) written there again."""
    with signals_held():
        try:
            start = os.fstat(fd).st_size if offset is None else offset
        except OSError as err:
            raise OutputError(f"{named(path)}: cannot write: {err.strerror or err}") from None
        try:
            _write_all(fd, data, offset)
        except OSError as err:
            failed = f"{named(path)}: cannot write: {err.strerror or err}"
            _roll_back(fd, start, restore, failed)
            raise OutputError(f"{failed}; the file is left as it was") from None


def _write_all(fd: int, data: bytes, offset: int | None) -> None:
    done = 0
    while done < len(data):
        chunk = data[done:]
        done += _write(fd, chunk) if offset is None else _pwrite(fd, chunk, offset + done)


def _roll_back(fd: int, start: int, restore: bytes, failed: str) -> None:
    """Undo a write that failed part way (``failed`` says how); an OutputError if even that fails."""
    try:
        os.ftruncate(fd, start)
        _write_all(fd, restore, start)
    except OSError as err:
        raise OutputError(f"{failed}; and cannot restore it: {err.strerror or err}") from None


def read_all(fd: int, path: Path) -> bytes:
    """The whole content of an open file."""
    try:
        size = os.fstat(fd).st_size
        return os.pread(fd, size, 0) if size else b""
    except OSError as err:
        raise OutputError(f"{named(path)}: cannot read: {err.strerror or err}") from None


def truncate(fd: int, size: int, path: Path) -> None:
    """Cut the file to ``size`` bytes."""
    try:
        os.ftruncate(fd, size)
    except OSError as err:
        raise OutputError(f"{named(path)}: cannot repair: {err.strerror or err}") from None
