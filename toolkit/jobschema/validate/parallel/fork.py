"""Checking in several processes on Linux: this process and ``jobs - 1`` forked children share one
queue of tickets, so no process waits on a pool and the children start with what this process has
already built (the validators of the first task's schemas).

The queue is a pipe of fixed-size tickets (:data:`TICKET`, smaller than ``PIPE_BUF``, so each write
and each read is one whole ticket, whichever process reads it). Each child sends, on a pipe of its
own, a short frame per ticket done (for progress) and, at its end, its results as one pickle. A
child that dies loses nothing: the tickets it took and did not send back are checked here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from jobschema.secrets.mask import mask_key
from jobschema.validate.parallel.pool import follow_main_process
from jobschema.validate.parallel.tickets import Ticket

R = TypeVar("R")

#: A task described by five integers (what they mean is the caller's: the children already have
#: everything else, the list of files, from before the fork).

#: One ticket on the queue: its index, then its five integers.
TICKET = struct.Struct("<q5q")

#: A child's frame: a kind (:data:`_DONE` with a ticket's index and the weight of its result, or
#: :data:`_RESULTS` with the length of the pickle that follows, and 0).
_FRAME = struct.Struct("<Bqq")
_DONE, _RESULTS = 0, 1

#: The signals that wait while a child is forked and registered.
_HELD = {signal.SIGINT, signal.SIGTERM}

#: The queue's size asked of Linux, so that this process rarely waits to write tickets.
_QUEUE_BYTES = 2**20


def can_fork() -> bool:
    """Whether this system forks cheaply and safely (Linux; macOS's system libraries do not)."""
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def run_forked(
    work: Callable[[Ticket], R],
    tickets: Iterable[Ticket],
    jobs: int,
    weight: Callable[[R], int],
    progress: Callable[[int], None] | None = None,
) -> list[R]:
    """``work(ticket)`` for every ticket, in this process and ``jobs - 1`` forked children; results
    in the tickets' order. ``progress`` gets the summed ``weight`` of the results done so far."""
    pending = iter(tickets)
    first = next(pending, None)
    if first is None:
        return []
    done = {0: work(first)}  # before the fork: the children inherit what it built
    mask_key()  # drawn now if it is random: the children mask with it, not each with one of its own
    shared = _Progress(progress)
    shared.add(0, weight(done[0]))
    queue_out, queue_in = os.pipe()
    with contextlib.suppress(OSError, AttributeError):
        import fcntl

        fcntl.fcntl(queue_in, fcntl.F_SETPIPE_SZ, _QUEUE_BYTES)
    children: dict[int, _Child] = {}
    try:
        for _ in range(jobs - 1):
            try:
                _fork(work, weight, queue_out, queue_in, children)
            except OSError:  # no more processes here (a pids limit, memory): go on with those there are
                break
        given = _give(first, pending, queue_in, children, shared)
        os.close(queue_in)  # the queue's end: a process that finds it empty stops
        queue_in = -1
        _take(work, weight, queue_out, done, children, shared)
        for child in children.values():
            done.update(child.results)
        for index in range(len(given)):  # a child that died took these with it
            if index not in done:
                done[index] = work(given[index])
                shared.add(index, weight(done[index]))
        return [done[index] for index in range(len(given))]
    finally:
        _close(queue_out, queue_in)
        _stop(children.values())


class _Progress:
    """The weight of the tickets done, each ticket counted once (a ticket a child did and died with
    is done again here, and not counted twice)."""

    def __init__(self, progress: Callable[[int], None] | None) -> None:
        self.progress = progress
        self.total = 0
        self.counted: set[int] = set()

    def add(self, index: int, count: int) -> None:
        if index in self.counted:
            return
        self.counted.add(index)
        self.total += count
        if self.progress is not None:
            self.progress(self.total)


class _Child:
    """A forked child as this process sees it: its pid, the pipe it writes to, what it sent."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.buffer = bytearray()
        self.results: dict[int, Any] = {}
        self.ended = False

    def read(self, shared: _Progress) -> None:
        """What the child wrote since the last read (its frames counted); at its end, its results."""
        data = os.read(self.fd, 2**16)
        if not data:
            self.ended = True
            return
        self.buffer += data
        while len(self.buffer) >= _FRAME.size:
            kind, value, count = _FRAME.unpack_from(self.buffer)
            if kind == _DONE:
                shared.add(value, count)
            elif len(self.buffer) < _FRAME.size + value:
                return
            else:
                import pickle

                self.results = pickle.loads(self.buffer[_FRAME.size : _FRAME.size + value])
                del self.buffer[: _FRAME.size + value]
                continue
            del self.buffer[: _FRAME.size]


def _fork(
    work: Callable[[Ticket], R],
    weight: Callable[[R], int],
    queue_out: int,
    queue_in: int,
    children: dict[int, _Child],
) -> _Child:
    """A forked child, registered in ``children`` before a Ctrl-C or SIGTERM can interrupt (they
    wait until then: an interrupted registration would leave a child nobody stops)."""
    held = _hold()  # (before the pipe: a Ctrl-C that lands here leaves nothing open)
    try:
        out, into = os.pipe()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        _close(out, into)
        raise
    if pid == 0:  # the child: it never returns into the caller's code
        code = 1
        try:
            os.close(queue_in)
            _close(out, *children)
            follow_main_process()  # (Ctrl-C ignored, SIGTERM ends it: then the signals may come)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            _child(work, weight, queue_out, into)
            code = 0
        finally:
            os._exit(code)
    try:
        os.close(into)
        child = children[out] = _Child(pid, out)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return child


def _hold() -> set[int | signal.Signals]:
    """SIGINT and SIGTERM held (they wait) in this thread; the mask before. CPython raises a signal
    that is already pending in the call that changes the mask, once it is changed: then the mask is
    put back before the KeyboardInterrupt goes on (else Ctrl-C would never work here again)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        raise
    return before


def _child(work: Callable[[Ticket], R], weight: Callable[[R], int], queue_out: int, into: int) -> None:
    import pickle

    results: dict[int, R] = {}
    for index, ticket in _tickets(queue_out):
        results[index] = work(ticket)
        _write_all(into, _FRAME.pack(_DONE, index, weight(results[index])))
    data = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(into, _FRAME.pack(_RESULTS, len(data), 0) + data)


def _give(
    first: Ticket, pending: Iterator[Ticket], queue_in: int, children: dict[int, _Child], shared: _Progress
) -> list[Ticket]:
    """Every ticket after the first onto the queue, one write each, as they come (a large NDJSON
    file is cut while the children check its first parts); all of them returned. While the queue
    is full, the children's frames are read, so that no child waits on a full pipe of its own."""
    import select

    given = [first]
    for ticket in pending:
        while not _writable(queue_in, children, shared, select):
            if all(child.ended for child in children.values()):  # no one left to empty the queue:
                given.append(ticket)  # the rest is checked here, as a dead child's tickets are
                given += pending
                return given
        os.write(queue_in, TICKET.pack(len(given), *ticket))
        given.append(ticket)
    return given


def _writable(queue_in: int, children: dict[int, _Child], shared: _Progress, select: Any) -> bool:
    """Whether the queue has room for a ticket, the children's frames read in the meantime."""
    open_fds = [fd for fd, child in children.items() if not child.ended]
    ready, room, _ = select.select(open_fds, [queue_in], [], None if open_fds else 0)
    for fd in ready:
        children[fd].read(shared)
    return bool(room)


def _take(
    work: Callable[[Ticket], R],
    weight: Callable[[R], int],
    queue_out: int,
    done: dict[int, R],
    children: dict[int, _Child],
    shared: _Progress,
) -> None:
    """This process's share of the tickets, the children's frames read between two; then the
    children's frames until each has ended."""
    import select

    for index, ticket in _tickets(queue_out):
        done[index] = work(ticket)
        shared.add(index, weight(done[index]))
        _drain(children, shared, select, 0)
    while any(not child.ended for child in children.values()):
        _drain(children, shared, select, None)


def _drain(children: dict[int, _Child], shared: _Progress, select: Any, timeout: float | None) -> None:
    open_fds = [fd for fd, child in children.items() if not child.ended]
    if not open_fds:
        return
    ready, _, _ = select.select(open_fds, [], [], timeout)
    for fd in ready:
        children[fd].read(shared)


def _tickets(queue_out: int) -> Iterator[tuple[int, Ticket]]:
    """The tickets this process takes from the queue until it is empty and closed."""
    while True:
        data = os.read(queue_out, TICKET.size)
        while data and len(data) < TICKET.size:  # not expected: writes of a ticket are atomic
            more = os.read(queue_out, TICKET.size - len(data))
            if not more:
                return
            data += more
        if not data:
            return
        index, *fields = TICKET.unpack(data)
        yield index, (fields[0], fields[1], fields[2], fields[3], fields[4])


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _close(*fds: int) -> None:
    for fd in fds:
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


def _stop(children: Iterable[_Child]) -> None:
    """Every child stopped (if still running), its pipe closed and its exit collected."""
    for child in children:
        if not child.ended:
            with contextlib.suppress(OSError):
                os.kill(child.pid, signal.SIGTERM)
    for child in children:
        _close(child.fd)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(child.pid, 0)
