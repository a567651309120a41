"""The forked runner of ``validate --jobs N`` on Linux (:mod:`jobschema.validate.parallel.fork`): results in
order whatever process did them, progress that adds up, a child that dies or fails losing nothing,
no child left behind, and tickets that cover every file and NDJSON part exactly once."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from jobschema.validate.parallel import fork
from jobschema.validate.parallel.fork import Ticket, run_forked
from jobschema.validate.parallel.tickets import batch_of, batches, tickets

pytestmark = pytest.mark.skipif(not fork.can_fork(), reason="the forked runner is Linux's")

PARENT = os.getpid()


def _tickets(count: int) -> list[Ticket]:
    return [(index, index * 3, 0, 0, 0) for index in range(count)]


def _square(ticket: Ticket) -> tuple[int, int]:
    return ticket[0], ticket[1] * ticket[1]


@pytest.mark.parametrize("jobs", [2, 3])
def test_results_come_in_ticket_order_and_progress_adds_up(jobs: int) -> None:
    seen: list[int] = []
    got = run_forked(_square, iter(_tickets(200)), jobs, lambda result: 1, seen.append)
    assert got == [_square(ticket) for ticket in _tickets(200)]
    assert seen == sorted(seen)
    assert seen[-1] == 200
    assert len(seen) == 200


def test_no_ticket_is_no_work_and_no_child() -> None:
    assert run_forked(_square, iter([]), 2, lambda result: 1) == []


def test_more_tickets_than_the_queue_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fork, "_QUEUE_BYTES", 4096)  # the writer waits on a full queue, and reads frames
    got = run_forked(_square, iter(_tickets(20_000)), 2, lambda result: 1)
    assert got == [_square(ticket) for ticket in _tickets(20_000)]


def test_a_result_larger_than_a_pipe_arrives_whole() -> None:
    def big(ticket: Ticket) -> bytes:
        return bytes([ticket[0] % 256]) * 300_000

    got = run_forked(big, iter(_tickets(8)), 2, len)
    assert got == [big(ticket) for ticket in _tickets(8)]


def test_a_child_that_dies_loses_nothing() -> None:
    def dies(ticket: Ticket) -> tuple[int, int]:
        if os.getpid() != PARENT and ticket[0] >= 5:
            os._exit(9)  # the child vanishes with the tickets it took
        return _square(ticket)

    assert run_forked(dies, iter(_tickets(50)), 3, lambda result: 1) == [_square(t) for t in _tickets(50)]


def _wait_for(path: Path) -> None:
    """Until ``path`` exists (another process makes it); bounded, so that a busy machine only slows."""
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.001)


def test_the_tickets_of_a_child_that_dies_are_counted_once(tmp_path: Path) -> None:
    died = tmp_path / "died"

    def dies_late(ticket: Ticket) -> tuple[int, int]:
        if os.getpid() == PARENT and ticket[0]:
            _wait_for(died)  # (the child takes the tickets meanwhile, and reaches the 30th)
        elif os.getpid() != PARENT and ticket[0] >= 30:
            died.touch()
            os._exit(9)  # after it reported the tickets it did: they are done again here
        return _square(ticket)

    seen: list[int] = []
    got = run_forked(dies_late, iter(_tickets(60)), 2, lambda result: 1, seen.append)
    assert died.exists()
    assert got == [_square(t) for t in _tickets(60)]
    assert seen[-1] == 60 and seen == sorted(set(seen))


def test_every_child_dead_while_the_queue_is_full_leaves_the_work_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fork, "_QUEUE_BYTES", 4096)  # (about 85 tickets: the queue fills at once)

    def dies(ticket: Ticket) -> tuple[int, int]:
        if os.getpid() != PARENT:
            os._exit(9)
        return _square(ticket)

    signal.alarm(60)  # a hang fails the test instead of the run
    try:
        got = run_forked(dies, iter(_tickets(5000)), 3, lambda result: 1)
    finally:
        signal.alarm(0)
    assert got == [_square(t) for t in _tickets(5000)]


def test_no_process_to_fork_checks_everything_here(monkeypatch: pytest.MonkeyPatch) -> None:
    before = len(list(Path("/proc/self/fd").iterdir()))

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(fork.os, "fork", refused)
    assert run_forked(_square, iter(_tickets(300)), 3, lambda result: 1) == [
        _square(t) for t in _tickets(300)
    ]
    assert len(list(Path("/proc/self/fd").iterdir())) == before  # no pipe left open


def test_a_child_that_fails_has_its_tickets_checked_here() -> None:
    def fails(ticket: Ticket) -> tuple[int, int]:
        if os.getpid() != PARENT:
            raise RuntimeError("not in a child")
        return _square(ticket)

    assert run_forked(fails, iter(_tickets(30)), 2, lambda result: 1) == [_square(t) for t in _tickets(30)]


def test_an_error_here_stops_and_collects_every_child(tmp_path: Path) -> None:
    def slow(ticket: Ticket) -> int:
        if os.getpid() != PARENT:
            (tmp_path / str(os.getpid())).touch()
            # Each child holds its first ticket until it is stopped (a minute at most: a child left
            # behind ends), so this process does the rest and reaches the 40th whatever the load:
            # children that did everything while this one waited for the CPU would leave no error.
            time.sleep(60)
        elif ticket[0] >= 40:
            deadline = time.monotonic() + 60  # (both children started, however busy the machine)
            while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
                time.sleep(0.001)
            raise ValueError("broken here")
        return ticket[0]

    with pytest.raises(ValueError, match="broken here"):
        run_forked(slow, iter(_tickets(200)), 3, lambda result: 1)
    children = [int(path.name) for path in tmp_path.iterdir()]
    assert children
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()]  # stopped and reaped


def test_tickets_name_every_file_once_in_batches(tmp_path: Path) -> None:
    files = [str(tmp_path / f"f{index}.json") for index in range(10)]
    got = [batch_of(files, ticket) for ticket in tickets(files, 2, 4)]
    assert got == [files[0:4], files[4:8], files[8:10]]
    assert list(batches(files, 2, 4)) == got
    led = [batch_of(files, ticket) for ticket in tickets(files, 2, 4, lead=1)]
    assert led == [files[0:1], files[1:5], files[5:9], files[9:10]]


def test_tickets_cut_a_large_ndjson_file_between_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobschema.inputs import split

    monkeypatch.setattr(split, "SMALLEST_PART", 64)
    big = tmp_path / "b.ndjson"
    big.write_bytes(b"".join(b'{"line": %d, "pad": "%s"}\n' % (n, b"x" * 20) for n in range(1, 41)))
    files = [str(tmp_path / "a.json"), str(big), str(tmp_path / "c.json")]
    got = list(tickets(files, 2, 8))
    parts = [batch_of(files, ticket)[0] for ticket in got[1:-1]]
    assert got[0] == (0, 1, 0, 0, 0)
    assert got[-1] == (2, 1, 0, 0, 0)
    assert parts == list(split.split_ndjson(str(big), 2))
    assert [part.end for part in parts][-1] is None
    assert all(ticket[1] == 0 for ticket in got[1:-1])


def test_a_ctrl_c_at_the_fork_leaves_no_child_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fork = os.fork

    def fork_then_ctrl_c() -> int:
        pid = real_fork()
        if pid:  # here, at once: the child is not registered yet
            (tmp_path / str(pid)).touch()
            # To this thread, which holds it: sent to the process, it would go to any other thread of
            # this one (threads earlier tests left), and CPython would raise it here only much later.
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        return pid

    monkeypatch.setattr(os, "fork", fork_then_ctrl_c)

    def slow(ticket: Ticket) -> int:
        time.sleep(0.01)
        return ticket[0]

    with pytest.raises(KeyboardInterrupt):
        run_forked(slow, iter(_tickets(100)), 3, lambda result: 1)
    children = [int(path.name) for path in tmp_path.iterdir()]
    assert len(children) == 1
    assert not Path(f"/proc/{children[0]}").exists()  # stopped and reaped


def test_a_ctrl_c_raised_as_the_signals_are_held_leaves_them_unheld(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython raises a pending signal in the call that changes the mask, after changing it: a Ctrl-C
    already there as the fork holds SIGINT must not leave SIGINT and SIGTERM blocked (Ctrl-C would
    never work again in a program that validates with several processes)."""
    real = signal.pthread_sigmask

    def raised_when_held(how: int, mask: Iterable[int]) -> set[signal.Signals]:
        previous = real(how, mask)
        if how == signal.SIG_BLOCK and signal.SIGINT in set(mask):
            raise KeyboardInterrupt  # (what a pending Ctrl-C does there)
        return previous

    monkeypatch.setattr(signal, "pthread_sigmask", raised_when_held)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_forked(_square, iter(_tickets(10)), 2, lambda result: 1)
        held = real(signal.SIG_BLOCK, [])
    finally:
        real(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])  # (the rest of the suite needs them)
    assert held & {signal.SIGINT, signal.SIGTERM} == set()
